import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The client API of `Contract/WIRE-CONTRACT.md` §2 as rules a request can be checked against. The
/// SDK's tests prove these rules accept every request fixture in `Contract/client/` and reject
/// broken variants of them.
public enum WireContract {
    /// One client call.
    public enum Route: String, Sendable, CaseIterable {
        /// `POST /notifications/push/v1/tokens`
        case registerToken
        /// `DELETE /notifications/push/v1/tokens`
        case unregisterTokens
        /// `POST /users/{uid}/conversation/delivered`
        case userDelivered
        /// `POST /groups/{guid}/conversation/delivered`
        case groupDelivered
        /// `POST /messages`
        case sendMessage
        /// `POST /messages/{parentId}/thread`
        case sendThreadMessage
        /// `PUT /campaigns/push-notifications/{id}/delivered`
        case campaignDelivered
        /// `PUT /campaigns/push-notifications/{id}/clicked`
        case campaignClicked
        /// `PUT /calls/{sessionId}`
        case callStatus
        /// `GET /notifications/push/v1/preferences` (self-hosted services)
        case getPreferences
        /// `PUT /notifications/push/v1/preferences/mutes`
        case muteConversation
        /// `DELETE /notifications/push/v1/preferences/mutes/{receiverType}/{receiver}`
        case unmuteConversation
        /// `PUT /notifications/push/v1/preferences/groups/{guid}`
        case groupLevel
        /// `PUT /notifications/push/v1/preferences/quiet-hours`
        case setQuietHours
        /// `DELETE /notifications/push/v1/preferences/quiet-hours`
        case clearQuietHours
        /// `POST /notifications/push/v1/read`
        case markRead
        /// `POST /notifications/push/v1/pushes/{pushId}/opened`
        case pushOpened
        /// `GET /notifications/push/v1/changes?since={cursor}&limit={1–500}` (self-hosted services)
        case changes
        /// `PUT /notifications/push/v1/activity`: the conversation this device shows (issue 31,
        /// self-hosted services)
        case activity
    }

    /// A request the contract recognises: its route and the path parameter, if any.
    public struct Match: Sendable, Equatable {
        /// The route.
        public var route: Route
        /// The `{uid}`, `{guid}`, `{parentId}`, `{id}` or `{sessionId}` of the path.
        public var parameter: String?
    }

    /// The `platform` values of `POST /notifications/push/v1/tokens` (§2), written out rather
    /// than taken from the SDK's `CometChatPushTokenPlatform`, so that an SDK sending a wrong
    /// value is caught instead of redefining the contract.
    public static let platforms = ["apns_ios_device", "apns_ios_voip", "fcm_ios"]

    /// Finds the route of `method` and `path` (the part after the base URL, with its query if any).
    public static func match(method: String, path: String) -> Match? {
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.count >= 4, Array(parts[0..<3]) == ["notifications", "push", "v1"] {
            return matchPushRoute(method: method, Array(parts.dropFirst(3)))
        }
        switch (method, parts.count) {
        case ("POST", 4) where parts == ["notifications", "push", "v1", "tokens"]:
            return Match(route: .registerToken)
        case ("DELETE", 4) where parts == ["notifications", "push", "v1", "tokens"]:
            return Match(route: .unregisterTokens)
        case ("POST", 4) where parts[0] == "users" && parts[2] == "conversation" && parts[3] == "delivered":
            return Match(route: .userDelivered, parameter: parts[1].removingPercentEncoding)
        case ("POST", 4) where parts[0] == "groups" && parts[2] == "conversation" && parts[3] == "delivered":
            return Match(route: .groupDelivered, parameter: parts[1].removingPercentEncoding)
        case ("POST", 1) where parts[0] == "messages":
            return Match(route: .sendMessage)
        case ("POST", 3) where parts[0] == "messages" && parts[2] == "thread":
            return Match(route: .sendThreadMessage, parameter: parts[1].removingPercentEncoding)
        case ("PUT", 4) where parts[0] == "campaigns" && parts[1] == "push-notifications" && parts[3] == "delivered":
            return Match(route: .campaignDelivered, parameter: parts[2].removingPercentEncoding)
        case ("PUT", 4) where parts[0] == "campaigns" && parts[1] == "push-notifications" && parts[3] == "clicked":
            return Match(route: .campaignClicked, parameter: parts[2].removingPercentEncoding)
        case ("PUT", 2) where parts[0] == "calls":
            return Match(route: .callStatus, parameter: parts[1].removingPercentEncoding)
        default:
            return nil
        }
    }

