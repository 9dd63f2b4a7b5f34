#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore
import ServerSupport

/// Notification preferences (Server/README.md, "Preferences"): the same operations for the
/// client API (the auth token's user, under `notifications/push/v1/preferences`) and the admin
/// API (any user of the app, under `users/{uid}/push-preferences`). Each answers the user's
/// whole preferences.
struct PreferencesAPI {
    let service: ServiceContext

    /// The client routes.
    var clientRoutes: [Route] {
        routes(prefix: "notifications/push/v1/preferences", auth: .client) { call in
            guard let session = call.session else { throw APIError.authTokenNotFound }
            return (session.appId, session.uid)
        }
    }

    /// The admin routes.
    var adminRoutes: [Route] {
        routes(prefix: "users/:uid/push-preferences", auth: .adminApp) { call in
            let uid = call.parameter("uid")
            guard try service.store.user(appId: call.appId, uid: uid) != nil else { throw APIError.userNotFound }
            return (call.appId, uid)
        }
    }

    private func routes(prefix: String, auth: RouteAuth, user: @escaping @Sendable (Call) throws -> (String, String)) -> [Route] {
        [
            Route("GET", prefix, auth) { call in
                let (appId, uid) = try user(call)
                return try preferencesJSON(appId: appId, uid: uid)
            },
            Route("PUT", prefix + "/mutes", auth) { call in
                let (appId, uid) = try user(call)
                try setMute(call.body(), appId: appId, uid: uid)
                return try preferencesJSON(appId: appId, uid: uid)
            },
            Route("DELETE", prefix + "/mutes/:receiverType/:receiver", auth) { call in
                let (appId, uid) = try user(call)
                let receiverType = try Self.receiverType(call.parameter("receiverType"), field: "receiverType")
                let receiver = call.parameter("receiver")
                try Validate.identifier(receiver, field: "receiver")
                _ = try service.store.deleteMute(appId: appId, uid: uid, receiverType: receiverType, receiver: receiver)
                return try preferencesJSON(appId: appId, uid: uid)
            },
            Route("PUT", prefix + "/groups/:guid", auth) { call in
                let (appId, uid) = try user(call)
                let guid = call.parameter("guid")
                try Validate.identifier(guid, field: "guid")
                let level = try call.body().string("level", maxLength: 16)
                guard Self.levels.contains(level) else {
                    throw APIError.badRequest("The level field must be all, mentions or none.", field: "level", problem: level)
                }
                try service.store.setGroupLevel(appId: appId, uid: uid, guid: guid, level: level, now: service.now)
                return try preferencesJSON(appId: appId, uid: uid)
            },
            Route("PUT", prefix + "/quiet-hours", auth) { call in
                let (appId, uid) = try user(call)
                try service.store.setQuietHours(appId: appId, uid: uid, quietHours: Self.quietHours(call.body()), now: service.now)
                return try preferencesJSON(appId: appId, uid: uid)
            },
            Route("DELETE", prefix + "/quiet-hours", auth) { call in
                let (appId, uid) = try user(call)
                try service.store.setQuietHours(appId: appId, uid: uid, quietHours: nil, now: service.now)
                return try preferencesJSON(appId: appId, uid: uid)
            },
        ]
    }

    static let levels: Set<String> = ["all", "mentions", "none"]

    /// The latest `until` accepted (year 33658): keeps milliseconds well inside 64 bits.
    static let maxUntil: Int64 = 1_000_000_000_000_000

    static func receiverType(_ value: String, field: String) throws(APIError) -> String {
        guard value == "user" || value == "group" else {
            throw .badRequest("The \(field) field must be user or group.", field: field, problem: value)
        }
        return value
    }

    private func setMute(_ body: JSONObject, appId: String, uid: String) throws {
        let receiverType = try Self.receiverType(body.string("receiverType", maxLength: 16), field: "receiverType")
        let receiver = try body.string("receiver", maxLength: 128)
        try Validate.identifier(receiver, field: "receiver")
        let now = service.now
        var until: Date?
        if let milliseconds = try body.int("until", in: 0...Self.maxUntil) {
            guard Double(milliseconds) / 1000 > now.timeIntervalSince1970 else {
                throw APIError.badRequest(
                    "The until field must be in the future (milliseconds since 1970), or null for forever.", field: "until",
                    problem: "in the past")
            }
            until = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }  // null or absent: forever
        try service.store.setMute(
            appId: appId, uid: uid, mute: PushPreferences.Mute(receiverType: receiverType, receiver: receiver, until: until), now: now)
    }

    /// Parses `{"start","end","includeCalls","timezone"?}`.
    static func quietHours(_ body: JSONObject) throws(APIError) -> PushPreferences.QuietHours {
        let start = try minutes(body.string("start", maxLength: 5), field: "start")
        let end = try minutes(body.string("end", maxLength: 5), field: "end")
        guard start != end else {
            throw .badRequest("The start and end fields must differ (an empty window).", field: "end", problem: "equals start")
        }
        let timezone = try body.optionalString("timezone", maxLength: 64)
        if let timezone, !PreferenceRules.isKnownTimezone(timezone) {
            throw .badRequest("The timezone field is not a known IANA time zone.", field: "timezone", problem: "unknown time zone")
        }
        return PushPreferences.QuietHours(
            start: start, end: end, includeCalls: try body.bool("includeCalls") ?? false, timezone: timezone)
    }

    /// `HH:MM` (00:00...23:59) as minutes after midnight.
    static func minutes(_ text: String, field: String) throws(APIError) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard text.count == 5, parts.count == 2,
            parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else {
            throw .badRequest("The \(field) field must be a time HH:MM (00:00 to 23:59).", field: field, problem: "not HH:MM")
        }
        return hour * 60 + minute
    }

    static func clock(_ minutes: Int) -> String {
        let hour = minutes / 60
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// The answer of every preferences route.
    func preferencesJSON(appId: String, uid: String) throws -> [String: Any] {
        let now = service.now
        let preferences = try service.store.preferences(appId: appId, uid: uid)
        let registered = PreferenceRules.registrationTimezone(try service.store.tokens(appId: appId, uid: uid))
        let mutes: [[String: Any]] = preferences.mutes.filter { $0.isActive(at: now) }.map { mute in
            [
                "receiverType": mute.receiverType, "receiver": mute.receiver,
                "until": mute.until.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) as Any } ?? JSONNull(),
            ]
        }
        let groups: [[String: Any]] = preferences.groups.map { ["guid": $0.guid, "level": $0.level] }
        var quiet: Any = JSONNull()
        if let hours = preferences.quietHours {
            var value: [String: Any] = ["start": Self.clock(hours.start), "end": Self.clock(hours.end), "includeCalls": hours.includeCalls]
            value["timezone"] = hours.timezone ?? registered ?? JSONNull()
            quiet = value
        }
        return [
            "mutes": mutes, "groups": groups, "quietHours": quiet,
            "timezone": preferences.quietHours?.timezone ?? registered ?? JSONNull(),
        ]
    }
}
