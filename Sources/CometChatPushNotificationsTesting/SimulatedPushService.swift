import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// An in-memory push service behind the SDK's HTTP transport. It checks every request against
/// ``WireContract`` (``contractViolations``), keeps the tokens registered per auth token, and
/// answers with scripted failures when told to.
public final class SimulatedPushService: PNHTTPTransport, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.

    /// A request as the service received it.
    public struct Request: Sendable {
        /// The route, if the contract knows the call.
        public var match: WireContract.Match?
        /// The method.
        public var method: String
        /// The path after the base URL.
        public var path: String
        /// The query items, decoded.
        public var query: [String: String]
        /// The headers.
        public var headers: [String: String]
        /// The JSON body, decoded.
        public var json: [String: String]
        /// The body's nested `data.text`, for messages.
        public var text: String?
        /// When the service received it (the simulated clock's time).
        public var at: Date
        /// A token registration's private push keys (`encryption`), if it had them.
        public var encryption: SimulatedPrivatePush.Keys?
        /// A token registration's preferred languages (`languages`, issue 30), in the order sent,
        /// if it had them.
        public var languages: [String]? = nil
    }

    /// A token the service holds.
    public struct Registration: Sendable, Equatable {
        /// The token text.
        public var token: String
        /// The wire platform value.
        public var platform: String
        /// The provider id.
        public var providerId: String
        /// The preferred languages kept for the token (issue 30): those of its latest
        /// registration, `nil` when that registration had none (which clears them, as the
        /// service does).
        public var languages: [String]? = nil
    }

    /// A scripted answer.
    public enum Failure: Error, Sendable, Equatable {
        /// No answer at all (offline).
        case network
        /// An HTTP error with the §2 envelope.
        case status(Int, code: String)
    }

    /// The preferences the service keeps for one auth token (issue 18's preferences routes).
    public struct Preferences: Sendable, Equatable {
        /// A muted conversation.
        public struct Mute: Sendable, Equatable {
            /// `user` or `group`.
            public var receiverType: String
            /// The uid or guid.
            public var receiver: String
            /// Milliseconds since 1970, or `nil` for forever.
            public var until: Int64?
        }
        /// The mutes, in the order they were set.
        public var mutes: [Mute] = []
        /// Group levels by guid: `all`, `mentions` or `none`.
        public var groups: [String: String] = [:]
        /// Quiet hours: `start`, `end` (`HH:MM`) and whether calls are included.
        public var quietHours: (start: String, end: String, includeCalls: Bool)?

        /// Equal when the mutes, group levels and quiet hours are.
        public static func == (lhs: Preferences, rhs: Preferences) -> Bool {
            lhs.mutes == rhs.mutes && lhs.groups == rhs.groups && lhs.quietHours?.start == rhs.quietHours?.start
                && lhs.quietHours?.end == rhs.quietHours?.end && lhs.quietHours?.includeCalls == rhs.quietHours?.includeCalls
        }

        /// The wire object the preferences routes answer at `date` (expired mutes are not listed).
        func wire(at date: Date) -> [String: Any] {
            let now = Int64(date.timeIntervalSince1970 * 1000)
            return [
                "mutes": mutes.filter { ($0.until ?? .max) > now }.map {
                    ["receiverType": $0.receiverType, "receiver": $0.receiver, "until": $0.until.map { NSNumber(value: $0) } ?? NSNull()]
                        as [String: Any]
                },
                "groups": groups.sorted { $0.key < $1.key }.map { ["guid": $0.key, "level": $0.value] },
                "quietHours": quietHours.map {
                    ["start": $0.start, "end": $0.end, "includeCalls": $0.includeCalls] as [String: Any]
                } ?? NSNull(),
                "timezone": NSNull(),
            ]
        }
    }

    /// One entry of a user's changes feed (`GET /notifications/push/v1/changes`, wire contract §2):
    /// a message edited or deleted, or a conversation read on another device.
    public struct Change: Sendable {
        /// `edited`, `deleted` or `read`.
        public var kind: String
        /// The conversation.
        public var conversationId: String
        /// The message (edits and deletions).
        public var messageId: String?
        /// Its notification's identifier on the device: its push's collapse id.
        public var notificationId: String?
        /// An edit's new title.
        public var title: String?
        /// An edit's new text.
        public var body: String?
        /// A read's unread count.
        public var unreadCount: Int?
        /// When it happened.
        public var at: Date

        /// A message edited to `title` and `body`.
        public static func edited(
            conversationId: String, messageId: String, notificationId: String?, title: String, body: String, at: Date
        ) -> Change {
            Change(
                kind: "edited", conversationId: conversationId, messageId: messageId, notificationId: notificationId, title: title,
                body: body, at: at)
        }

        /// A message deleted.
        public static func deleted(conversationId: String, messageId: String, notificationId: String?, at: Date) -> Change {
            Change(kind: "deleted", conversationId: conversationId, messageId: messageId, notificationId: notificationId, at: at)
        }

        /// A conversation read on another device, with the unread count the reader gave.
        public static func read(conversationId: String, unreadCount: Int?, at: Date) -> Change {
            Change(kind: "read", conversationId: conversationId, unreadCount: unreadCount, at: at)
        }

        var wire: [String: Any] {
            var entry: [String: Any] = [
                "kind": kind, "conversationId": conversationId, "at": NSNumber(value: Int64(at.timeIntervalSince1970 * 1000)),
            ]
            entry["messageId"] = messageId
            entry["notificationId"] = notificationId
            entry["title"] = title
            entry["body"] = body
            entry["unreadCount"] = unreadCount
            return entry
        }
    }

    /// The conversation a session reported it shows (`PUT /notifications/push/v1/activity`,
    /// issue 31), until it ends by itself.
    public struct Activity: Sendable, Equatable {
        /// The conversation, as chat pushes name it (`alice_user_bob`, `group_team`).
        public var conversationId: String
        /// When it ends: the report's `seconds` (60 when absent) after it arrived.
        public var expiresAt: Date
    }

    /// A user's changes feed: its entries in order, numbered, and how far retention purged it.
    private struct Feed {
        var entries: [(number: Int, change: Change)] = []
        var purgedThrough = 0
    }

    private struct State {
        var requests: [Request] = []
        var feeds: [String: Feed] = [:]
        var lastChange = 0
        var preferences: [String: Preferences] = [:]
        var activities: [String: Activity] = [:]
        var violations: [String] = []
        var registrations: [String: [Registration]] = [:]
        var scripted: [WireContract.Route: [Failure]] = [:]
        var validAuthTokens: Set<String>?
    }

    private let state = PNLocked(State())
    private let clock: PNClock
    /// The path prefix of the base URL (`/v3.0` for the default host).
    public var basePath: String

    /// Creates a service.
    public init(clock: PNClock, basePath: String = "/v3.0") {
        self.clock = clock
        self.basePath = basePath
    }

    /// Every request received, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Requests of one route.
    public func requests(_ route: WireContract.Route) -> [Request] { requests.filter { $0.match?.route == route } }

    /// Everything the SDK sent that breaks the contract.
    public var contractViolations: [String] { state.withLock { $0.violations } }

    /// The tokens registered under an auth token.
    public func registrations(authToken: String) -> [Registration] { state.withLock { $0.registrations[authToken] ?? [] } }

    /// The preferred languages the service keeps for `token` (issue 30): those its latest
    /// registration sent, in order; `nil` when the token is not registered or its registration
    /// had none.
    public func languages(token: String) -> [String]? {
        state.withLock { $0.registrations.values.joined().first { $0.token == token }?.languages }
    }

    /// Every auth token that has tokens.
    public var authTokensWithRegistrations: [String] { state.withLock { $0.registrations.filter { !$0.value.isEmpty }.map(\.key) } }

    /// Only these auth tokens are accepted; others get `AUTH_ERR_AUTH_TOKEN_NOT_FOUND`.
    /// `nil` (the default) accepts any.
    public func acceptOnly(authTokens: Set<String>?) { state.withLock { $0.validAuthTokens = authTokens } }

    /// Revokes one auth token, as the admin API does: the push tokens registered with it are
    /// deleted, and later calls with it get `AUTH_ERR_AUTH_TOKEN_NOT_FOUND`.
    public func revoke(authToken: String) {
        state.withLock {
            var valid = $0.validAuthTokens ?? Set($0.registrations.keys)
            valid.remove(authToken)
            $0.validAuthTokens = valid
            $0.registrations[authToken] = nil
        }
    }

    /// The next calls of `route` fail with `failures`, in order.
    public func fail(_ route: WireContract.Route, with failures: [Failure]) {
        state.withLock { $0.scripted[route, default: []].append(contentsOf: failures) }
    }

    /// The preferences kept for an auth token.
    public func preferences(authToken: String) -> Preferences { state.withLock { $0.preferences[authToken] ?? Preferences() } }

    /// The conversation the session of `authToken` shows, as its last report set it (issue 31);
    /// `nil` when it cleared it, it ended (on the service's clock) or it never reported one.
    public func activity(authToken: String) -> Activity? {
        let now = clock.now()
        return state.withLock { $0.activities[authToken] }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    /// The push ids whose opened call arrived, once per call, in order.
    public var openedPushIds: [String] { requests(.pushOpened).compactMap { $0.match?.parameter } }

    /// Forgets the requests received (registrations stay).
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// Records a change for the user of `authToken`: the changes feed answers it to that session
    /// after any cursor given before it.
    public func recordChange(_ change: Change, authToken: String) {
        state.withLock {
            $0.lastChange += 1
            $0.feeds[authToken, default: Feed()].entries.append(($0.lastChange, change))
        }
    }

    /// Retention purges the changes recorded so far for `authToken`: a cursor given before them
    /// then gets `truncated: true`.
    public func purgeChanges(authToken: String) {
        state.withLock { state in
            var feed = state.feeds[authToken] ?? Feed()
            feed.purgedThrough = feed.entries.last?.number ?? feed.purgedThrough
            feed.entries.removeAll()
            state.feeds[authToken] = feed
        }
    }

    /// The cursor of a page: the number of the last change it covers.
    private static func cursor(_ number: Int) -> String { "c\(number)" }

    /// Handles one request.
    public func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse {
        var path = request.url.path
        if !basePath.isEmpty, path.hasPrefix(basePath) { path.removeFirst(basePath.count) }
        let pathAndQuery = path + (request.url.query.map { "?" + $0 } ?? "")
        let match = WireContract.match(method: request.method, path: pathAndQuery)
        let query = WireContract.query(of: pathAndQuery) ?? [:]
        let problems = WireContract.violations(
            method: request.method, path: pathAndQuery, headers: request.headers, body: request.body)
        var json: [String: String] = [:]
        var text: String?
        var object: [String: Any] = [:]
        if let body = request.body, let decoded = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            object = decoded
            for (key, value) in decoded {
                switch value {
                case let value as String: json[key] = value
                case is NSNull: json[key] = "null"
                case let value as NSNumber: json[key] = value.stringValue
                default: break
                }
            }
            text = (decoded["data"] as? [String: Any])?["text"] as? String
        }
        let includeCalls = object["includeCalls"] as? Bool ?? false
        let received = Request(
            match: match, method: request.method, path: path, query: query, headers: request.headers, json: json, text: text,
            at: clock.now(),
            encryption: (object["encryption"] as? [String: Any]).flatMap { keys in
                (keys["p256dh"] as? String).flatMap { p256dh in
                    (keys["auth"] as? String).map { SimulatedPrivatePush.Keys(p256dh: p256dh, auth: $0) }
                }
            },
            languages: object["languages"] as? [String])
        let authToken = request.headers["authToken"] ?? ""

        let outcome = state.withLock { state -> Result<PNHTTPResponse, Failure> in
            state.requests.append(received)
            state.violations.append(contentsOf: problems.map { "\(request.method) \(path): \($0)" })
            if let route = match?.route, var queue = state.scripted[route], !queue.isEmpty {
                let failure = queue.removeFirst()
                state.scripted[route] = queue
                return .failure(failure)
            }
            if let valid = state.validAuthTokens, !valid.contains(authToken) {
                return .failure(.status(401, code: "AUTH_ERR_AUTH_TOKEN_NOT_FOUND"))
            }
            guard problems.isEmpty, let match else { return .failure(.status(400, code: "ERR_BAD_REQUEST")) }
            switch match.route {
            case .registerToken:
                let registration = Registration(
                    token: json["fcmToken"] ?? "", platform: json["platform"] ?? "", providerId: json["providerId"] ?? "",
                    languages: received.languages)
                for key in state.registrations.keys { state.registrations[key]?.removeAll { $0.token == registration.token } }
                state.registrations[authToken, default: []].append(registration)
                return .success(
                    Self.ok(["pushToken": registration.token, "platform": registration.platform, "providerId": registration.providerId]))
            case .unregisterTokens:
                state.registrations[authToken] = nil
                return .success(Self.ok([:]))
            case .getPreferences, .muteConversation, .unmuteConversation, .groupLevel, .setQuietHours, .clearQuietHours:
                var preferences = state.preferences[authToken] ?? Preferences()
                Self.apply(match, json: json, includeCalls: includeCalls, path: path, to: &preferences)
                state.preferences[authToken] = preferences
                return .success(Self.ok(any: preferences.wire(at: clock.now())))
            case .markRead:
                let receiver = json["receiver"] ?? ""
                let conversation = json["receiverType"] == "group" ? "group_\(receiver)" : receiver
                return .success(Self.ok(any: ["conversationId": conversation, "devices": 0]))
            case .pushOpened:
                let at = NSNumber(value: Int64(clock.now().timeIntervalSince1970 * 1000))
                return .success(Self.ok(any: ["pushId": match.parameter ?? "", "openedAt": at]))
            case .changes:
                return .success(Self.ok(any: Self.changesPage(state, authToken: authToken, query: query)))
            case .activity:
                // As the service answers, without the uid (the simulated service knows none).
                let now = clock.now()
                let expiresAt = now.addingTimeInterval(Double((object["seconds"] as? NSNumber)?.intValue ?? 60))
                let conversationId = object["conversationId"] as? String
                state.activities[authToken] = conversationId.map { Activity(conversationId: $0, expiresAt: expiresAt) }
                return .success(
                    Self.ok(any: [
                        "conversationId": conversationId.map { $0 as Any } ?? NSNull(),
                        "expiresAt": NSNumber(value: Int64(expiresAt.timeIntervalSince1970 * 1000)),
                    ]))
            default:
                return .success(Self.ok([:]))
            }
        }
        switch outcome {
        case .success(let response): return response
        case .failure(.network): throw PNTransportError("The network connection was lost.")
        case .failure(.status(let status, let code)):
            let body = try JSONSerialization.data(withJSONObject: [
                "error": ["code": code, "message": "Simulated \(code).", "details": [:]]
            ])
            return PNHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    /// A page of the changes feed (wire contract §2): without `since`, no changes and the cursor
    /// of now; else the changes after it, at most `limit`, `hasMore` while more wait, and
    /// `truncated` when retention purged some after it.
    private static func changesPage(_ state: State, authToken: String, query: [String: String]) -> [String: Any] {
        let feed = state.feeds[authToken] ?? Feed()
        guard let since = query["since"] else {
            return ["changes": [Any](), "cursor": cursor(state.lastChange), "hasMore": false]
        }
        let after = Int(since.dropFirst()) ?? 0
        let limit = Int(query["limit"] ?? "") ?? 200
        let waiting = feed.entries.filter { $0.number > after }
        let page = waiting.prefix(limit)
        var answer: [String: Any] = [
            "changes": page.map(\.change.wire), "cursor": cursor(page.last?.number ?? max(after, feed.purgedThrough)),
            "hasMore": waiting.count > page.count,
        ]
        if after < feed.purgedThrough { answer["truncated"] = true }
        return answer
    }

    private static func apply(
        _ match: WireContract.Match, json: [String: String], includeCalls: Bool, path: String, to preferences: inout Preferences
    ) {
        switch match.route {
        case .muteConversation:
            let type = json["receiverType"] ?? "", receiver = json["receiver"] ?? ""
            preferences.mutes.removeAll { $0.receiverType == type && $0.receiver == receiver }
            preferences.mutes.append(.init(receiverType: type, receiver: receiver, until: json["until"].flatMap { Int64($0) }))
        case .unmuteConversation:
            let type = path.split(separator: "/").dropLast().last.map(String.init) ?? ""
            preferences.mutes.removeAll { $0.receiverType == type && $0.receiver == match.parameter }
        case .groupLevel:
            if let guid = match.parameter { preferences.groups[guid] = json["level"] }
        case .setQuietHours:
            preferences.quietHours = (json["start"] ?? "", json["end"] ?? "", includeCalls)
        case .clearQuietHours:
            preferences.quietHours = nil
        default:
            break
        }
    }

    private static func ok(any data: Any) -> PNHTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: ["data": data])) ?? Data()
        return PNHTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }

    private static func ok(_ data: [String: String]) -> PNHTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: ["data": data])) ?? Data()
        return PNHTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }
}