    /// The routes under `/notifications/push/v1/` (`rest` is what follows).
    private static func matchPushRoute(method: String, _ rest: [String]) -> Match? {
        let decoded = rest.map { $0.removingPercentEncoding ?? $0 }
        switch (method, decoded.count) {
        case ("POST", 1) where decoded == ["tokens"]: return Match(route: .registerToken)
        case ("DELETE", 1) where decoded == ["tokens"]: return Match(route: .unregisterTokens)
        case ("GET", 1) where decoded == ["preferences"]: return Match(route: .getPreferences)
        case ("PUT", 2) where decoded == ["preferences", "mutes"]: return Match(route: .muteConversation)
        case ("DELETE", 4) where decoded[0] == "preferences" && decoded[1] == "mutes" && ["user", "group"].contains(decoded[2]):
            return Match(route: .unmuteConversation, parameter: decoded[3])
        case ("PUT", 3) where decoded[0] == "preferences" && decoded[1] == "groups":
            return Match(route: .groupLevel, parameter: decoded[2])
        case ("PUT", 2) where decoded == ["preferences", "quiet-hours"]: return Match(route: .setQuietHours)
        case ("DELETE", 2) where decoded == ["preferences", "quiet-hours"]: return Match(route: .clearQuietHours)
        case ("POST", 1) where decoded == ["read"]: return Match(route: .markRead)
        case ("POST", 3) where decoded[0] == "pushes" && decoded[2] == "opened":
            return Match(route: .pushOpened, parameter: decoded[1])
        case ("GET", 1) where decoded == ["changes"]: return Match(route: .changes)
        case ("PUT", 1) where decoded == ["activity"]: return Match(route: .activity)
        default: return nil
        }
    }

    /// The query items of `path` (after its `?`), decoded; `nil` when a name repeats.
    public static func query(of path: String) -> [String: String]? {
        guard let start = path.firstIndex(of: "?") else { return [:] }
        var items: [String: String] = [:]
        for pair in path[path.index(after: start)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            guard items[parts[0]] == nil else { return nil }
            items[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return items
    }

    /// What is wrong with a request, or an empty list. `path` is the part after the base URL,
    /// with its query if any.
    public static func violations(
        method: String, path: String, headers: [String: String], body: Data?
    ) -> [String] {
        guard let match = match(method: method, path: path) else {
            return ["\(method) \(path) is not a call of the client API"]
        }
        var problems: [String] = []
        for name in ["appid", "authToken"] where (headers[name] ?? "").isEmpty {
            problems.append("missing header \(name)")
        }
        let query = Self.query(of: path)
        if query == nil { problems.append("a query parameter repeats") }
        if match.route != .changes, query?.isEmpty == false { problems.append("\(match.route.rawValue) takes no query") }
        // A bodiless GET of the changes feed may leave Content-Type out (Contract/client/changes.json).
        if headers["Content-Type"] != "application/json", !(match.route == .changes && headers["Content-Type"] == nil) {
            problems.append("Content-Type is not application/json")
        }
        if headers["Accept"] != "application/json" { problems.append("Accept is not application/json") }
        if let parameter = match.parameter, parameter.isEmpty { problems.append("empty path parameter") }

        let json: [String: Any]?
        if let body, !body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                return problems + ["the body is not a JSON object"]
            }
            json = object
        } else {
            json = nil
        }
        func requireString(_ key: String, in object: [String: Any], oneOf allowed: [String]? = nil) {
            guard let value = object[key] as? String, !value.isEmpty else {
                problems.append("body.\(key) must be a non-empty string")
                return
            }
            if let allowed, !allowed.contains(value) { problems.append("body.\(key) \"\(value)\" is not one of \(allowed)") }
        }
        func requireKeys(_ keys: Set<String>, in object: [String: Any], at where_: String = "body") {
            let extra = Set(object.keys).subtracting(keys)
            if !extra.isEmpty { problems.append("\(where_) has unexpected keys \(extra.sorted())") }
        }
        switch match.route {
        case .unregisterTokens, .campaignDelivered, .campaignClicked, .getPreferences, .unmuteConversation, .clearQuietHours,
            .pushOpened:
            if json != nil { problems.append("\(match.route.rawValue) takes no body") }
        case .changes:
            if json != nil { problems.append("changes takes no body") }
            let items = query ?? [:]
            if let extra = Set(items.keys).subtracting(["since", "limit"]).sorted().first { problems.append("unexpected query \(extra)") }
            if let since = items["since"], since.isEmpty { problems.append("since must be a non-empty cursor") }
            if let limit = items["limit"], !(Int(limit).map { (1...500).contains($0) } ?? false) {
                problems.append("limit \"\(limit)\" is not a whole number from 1 to 500")
            }
        case .muteConversation:
            guard let json else { return problems + ["a mute needs a body"] }
            requireString("receiverType", in: json, oneOf: ["user", "group"])
            requireString("receiver", in: json)
            if !(json["until"] is NSNull), !isInteger(json["until"]) { problems.append("body.until must be milliseconds or null") }
            requireKeys(["receiverType", "receiver", "until"], in: json)
        case .groupLevel:
            guard let json else { return problems + ["a group level needs a body"] }
            requireString("level", in: json, oneOf: ["all", "mentions", "none"])
            requireKeys(["level"], in: json)
        case .setQuietHours:
            guard let json else { return problems + ["quiet hours need a body"] }
            for key in ["start", "end"] {
                requireString(key, in: json)
                if let text = json[key] as? String, !isClockTime(text) { problems.append("body.\(key) \"\(text)\" is not HH:MM") }
            }
            if !isBoolean(json["includeCalls"]) { problems.append("body.includeCalls must be a boolean") }
            if json["timezone"] != nil { requireString("timezone", in: json) }
            requireKeys(["start", "end", "includeCalls", "timezone"], in: json)
        case .markRead:
            guard let json else { return problems + ["a read needs a body"] }
            requireString("receiverType", in: json, oneOf: ["user", "group"])
            requireString("receiver", in: json)
            if let count = json["unreadCount"], !isInteger(count) || ((count as? NSNumber)?.intValue ?? -1) < 0 {
                problems.append("body.unreadCount must be an integer ≥ 0")
            }
            requireKeys(["receiverType", "receiver", "unreadCount"], in: json)
        case .registerToken:
            guard let json else { return problems + ["registerToken needs a body"] }
            requireString("fcmToken", in: json)
            requireString("platform", in: json, oneOf: platforms)
            requireString("providerId", in: json)
            requireString("timezone", in: json)
            if json["environment"] != nil {
                requireString("environment", in: json, oneOf: ["sandbox", "production"])
                if json["platform"] as? String == "fcm_ios" { problems.append("an FCM token has no APNs environment") }
            }
            if let encryption = json["encryption"] {
                // Private push (issue 28): the device's Web Push keys, base64url without padding.
                if let keys = encryption as? [String: Any] {
                    let p256dh = (keys["p256dh"] as? String).flatMap(PNBase64URL.decode)
                    if p256dh?.count != 65 || p256dh?.first != 0x04 {
                        problems.append("body.encryption.p256dh must be base64url of a 65-byte uncompressed point")
                    }
                    if (keys["auth"] as? String).flatMap(PNBase64URL.decode)?.count != 16 {
                        problems.append("body.encryption.auth must be base64url of 16 bytes")
                    }
                    for key in ["p256dh", "auth"] where (keys[key] as? String)?.contains("=") == true {
                        problems.append("body.encryption.\(key) must have no padding")
                    }
                    requireKeys(["p256dh", "auth"], in: keys, at: "body.encryption")
                } else {
                    problems.append("body.encryption must be an object")
                }
            }
            if let languages = json["languages"] {
                // The device's preferred languages (issue 30): at most 10 BCP-47-like tags.
                if let tags = languages as? [Any], tags.allSatisfy({ $0 is String }) {
                    if tags.count > 10 { problems.append("body.languages has \(tags.count) tags, at most 10") }
                    for case let tag as String in tags where !isLanguageTag(tag) {
                        problems.append("body.languages \"\(tag)\" is not a language tag of at most 35 characters")
                    }
                } else {
                    problems.append("body.languages must be an array of strings")
                }
            }
            requireKeys(["fcmToken", "platform", "providerId", "timezone", "environment", "encryption", "languages"], in: json)
            if let token = json["fcmToken"] as? String, token.count > 4096 { problems.append("the token is over 4,096 characters") }
        case .userDelivered, .groupDelivered:
            guard let json else { return problems + ["a delivered receipt needs a body"] }
            requireString("messageId", in: json)
            if json["pushId"] != nil || json["deliveredBy"] != nil {
                requireString("pushId", in: json)
                requireString("deliveredBy", in: json, oneOf: ["extension", "app"])
            }
            requireKeys(["messageId", "pushId", "deliveredBy"], in: json)
        case .sendMessage, .sendThreadMessage:
            guard let json else { return problems + ["a message needs a body"] }
            requireString("receiver", in: json)
            requireString("receiverType", in: json, oneOf: ["user", "group"])
            requireString("category", in: json, oneOf: ["message"])
            requireString("type", in: json, oneOf: ["text"])
            if json["pushId"] != nil { requireString("pushId", in: json) }
            requireKeys(["receiver", "receiverType", "category", "type", "data", "pushId"], in: json)
            if let data = json["data"] as? [String: Any] {
                requireString("text", in: data)
                requireKeys(["text"], in: data, at: "body.data")
            } else {
                problems.append("body.data must be an object with text")
            }
        case .activity:
            // `{"conversationId": "<id>" | null, "seconds": 1…300}`: the id as the service takes
            // it (printable ASCII, no space or `/`, at most 300 characters), `seconds` optional.
            guard let json else { return problems + ["an activity report needs a body"] }
            switch json["conversationId"] {
            case is NSNull: break
            case let id as String where isConversationId(id): break
            case let id as String:
                problems.append("body.conversationId \"\(id)\" is not printable ASCII without spaces or /, 1 to 300 characters")
            case nil: problems.append("body.conversationId is missing (null clears the activity)")
            default: problems.append("body.conversationId must be a string or null")
            }
            if let seconds = json["seconds"], !isInteger(seconds) || !(1...300).contains((seconds as? NSNumber)?.doubleValue ?? 0) {
                problems.append("body.seconds must be a whole number from 1 to 300")
            }
            requireKeys(["conversationId", "seconds"], in: json)
        case .callStatus:
            guard let json else { return problems + ["a call status needs a body"] }
            requireString("status", in: json, oneOf: ["rejected", "busy", "unanswered"])
            requireKeys(["status"], in: json)
        }
        return problems
    }

    private static func isInteger(_ value: Any?) -> Bool {
        guard let number = value as? NSNumber, !isBoolean(number) else { return false }
        return number.doubleValue == number.doubleValue.rounded()
    }

    private static func isBoolean(_ value: Any?) -> Bool {
        // JSON booleans are NSNumbers of Objective-C type `char` (or `bool`).
        guard let number = value as? NSNumber else { return false }
        let type = UInt8(bitPattern: number.objCType.pointee)
        return type == UInt8(ascii: "c") || type == UInt8(ascii: "B")
    }

    /// A tag as the contract allows in `languages`: `^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`, at
    /// most 35 characters. The pattern ends in `\z`: ICU's `$` also matches before a final
    /// newline.
    private static func isLanguageTag(_ tag: String) -> Bool {
        tag.count <= 35 && tag.range(of: #"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*\z"#, options: .regularExpression) != nil
    }

    /// A conversation id as the service takes it (`alice_user_bob`, `group_team`): 1 to 300
    /// characters, each printable ASCII other than a space or `/`.
    private static func isConversationId(_ id: String) -> Bool {
        !id.isEmpty && id.unicodeScalars.count <= 300 && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "/" }
    }

    private static func isClockTime(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]) else {
            return false
        }
        return (0..<24).contains(hour) && (0..<60).contains(minute)
    }
}
