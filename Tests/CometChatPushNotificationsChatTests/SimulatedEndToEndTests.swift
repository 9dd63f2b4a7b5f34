import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// Issue 18 end to end: the real push service (`push-server`, SQLite, its real delivery engine
/// and APNs client) sends to a mock APNs (`Server/Mocks/mock_push.py`, HTTP/2 over TLS, checking
/// the provider JWT), and every push the mock received is handed to the simulated iPhone or iPad
/// whose token it was addressed to: an alert push to its Notification Service Extension and
/// Notification Center, a background push to `didReceiveRemoteNotification`, a VoIP push to
/// PushKit, each under iOS's rules (``SimulatedDevice``). Both devices belong to one user and run
/// the SDK with the real `URLSession` transport against the service.
///
/// `Scripts/e2e.sh` starts the mock and the service and sets `PUSH_SIM_E2E_*`; without them the
/// suite is skipped (and the script fails when it is), with them unusable every test fails.
enum SimulatedE2E {
    /// What the script hands over.
    struct Environment: Sendable {
        /// The service's base URL.
        var baseURL: String
        /// The service's admin key.
        var adminKey: String
        /// The mock's request log (one JSON line per APNs request).
        var apnsLog: URL
        /// The `.p8` key the mock checks provider tokens against (a throwaway test key).
        var apnsKey: String
        /// The key id and team id the mock expects.
        var keyId: String
        var teamId: String
        /// For a test that runs a service of its own: the `push-server` binary, the mock's URL,
        /// the CA that signed the mock's certificate, and the mock's `--script` file (per-token
        /// answers, re-read when it changes). Empty when the script did not set them.
        var serverBinary = ""
        var apnsURL = ""
        var caFile = ""
        var apnsScript = ""
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let isConfigured = ProcessInfo.processInfo.environment["PUSH_SIM_E2E_URL"] != nil

    static let environment: Result<Environment, Failure> = {
        let env = ProcessInfo.processInfo.environment
        let names = ["PUSH_SIM_E2E_URL", "PUSH_SIM_E2E_ADMIN_KEY", "PUSH_SIM_E2E_APNS_LOG", "PUSH_SIM_E2E_APNS_KEY_FILE"]
        let missing = names.filter { (env[$0] ?? "").isEmpty }
        guard missing.isEmpty else { return .failure(Failure(description: "\(missing.joined(separator: ", ")) not set")) }
        guard let key = try? String(contentsOfFile: env["PUSH_SIM_E2E_APNS_KEY_FILE"] ?? "", encoding: .utf8) else {
            return .failure(Failure(description: "PUSH_SIM_E2E_APNS_KEY_FILE cannot be read"))
        }
        return .success(
            Environment(
                baseURL: env["PUSH_SIM_E2E_URL"] ?? "", adminKey: env["PUSH_SIM_E2E_ADMIN_KEY"] ?? "",
                apnsLog: URL(fileURLWithPath: env["PUSH_SIM_E2E_APNS_LOG"] ?? ""), apnsKey: key,
                keyId: env["PUSH_SIM_E2E_KEY_ID"] ?? "TESTKEY123", teamId: env["PUSH_SIM_E2E_TEAM_ID"] ?? "TESTTEAM12",
                serverBinary: env["PUSH_SIM_E2E_SERVER_BINARY"] ?? "", apnsURL: env["PUSH_SIM_E2E_APNS_URL"] ?? "",
                caFile: env["PUSH_SIM_E2E_CA_FILE"] ?? "", apnsScript: env["PUSH_SIM_E2E_APNS_SCRIPT"] ?? ""))
    }()

    /// How long a push may take from the send call to the mock (real time).
    static let deliveryTimeout: TimeInterval = 30

    /// Waits until `condition` holds, checking every 20 ms, for at most `timeout` seconds.
    static func wait(
        _ what: String, timeout: TimeInterval = deliveryTimeout, _ condition: () async throws -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try await !condition() {
            guard Date() < deadline else { throw Failure(description: "timed out after \(Int(timeout)) s waiting for \(what)") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}

/// One request the mock APNs received (a line of its `--log`).
struct MockAPNsRequest: @unchecked Sendable {
    // @unchecked: `payload` holds JSON values only and is never mutated.
    /// Its line in the log (from 0): a resend has the `apns-id` of the first send, not its line.
    var line: Int
    var token: String
    var topic: String
    var pushType: String
    var priority: Int
    var apnsId: String
    /// The `apns-collapse-id`, which iOS makes the notification's identifier.
    var collapseId: String?
    var status: Int
    var payload: [String: Any]

    var pushId: String? { payload["pushId"] as? String }
    var aps: [String: Any] { payload["aps"] as? [String: Any] ?? [:] }

    /// Every APNs request in the log so far.
    static func all(in log: URL) -> [MockAPNsRequest] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").enumerated().compactMap { index, line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                entry["kind"] as? String == "apns", let token = entry["token"] as? String,
                let body = (entry["body"] as? String).flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            else { return nil }
            return MockAPNsRequest(
                line: index, token: token, topic: entry["topic"] as? String ?? "", pushType: entry["push_type"] as? String ?? "",
                priority: Int(entry["priority"] as? String ?? "") ?? 10, apnsId: entry["apns_id"] as? String ?? "",
                collapseId: entry["collapse_id"] as? String, status: entry["status"] as? Int ?? 0, payload: body)
        }
    }
}

/// The service's admin API, called as an app's back end calls it.
struct AdminAPI: Sendable {
    let environment: SimulatedE2E.Environment
    let appId: String

    /// The answer's `data` (or the whole answer); throws unless the status is 2xx.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, app: Bool = true) async throws -> Any {
        let url = try #require(URL(string: environment.baseURL + path))
        var headers = ["apikey": environment.adminKey, "Accept": "application/json", "Content-Type": "application/json"]
        if app { headers["appid"] = appId }
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let response = try await PNPlatform.live.transport.send(PNHTTPRequest(method: method, url: url, headers: headers, body: data))
        let json = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])
        guard (200..<300).contains(response.status) else {
            throw SimulatedE2E.Failure(
                description: "\(method) \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        if let object = json as? [String: Any], let inner = object["data"] { return inner }
        return json ?? [:]
    }

    func object(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        try #require(try await call(method, path, body) as? [String: Any])
    }
}

/// A simulated device of the user, with the app launched and logged in.
struct UserDevice: @unchecked Sendable {
    // @unchecked: immutable references to thread-safe objects.
    let name: String
    let device: SimulatedDevice
    /// The app as first launched (``Household/relaunch(_:)`` launches another: see ``sdk``).
    let app: SimulatedApp
    let nse: SimulatedNotificationServiceExtension
    /// The APNs token and, with calls enabled, the VoIP token, as the service stores them (hex).
    let apnsToken: String
    let voipToken: String?
    /// The auth token this device logged in with.
    let authToken: String
    let delegate: RecordingDelegate

    /// The SDK of the running app (of the last launch).
    var sdk: CometChatPushNotifications { device.app?.sdk ?? app.sdk }
    var shown: [PNNotification] { device.notificationCenter.shownNotifications }
    var shownBodies: [String] { shown.map { ($0.userInfo["body"] as? String) ?? "?" } }

    /// Runs one SDK call and waits for its completion.
    func result<T: Sendable>(_ start: (CometChatPushNotifications, @escaping @Sendable (PNResult<T>) -> Void) -> Void) async -> PNResult<T>
    {
        let sdk = self.sdk
        return await withCheckedContinuation { continuation in start(sdk) { continuation.resume(returning: $0) } }
    }
}

/// One user with two devices (a phone with calls, an iPad), two other users who message them,
/// and an app of their own on the service whose APNs provider points at the mock.
final class Household: @unchecked Sendable {
    // @unchecked: `handed` is behind a lock; the rest is immutable.
    static let bundleId = "com.example.e2e"
    static let appGroup = "group.com.example.e2e"
    static let providerId = "mock-apns"

    let environment: SimulatedE2E.Environment
    let admin: AdminAPI
    let alice: String
    let bob: String
    let carol: String
    let phone: UserDevice
    let tablet: UserDevice
    let config: PNConfiguration
    /// The log lines of the mock's requests handed to a device.
    private let handed = PNLocked<Set<Int>>([])
    private let alerts = PNLocked<[String: SimulatedDelivery]>([:])
    private let extensionRuns = PNLocked<[String: SimulatedExtensionRun]>([:])
    /// The devices whose app the user force-quit (``forceQuit(_:)``) and did not launch again.
    private let forceQuit = PNLocked<Set<String>>([])

    /// What iOS did with the alert push the mock received as `apnsId`.
    func delivery(_ apnsId: String) -> SimulatedDelivery? { alerts.current[apnsId] }
    /// What the Notification Service Extension made of the alert push the mock received as `apnsId`.
    func extensionRun(_ apnsId: String) -> SimulatedExtensionRun? { extensionRuns.current[apnsId] }

    var devices: [UserDevice] { [phone, tablet] }

    private init(
        environment: SimulatedE2E.Environment, admin: AdminAPI, config: PNConfiguration, uids: [String], phone: UserDevice,
        tablet: UserDevice
    ) {
        self.environment = environment
        self.admin = admin
        self.config = config
        (alice, bob, carol) = (uids[0], uids[1], uids[2])
        self.phone = phone
        self.tablet = tablet
    }

    /// A fresh app with the mock's APNs provider, the users, and both devices registered
    /// through the SDK (each with its own auth token, as two logins are), on the script's
    /// service or on `environment`'s; `privacy` is the app's setting (`standard` or `private`);
    /// `languages` each device's preferred languages by name (`phone`, `iPad`; else English);
    /// `phoneCalls: false` leaves the phone without a VoIP token (calls then ring as alerts).
    static func make(
        _ environment: SimulatedE2E.Environment? = nil, privacy: String = "standard", languages: [String: [String]] = [:],
        phoneCalls: Bool = true
    ) async throws -> Household {
        let environment = try environment ?? SimulatedE2E.environment.get()
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let appId = "sim-\(suffix)"
        let admin = AdminAPI(environment: environment, appId: appId)
        try await admin.call("POST", "/apps", ["appId": appId, "name": "Simulated e2e", "privacy": privacy], app: false)
        try await admin.call(
            "POST", "/notifications/push/v1/providers/apns",
            [
                "providerId": providerId, "keyId": environment.keyId, "teamId": environment.teamId, "bundleId": bundleId,
                "p8Key": environment.apnsKey, "production": false,
            ])
        let uids = ["alice-\(suffix)", "bob-\(suffix)", "carol-\(suffix)"]
        var aliceTokens: [String] = []
        for uid in uids {
            let user = try await admin.object(
                "POST", "/users", ["uid": uid, "name": uid.prefix(1).uppercased() + uid.dropFirst().prefix(4), "withAuthToken": true])
            if uid == uids[0] { aliceTokens.append(try #require(user["authToken"] as? String)) }
        }
        let second = try await admin.object("POST", "/users/\(uids[0])/auth_tokens")
        aliceTokens.append(try #require(second["authToken"] as? String))

        let config = PNConfiguration(
            appId: appId, region: "us", providerId: providerId, extensionGroupID: appGroup, clientHost: environment.baseURL,
            callKit: CallKitBranding(name: "Acme"))
        let phone = await launch(
            "phone", uid: uids[0], authToken: aliceTokens[0], config: config, calls: phoneCalls, languages: languages["phone"])
        let tablet = await launch(
            "iPad", uid: uids[0], authToken: aliceTokens[1], config: config, calls: false, languages: languages["iPad"])
        let household = Household(environment: environment, admin: admin, config: config, uids: uids, phone: phone, tablet: tablet)
        // The service holds what the SDK registered: both APNs tokens and the phone's VoIP token.
        let listed = try #require(
            try await admin.object("GET", "/notifications/push/v1/tokens?uid=\(uids[0])")["pushTokens"] as? [[String: Any]])
        let expected = Set([phone.apnsToken, tablet.apnsToken] + [phone.voipToken].compactMap { $0 })
        #expect(Set(listed.compactMap { $0["pushToken"] as? String }) == expected)
        // Both apps go to the background, as when the user is away.
        for device in household.devices { device.app.sendToBackground() }
        return household
    }

    private static func launch(
        _ name: String, uid: String, authToken: String, config: PNConfiguration, calls: Bool, languages: [String]? = nil
    ) async -> UserDevice {
        let apns = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let voip = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        // A clock that never advances on its own: a ringing call stays ringing until the test ends it.
        let device = SimulatedDevice(
            apns: .issue(apns), permission: .authorized,
            backgroundModes: calls ? ["remote-notification", "voip"] : ["remote-notification"],
            clock: SimulatedClock(start: Date(), autoAdvanceLimit: 0), transport: PNPlatform.live.transport)
        if calls { device.calls.pushKit.issueToken(voip) }
        if let languages { device.preferredLanguages = languages }
        let delegate: RecordingDelegate = calls ? RecordingCallsDelegate() : RecordingChatDelegate()
        let app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config)
        }
        device.logInToChatSDK(uid: uid, authToken: authToken)
        #expect(await device.settle(timeout: 20), "\(name): the SDK did not settle after login")
        let nse = device.installNotificationServiceExtension(appGroupID: appGroup)
        return UserDevice(
            name: name, device: device, app: app, nse: nse, apnsToken: PNHex.string(apns), voipToken: calls ? PNHex.string(voip) : nil,
            authToken: authToken, delegate: delegate)
    }

    /// The user opens the app on `device` from the background: it becomes active, and the SDK
    /// catches up on the changes feed.
    func bringToForeground(_ device: UserDevice) async {
        device.device.app?.bringToForeground()
        #expect(await device.device.settle(timeout: 20), "\(device.name) did not settle")
    }

    /// The user swipes the app away on `device`: iOS delivers it no background push until the
    /// user launches it again (``relaunch(_:)``).
    func forceQuit(_ device: UserDevice) {
        device.device.forceQuit()
        forceQuit.withLock { _ = $0.insert(device.name) }
    }

    /// The user opens the app on `device` again: it launches as at first (the app delegate logs
    /// in after `didFinishLaunching`), and the SDK catches up on the changes feed.
    func relaunch(_ device: UserDevice) async {
        let config = self.config
        let delegate = device.delegate
        device.device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config)
        }
        device.device.logInToChatSDK(uid: alice, authToken: device.authToken)
        forceQuit.withLock { _ = $0.remove(device.name) }
        #expect(await device.device.settle(timeout: 20), "\(device.name): the SDK did not settle after launch")
    }

    // MARK: Sending, as the app's back end does

    struct Sent {
        var requestId: String
        var jobs: Int
        var rules: [String]
        var messageId: String
    }

    /// A chat message from `sender` to alice (or to group `group`, of which alice is a member);
    /// with `action` (`edited`, `deleted`) the edit or deletion of the message `id`.
    func sendChat(
        from sender: String, text: String?, badge: Int, group: String? = nil, mentions: [String]? = nil, action: String? = nil,
        id: String? = nil
    ) async throws -> Sent {
        let id = id ?? "m-" + UUID().uuidString.prefix(8).lowercased()
        var message: [String: Any] = [
            "id": id, "sender": ["uid": sender, "name": sender.prefix(1).uppercased() + sender.dropFirst().prefix(3)],
            "receiverType": group == nil ? "user" : "group",
            "receiver": group.map { ["guid": $0, "name": "Hikers"] } ?? ["uid": alice, "name": "Alice"],
        ]
        if let mentions { message["mentions"] = mentions }
        if let text { message["text"] = text }
        if let action { message["action"] = action }
        let answer = try await admin.object(
            "POST", "/notifications/push/v1/send",
            ["type": "chat", "recipients": [["uid": alice, "badge": badge]], "message": message])
        return try Self.sent(answer, messageId: id)
    }

    /// A call from `sender` to alice.
    func sendCall(from sender: String, sessionId: String) async throws -> Sent {
        let answer = try await admin.object(
            "POST", "/notifications/push/v1/send",
            [
                "type": "call", "recipients": [["uid": alice]],
                "call": [
                    "sessionId": sessionId, "callAction": "initiated", "callType": "audio", "receiverType": "user",
                    "sender": ["uid": sender, "name": "Bob"], "receiver": ["uid": alice, "name": "Alice"],
                ],
            ])
        return try Self.sent(answer, messageId: sessionId)
    }

    /// Any send, as the back end makes it; `messageId` names it in the test's messages.
    func send(_ body: [String: Any], messageId: String) async throws -> Sent {
        try Self.sent(try await admin.object("POST", "/notifications/push/v1/send", body), messageId: messageId)
    }

    private static func sent(_ answer: [String: Any], messageId: String) throws -> Sent {
        let recipients = answer["recipients"] as? [[String: Any]] ?? []
        return Sent(
            requestId: try #require(answer["requestId"] as? String), jobs: answer["jobs"] as? Int ?? -1,
            rules: recipients.map { $0["rule"] as? String ?? "none" }, messageId: messageId)
    }

    func trace(_ sent: Sent) async throws -> [String: Any] {
        try await admin.object("GET", "/notifications/push/v1/send/\(sent.requestId)/trace")
    }

    /// The delivery log's entries of a send.
    func log(_ sent: Sent) async throws -> [[String: Any]] {
        try #require(try await admin.call("GET", "/notifications/push/v1/send/\(sent.requestId)/log") as? [[String: Any]])
    }

    // MARK: APNs → devices

    /// Every APNs request the mock received for this household's tokens.
    var apnsRequests: [MockAPNsRequest] {
        let tokens = Set(devices.flatMap { [$0.apnsToken, $0.voipToken].compactMap { $0 } })
        return MockAPNsRequest.all(in: environment.apnsLog).filter { tokens.contains($0.token) }
    }

    /// Waits until the mock received every push of `sent` that the service did not skip, then
    /// hands over everything the mock received for this household and no device got yet, in the
    /// order it arrived (so a push the service should not have sent reaches a device too), and
    /// returns the pushes of `sent`.
    @discardableResult
    func deliver(_ sent: Sent) async throws -> [MockAPNsRequest] {
        let received = try await received(sent)
        for request in apnsRequests { try await hand(request) }
        return received
    }

    /// The jobs of `sent` (each job's id is its push's `pushId`); those the service skipped
    /// only with `skipped`.
    func jobs(_ sent: Sent, skipped: Bool = false) async throws -> [[String: Any]] {
        let jobs = try #require(try await admin.call("GET", "/notifications/push/v1/send/\(sent.requestId)/jobs") as? [[String: Any]])
        return skipped ? jobs : jobs.filter { $0["skipped"] as? Bool != true }
    }

    /// Waits until the mock received every push of `sent` that the service did not skip, and
    /// returns them (every request, resends included), handing none.
    func received(_ sent: Sent) async throws -> [MockAPNsRequest] {
        let ids = Set(try await jobs(sent).compactMap { $0["id"] as? String })
        #expect(ids.count == sent.jobs)
        var received: [MockAPNsRequest] = []
        try await SimulatedE2E.wait("the \(ids.count) push(es) of request \(sent.requestId) at the mock APNs") {
            received = apnsRequests.filter { $0.pushId.map(ids.contains) ?? false }
            return Set(received.compactMap(\.pushId)) == ids
        }
        return received
    }

    /// Waits until the service recorded every push of `sent` as delivered (APNs answered 200):
    /// an edit or deletion of a message whose pushes are still pending rewrites or skips them
    /// instead of sending a push of its own.
    func waitDelivered(_ sent: Sent, timeout: TimeInterval = SimulatedE2E.deliveryTimeout) async throws {
        try await SimulatedE2E.wait("every push of request \(sent.requestId) delivered", timeout: timeout) {
            let states = try await log(sent).filter { $0["state"] as? String != "skipped" }.map { $0["state"] as? String ?? "?" }
            return states.count == sent.jobs && states.allSatisfy { $0 == "delivered" }
        }
    }

    /// Waits for one push `matches` picks (a read push, which no send request names) and hands it over.
    func deliverOne(_ what: String, _ matches: @escaping (MockAPNsRequest) -> Bool) async throws -> MockAPNsRequest {
        var found: MockAPNsRequest?
        try await SimulatedE2E.wait(what) {
            found = apnsRequests.first { matches($0) && !handed.current.contains($0.line) }
            return found != nil
        }
        let request = try #require(found)
        try await hand(request)
        return request
    }

    /// APNs hands one push to the device its token belongs to, as iOS would: an alert with
    /// `mutable-content` first to the Notification Service Extension, then to Notification
    /// Center; a background push to the app (if iOS lets it through: never to an app the user
    /// force-quit); a VoIP push to PushKit. Each request the mock logged is handed once: a
    /// resend (a second request with the same `apns-id`) too, as APNs would deliver it.
    func hand(_ request: MockAPNsRequest) async throws {
        let fresh = handed.withLock { $0.insert(request.line).inserted }
        guard fresh else { return }
        let owner = try #require(devices.first { $0.apnsToken == request.token || $0.voipToken == request.token })
        let voip = request.token == owner.voipToken
        #expect(request.status == 200, "the mock refused a push: \(request.status)")
        #expect(request.topic == Self.bundleId + (voip ? ".voip" : ""), "a push for another app reached \(owner.name)")
        switch request.pushType {
        case "alert":
            #expect(!voip)
            if (request.aps["mutable-content"] as? Int) == 1 {
                let run = await owner.nse.receive(request.payload)
                #expect(run.ran && !run.killed && !run.expired)
                extensionRuns.withLock { $0[request.apnsId] = run }
            }
            // iOS makes the collapse id the notification's identifier; without one the
            // notification gets a new identifier (never the apns-id, which a resend repeats).
            let delivery = owner.device.deliver(request.payload, collapseId: request.collapseId)
            alerts.withLock { $0[request.apnsId] = delivery }
        case "background":
            #expect(!voip)
            let push = owner.device.deliverBackground(request.payload, priority: request.priority)
            if forceQuit.current.contains(owner.name) {
                #expect(push.outcome == .notDelivered("the user force-quit the app"), "\(owner.name): \(push.outcome)")
            } else {
                #expect(push.outcome == .delivered, "\(owner.name): \(push.outcome)")
            }
        case "voip":
            #expect(voip)
            owner.device.calls.pushKit.deliver(request.payload)
            await owner.device.calls.callKit.drain()
        default:
            Issue.record("unexpected apns-push-type \(request.pushType)")
        }
        #expect(await owner.device.settle(timeout: 20), "\(owner.name) did not settle")
    }

    /// No device broke an iOS rule.
    func expectRulesHeld(sourceLocation: SourceLocation = #_sourceLocation) {
        for device in devices {
            #expect(device.device.kills == [], "\(device.name)", sourceLocation: sourceLocation)
            #expect(device.device.violations == [], "\(device.name)", sourceLocation: sourceLocation)
            #expect(device.nse.violations == [], "\(device.name)", sourceLocation: sourceLocation)
            // Rule 33: no message shown twice.
            #expect(
                device.device.notificationCenter.duplicates.isEmpty, "\(device.name): \(device.device.notificationCenter.duplicates)",
                sourceLocation: sourceLocation)
        }
        #expect(phone.device.calls.kills == [], sourceLocation: sourceLocation)
    }
}

/// The `step` entries of a trace device, by name.
private func steps(_ device: [String: Any]) -> [String: [String: Any]] {
    var steps: [String: [String: Any]] = [:]
    for step in device["steps"] as? [[String: Any]] ?? [] {
        if let name = step["step"] as? String { steps[name] = step }
    }
    return steps
}

private func stepNames(_ device: [String: Any]) -> [String] {
    (device["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
}

/// The devices (or skipped entries) of the trace's only recipient.
func recipient(_ trace: [String: Any]) throws -> [String: Any] {
    let recipients = try #require(trace["recipients"] as? [[String: Any]])
    #expect(recipients.count == 1)
    return try #require(recipients.first)
}

@Suite(
    "Simulated end to end: the real service, a mock APNs, two devices of one user",
    .enabled(if: SimulatedE2E.isConfigured, "needs Scripts/e2e.sh"), .serialized)
struct SimulatedEndToEndTests {
    @Test("A muted conversation gives no notification on either device, and the log says it was the mute")
    func mute() async throws {
        let house = try await Household.make()
        let bob = house.bob
        let muted = await house.phone.result { sdk, done in sdk.setConversationMuted(userId: bob, until: nil, completion: done) }
        #expect(try muted.get().isMuted(userId: bob))

        let fromBob = try await house.sendChat(from: bob, text: "Are you there?", badge: 1)
        #expect(fromBob.jobs == 0)
        #expect(fromBob.rules == ["muted"])
        let log = try await house.log(fromBob)
        #expect(log.count == 2)
        #expect(log.allSatisfy { $0["state"] as? String == "skipped" && $0["rule"] as? String == "muted" })
        let skipped = try recipient(try await house.trace(fromBob))
        #expect((skipped["devices"] as? [Any])?.isEmpty == true)
        #expect((skipped["skipped"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["muted", "muted"])

        // Carol is not muted: her message reaches both devices; Bob's never reached APNs.
        let fromCarol = try await house.sendChat(from: house.carol, text: "Lunch at one?", badge: 2)
        #expect(fromCarol.jobs == 2)
        let carolPushes = try await house.deliver(fromCarol)
        for device in house.devices {
            #expect(device.shownBodies == ["Lunch at one?"], "\(device.name)")
            #expect(device.device.badge == 2, "\(device.name)")
        }
        // Outside quiet hours a message sounds and lights the screen.
        for push in carolPushes {
            #expect(house.delivery(push.apnsId).map { $0.playedSound && $0.litScreen } == true)
        }
        #expect(!house.apnsRequests.contains { $0.payload["tag"] as? String == fromBob.messageId })

        // Unmuted, Bob is heard again: the mute, nothing else, kept him out.
        let unmuted = await house.tablet.result { sdk, done in sdk.unmuteConversation(userId: bob, completion: done) }
        #expect(try unmuted.get().isMuted(userId: bob) == false)
        let again = try await house.sendChat(from: bob, text: "Now?", badge: 3)
        #expect(again.rules == ["none"])
        try await house.deliver(again)
        for device in house.devices { #expect(device.shownBodies == ["Lunch at one?", "Now?"], "\(device.name)") }
        house.expectRulesHeld()
    }

    @Test("In quiet hours a message arrives passive and silent on both devices while a call still rings; with calls too it does not ring")
    func quietHours() async throws {
        let house = try await Household.make()
        // A window around now in the zone the devices registered with (Europe/Berlin).
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let start = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(-3600))
        let end = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(3600))
        let set = await house.phone.result { sdk, done in sdk.setQuietHours(start: start, end: end, includeCalls: false, completion: done) }
        #expect(try set.get().quietHours?.includeCalls == false)
        #expect(try set.get().timeZone == "Europe/Berlin")

        let message = try await house.sendChat(from: house.bob, text: "Sleep well", badge: 1)
        #expect(message.rules == ["quiet-hours"])
        let pushes = try await house.deliver(message)
        #expect(pushes.count == 2)
        for push in pushes {
            #expect(push.aps["interruption-level"] as? String == "passive")
            #expect(push.aps["sound"] == nil)
            #expect(push.priority == 10 && push.pushType == "alert")
            // In Notification Center, silently, the screen dark.
            let delivery = try #require(house.delivery(push.apnsId))
            #expect(delivery.wasShown && !delivery.playedSound && !delivery.litScreen)
        }
        for device in house.devices {
            let shown = try #require(device.shown.first)
            #expect(device.shownBodies == ["Sleep well"], "\(device.name)")
            #expect((shown.userInfo["aps"] as? [String: Any])?["interruption-level"] as? String == "passive")
        }
        let quiet = try recipient(try await house.trace(message))
        for device in quiet["devices"] as? [[String: Any]] ?? [] {
            #expect(steps(device)["preferences"]?["detail"] as? String == "quiet-hours")
        }

        // A call still rings: a VoIP push to the phone (the iPad has no VoIP token), which
        // reports it to CallKit.
        let call = try await house.sendCall(from: house.bob, sessionId: "call-\(UUID().uuidString.prefix(8))")
        #expect(call.rules == ["none"])
        let ring = try await house.deliver(call)
        #expect(ring.map(\.pushType) == ["voip"])
        #expect(ring.first?.token == house.phone.voipToken)
        #expect(ring.first?.aps["interruption-level"] == nil)
        #expect(house.phone.device.calls.callKit.ringingCalls.count == 1)

        // With calls included, a call neither rings nor sounds: a passive alert on each device.
        let withCalls = await house.tablet.result { sdk, done in
            sdk.setQuietHours(start: start, end: end, includeCalls: true, completion: done)
        }
        #expect(try withCalls.get().quietHours?.includeCalls == true)
        let quietCall = try await house.sendCall(from: house.bob, sessionId: "call-\(UUID().uuidString.prefix(8))")
        #expect(quietCall.rules == ["quiet-hours-calls"])
        let alerts = try await house.deliver(quietCall)
        #expect(Set(alerts.map(\.token)) == [house.phone.apnsToken, house.tablet.apnsToken])
        #expect(
            alerts.allSatisfy { $0.pushType == "alert" && $0.aps["interruption-level"] as? String == "passive" && $0.aps["sound"] == nil })
        #expect(alerts.allSatisfy { house.delivery($0.apnsId).map { $0.wasShown && !$0.playedSound && !$0.litScreen } == true })
        #expect(house.phone.device.calls.callKit.reportCount == 1)
        #expect(house.phone.device.calls.pushKit.deliveries.count == 1)
        house.expectRulesHeld()
    }

    @Test("Mentions only: of two group messages only the one that mentions the user notifies")
    func mentionsOnly() async throws {
        let house = try await Household.make()
        let group = "hikers-\(UUID().uuidString.prefix(6).lowercased())"
        let level = await house.phone.result { sdk, done in sdk.setGroupNotificationLevel(.mentionsOnly, groupId: group, completion: done) }
        #expect(try level.get().level(groupId: group) == .mentionsOnly)

        let plain = try await house.sendChat(
            from: house.bob, text: "Who is in for Sunday?", badge: 1, group: group, mentions: [house.carol])
        #expect(plain.rules == ["group-mentions-only"])
        #expect(plain.jobs == 0)
        let mention = try await house.sendChat(
            from: house.carol, text: "@alice bring the map", badge: 2, group: group, mentions: [house.alice])
        #expect(mention.rules == ["none"])
        try await house.deliver(mention)
        for device in house.devices {
            #expect(device.shownBodies.count == 1, "\(device.name)")
            #expect(device.shownBodies.first?.hasSuffix("@alice bring the map") == true, "\(device.name)")
            #expect(device.shown.first?.threadIdentifier == "group_\(group)")
        }
        #expect(!house.apnsRequests.contains { $0.payload["tag"] as? String == plain.messageId })
        let skipped = try recipient(try await house.trace(plain))
        #expect(
            (skipped["skipped"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["group-mentions-only", "group-mentions-only"])
        house.expectRulesHeld()
    }

    @Test("Read on the phone: the iPad, its app killed, gets a background push that sets its badge and clears that conversation")
    func readOnOneDeviceClearsTheOther() async throws {
        let house = try await Household.make()
        for (sender, text, badge) in [(house.bob, "One", 1), (house.bob, "Two", 2), (house.carol, "Hi from Carol", 3)] {
            try await house.deliver(try await house.sendChat(from: sender, text: text, badge: badge))
        }
        for device in house.devices {
            #expect(device.shownBodies == ["One", "Two", "Hi from Carol"], "\(device.name)")
            #expect(device.device.badge == 3, "\(device.name)")
        }
        // The iPad's app is no longer running (iOS ended it; not force-quit).
        house.tablet.device.terminate()

        let bob = house.bob
        let read = await house.phone.result { sdk, done in sdk.markConversationRead(userId: bob, unreadCount: 1, completion: done) }
        #expect((try? read.get()) != nil)
        #expect(await house.phone.device.settle())
        // Here at once: Bob's notifications gone, the badge is the count.
        #expect(house.phone.shownBodies == ["Hi from Carol"])
        #expect(house.phone.device.badge == 1)

        // There: the service's read push, to the iPad only.
        let conversation = [house.alice, bob].sorted().joined(separator: "_user_")
        let push = try await house.deliverOne("the read push to the iPad") { $0.payload["type"] as? String == "read" }
        #expect(push.token == house.tablet.apnsToken)
        #expect(push.pushType == "background" && push.priority == 5)
        #expect(push.aps["content-available"] as? Int == 1 && push.aps["alert"] == nil && push.aps["sound"] == nil)
        #expect(push.payload["conversationId"] as? String == conversation)
        #expect(push.payload["unreadCount"] as? String == "1")
        #expect(house.tablet.device.launchCount == 2, "iOS launched the app in the background for the push")
        #expect(house.tablet.device.badge == 1)
        #expect(house.tablet.shownBodies == ["Hi from Carol"])
        #expect(!house.apnsRequests.contains { $0.payload["type"] as? String == "read" && $0.token != house.tablet.apnsToken })
        house.expectRulesHeld()
    }

    @Test(
        "Quiet when already reading (issue 31): while the phone shows Bob's conversation the iPad's push is held; the phone's read skips it"
    )
    func holdWhileActive() async throws {
        let house = try await Household.make()
        let set = try await house.admin.object("PUT", "/apps/\(house.admin.appId)", ["holdWhileActiveSeconds": 300])
        #expect(set["holdWhileActiveSeconds"] as? Int == 300)
        // The phone shows the conversation with Bob: its SDK reports it to the service.
        await house.bringToForeground(house.phone)
        let bob = house.bob
        house.phone.sdk.setActiveConversation(userId: bob)
        #expect(await house.phone.device.settle(timeout: 20))

        // Bob writes: the phone's push goes (its app hides it: the conversation is on screen);
        // the iPad's waits, held while the phone reads.
        let sent = try await house.sendChat(from: bob, text: "Still there?", badge: 1)
        #expect(sent.jobs == 2)
        func isThisMessage(_ request: MockAPNsRequest, to device: UserDevice) -> Bool {
            request.token == device.apnsToken && request.payload["tag"] as? String == sent.messageId
        }
        var log: [[String: Any]] = []
        try await SimulatedE2E.wait("the phone's push at the mock APNs and the phone's job delivered") {
            log = try await house.log(sent)
            let phoneDelivered = log.contains { $0["token"] as? String == house.phone.apnsToken && $0["state"] as? String == "delivered" }
            return phoneDelivered && house.apnsRequests.contains { isThisMessage($0, to: house.phone) }
        }
        let held = try #require(log.first { $0["token"] as? String == house.tablet.apnsToken })
        #expect(held["state"] as? String == "pending")
        #expect(held["rule"] as? String == "held-while-active")
        #expect(log.first { $0["token"] as? String == house.phone.apnsToken }?["rule"] is NSNull)
        let phonePush = try #require(house.apnsRequests.first { isThisMessage($0, to: house.phone) })
        try await house.hand(phonePush)
        #expect(house.delivery(phonePush.apnsId)?.foregroundOptions == [])

        // The phone reads the conversation: the iPad's held push is skipped and never sent; the
        // iPad gets the read push instead.
        let read = await house.phone.result { sdk, done in sdk.markConversationRead(userId: bob, unreadCount: 0, completion: done) }
        #expect((try? read.get()) != nil)
        try await SimulatedE2E.wait("the iPad's held push skipped by the read") {
            let entry = try await house.log(sent).first { $0["token"] as? String == house.tablet.apnsToken }
            return entry?["state"] as? String == "skipped"
        }
        let skipped = try #require(try await house.log(sent).first { $0["token"] as? String == house.tablet.apnsToken })
        #expect(skipped["rule"] as? String == "read-elsewhere")
        let readPush = try await house.deliverOne("the read push to the iPad") { $0.payload["type"] as? String == "read" }
        #expect(readPush.token == house.tablet.apnsToken)
        #expect(!house.apnsRequests.contains { isThisMessage($0, to: house.tablet) })
        #expect(house.tablet.shown.isEmpty)
        let trace = try recipient(try await house.trace(sent))
        #expect((trace["skipped"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["read-elsewhere"])

        // The phone leaves the conversation (the SDK clears it on the service): Bob's next
        // message reaches both devices at once.
        house.phone.sdk.clearActiveConversation()
        #expect(await house.phone.device.settle(timeout: 20))
        let next = try await house.sendChat(from: bob, text: "Call me", badge: 1)
        #expect(next.rules == ["none"])
        let pushes = try await house.deliver(next)
        #expect(Set(pushes.map(\.token)) == [house.phone.apnsToken, house.tablet.apnsToken])
        #expect(try await house.log(next).allSatisfy { $0["rule"] is NSNull })
        #expect(house.tablet.shownBodies == ["Call me"])
        house.expectRulesHeld()
    }

    @Test(
        "Urgency and the service's badge (issue 30): a reaction arrives passive, the badge counts across senders and a read on the phone drops it on the iPad"
    )
    func urgencyAndCountedBadge() async throws {
        let house = try await Household.make()
        let set = try await house.admin.object("PUT", "/apps/\(house.admin.appId)", ["badge": "auto"])
        #expect(set["badge"] as? String == "auto")
        // Messages without a badge number: the service counts Bob's two and Carol's one.
        func message(_ id: String, from sender: String, text: String, extra: [String: Any] = [:]) -> [String: Any] {
            var message: [String: Any] = [
                "id": id, "sender": ["uid": sender, "name": sender.prefix(1).uppercased() + sender.dropFirst().prefix(3)],
                "receiverType": "user", "receiver": ["uid": house.alice, "name": "Alice"], "text": text,
            ]
            message.merge(extra) { $1 }
            return ["type": "chat", "recipients": [["uid": house.alice]], "message": message]
        }
        var badges: [Int] = []
        for (id, sender, text) in [("b1", house.bob, "One"), ("b2", house.bob, "Two"), ("c1", house.carol, "Hi from Carol")] {
            let pushes = try await house.deliver(try await house.send(message(id, from: sender, text: text), messageId: id))
            #expect(pushes.count == 2)
            #expect(pushes.allSatisfy { $0.aps["interruption-level"] as? String == "active" }, "a direct message is active")
            for device in house.devices { badges.append(device.device.badge) }
        }
        #expect(badges == [1, 1, 2, 2, 3, 3])

        // A reaction arrives passive: in Notification Center, the screen dark, the badge unchanged.
        let reaction = try await house.send(
            message("r1", from: house.carol, text: "Hi from Carol", extra: ["category": "reaction", "reaction": "👍"]), messageId: "r1")
        let reacted = try await house.deliver(reaction)
        #expect(reacted.count == 2)
        for push in reacted {
            #expect(push.aps["interruption-level"] as? String == "passive")
            #expect(push.aps["badge"] as? Int == 3)
            let delivery = try #require(house.delivery(push.apnsId))
            #expect(delivery.wasShown && !delivery.litScreen)
        }
        let level = try recipient(try await house.trace(reaction))
        for device in level["devices"] as? [[String: Any]] ?? [] {
            #expect(device["interruptionLevel"] as? String == "passive")
            #expect(device["levelReason"] as? String == "reaction")
        }

        // Alice reads Bob's conversation on the phone, giving no count: the service's total comes
        // back in the answer (the phone's badge) and in the iPad's read push (its badge).
        let bob = house.bob
        let read = await house.phone.result { sdk, done in sdk.markConversationRead(userId: bob, unreadCount: nil, completion: done) }
        #expect((try? read.get()) != nil)
        let push = try await house.deliverOne("the read push to the iPad") { $0.payload["type"] as? String == "read" }
        #expect(push.token == house.tablet.apnsToken)
        #expect(push.aps["badge"] as? Int == 1)
        #expect(house.tablet.device.badge == 1)
        #expect(house.phone.device.badge == 1)
        let counts = try await house.admin.object("GET", "/users/\(house.alice)/badge")
        #expect(counts["total"] as? Int == 1)
        house.expectRulesHeld()
    }

    @Test(
        "Languages (issue 30): a German and an English device get the same call, group message and reaction in their languages; loc-keys show the app's own strings"
    )
    func languages() async throws {
        let house = try await Household.make(languages: ["phone": ["de-CH", "de", "en"], "iPad": ["en-GB", "en"]], phoneCalls: false)
        // The service kept each token's languages as the SDK registered them.
        let listed = try #require(
            try await house.admin.object("GET", "/notifications/push/v1/tokens?uid=\(house.alice)")["pushTokens"] as? [[String: Any]])
        let languages = Dictionary(
            listed.map { ($0["pushToken"] as? String ?? "", $0["languages"] as? [String] ?? []) }, uniquingKeysWith: { first, _ in first })
        #expect(languages[house.phone.apnsToken] == ["de-CH", "de", "en"])
        #expect(languages[house.tablet.apnsToken] == ["en-GB", "en"])
        func shown(_ device: UserDevice) -> [String?] { device.device.notificationCenter.shown.map(\.body) }

        // A call to a user without a VoIP token rings as an alert on each device, in its language.
        let call = try await house.sendCall(from: house.bob, sessionId: "call-\(UUID().uuidString.prefix(8))")
        let alerts = try await house.deliver(call)
        #expect(alerts.count == 2 && alerts.allSatisfy { $0.pushType == "alert" })
        #expect(shown(house.phone) == ["Audioanruf"])
        #expect(shown(house.tablet) == ["AUDIO CALL"])

        // A group message and a reaction: the prefix and the line in each language, the text as sent.
        let group = "hikers-\(UUID().uuidString.prefix(6).lowercased())"
        try await house.deliver(try await house.sendChat(from: house.carol, text: "Gipfel um 10?", badge: 1, group: group))
        #expect(shown(house.phone).last == "Caro: Gipfel um 10?")
        #expect(shown(house.tablet).last == "Caro: Gipfel um 10?")
        let reaction: [String: Any] = [
            "type": "chat", "recipients": [["uid": house.alice]],
            "message": [
                "id": "r-\(UUID().uuidString.prefix(6))", "category": "reaction", "reaction": "👍", "text": "Gipfel um 10?",
                "sender": ["uid": house.bob, "name": "Bob"], "receiverType": "user", "receiver": ["uid": house.alice, "name": "Alice"],
            ] as [String: Any],
        ]
        try await house.deliver(try await house.send(reaction, messageId: "reaction"))
        #expect(shown(house.phone).last == "Bob hat mit 👍 reagiert: Gipfel um 10?")
        #expect(shown(house.tablet).last == "Bob reacted 👍 to: Gipfel um 10?")

        // The app localizes on the device: with locKeys iOS shows the app's own string (the iPad's
        // app has it), or the key itself where the app lacks it (the phone's: the README's warning).
        let set = try await house.admin.object("PUT", "/apps/\(house.admin.appId)", ["locKeys": true])
        #expect(set["locKeys"] as? Bool == true)
        house.tablet.device.notificationCenter.localizedStrings = ["PN_AUDIO_CALL": "%1$@ is calling"]
        try await house.deliver(try await house.sendCall(from: house.bob, sessionId: "call-\(UUID().uuidString.prefix(8))"))
        #expect(shown(house.tablet).last == "Bob is calling")
        #expect(shown(house.phone).last == "PN_AUDIO_CALL")
        house.expectRulesHeld()
    }

    @Test("The trace of a push delivered by the extension, opened and replied to shows every step with its time")
    func completeTrace() async throws {
        let house = try await Household.make()
        let sent = try await house.sendChat(from: house.bob, text: "Dinner at 8?", badge: 1)
        let pushes = try await house.deliver(sent)
        let onPhone = try #require(pushes.first { $0.token == house.phone.apnsToken })
        let notification = try #require(house.phone.shown.first)
        #expect(notification.identifier == onPhone.collapseId)
        #expect(onPhone.collapseId?.hasPrefix("msg-") == true)

        // The user answers from the phone's notification and opens the conversation from the
        // iPad's (a response removes a notification, so one copy cannot be both: the push,
        // sent to both devices, gathers every step across them)
        try house.phone.device.reply(to: notification, text: "Yes!")
        #expect(await house.phone.device.settle())
        let onTablet = try #require(house.tablet.shown.first)
        house.tablet.device.tap(onTablet)
        #expect(await house.tablet.device.settle())

        // The service records a push sent once APNs has answered, a moment after the mock logged
        // it: wait for both.
        var trace: [String: Any] = [:]
        try await SimulatedE2E.wait("the trace to show both pushes sent") {
            trace = try await house.trace(sent)
            let devices = (trace["recipients"] as? [[String: Any]])?.first?["devices"] as? [[String: Any]] ?? []
            return devices.count == 2 && devices.allSatisfy { stepNames($0).contains("sent") }
        }
        let alice = try recipient(trace)
        #expect(alice["uid"] as? String == house.alice)
        let devices = try #require(alice["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        let phone = try #require(devices.first { $0["pushId"] as? String == onPhone.pushId })
        #expect(stepNames(phone) == ["accepted", "preferences", "sent", "delivered", "replied"])
        let step = steps(phone)
        #expect(step["preferences"]?["detail"] as? String == "none")
        let sentDetail = step["sent"]?["detail"] as? [String: Any]
        #expect(sentDetail?["apns-id"] as? String == onPhone.apnsId)
        #expect(sentDetail?["status"] as? Int == 200)
        #expect(step["delivered"]?["detail"] as? String == "extension")
        let replyId = try #require(step["replied"]?["detail"] as? String)
        #expect(!replyId.isEmpty)
        #expect(phone["stoppedAt"] == nil)
        let times = ["accepted", "sent", "delivered", "replied"].map { (step[$0]?["at"] as? NSNumber)?.int64Value ?? -1 }
        #expect(times.allSatisfy { $0 > 0 }, "every step has a time: \(times)")
        #expect(times == times.sorted(), "\(times)")
        // The iPad's copy was delivered by its extension and opened.
        let tablet = try #require(devices.first { $0["pushId"] as? String != onPhone.pushId })
        #expect(stepNames(tablet) == ["accepted", "preferences", "sent", "delivered", "opened"])
        let tabletStep = steps(tablet)
        #expect(tabletStep["delivered"]?["detail"] as? String == "extension")
        let tabletTimes = ["accepted", "sent", "delivered", "opened"].map { (tabletStep[$0]?["at"] as? NSNumber)?.int64Value ?? -1 }
        #expect(tabletTimes.allSatisfy { $0 > 0 } && tabletTimes == tabletTimes.sorted(), "\(tabletTimes)")
        #expect(tablet["stoppedAt"] == nil)

        // The funnel counts the push once per stage.
        let metricsURL = try #require(URL(string: house.environment.baseURL + "/metrics"))
        let funnel = [("sent", 2), ("delivered", 2), ("opened", 1)].map {
            "push_funnel_total{app=\"\(house.admin.appId)\",stage=\"\($0.0)\"} \($0.1)\n"
        }
        var metrics = ""
        try? await SimulatedE2E.wait("the funnel in /metrics", timeout: 10) {
            metrics = String(
                decoding: try await PNPlatform.live.transport.send(PNHTTPRequest(method: "GET", url: metricsURL)).body, as: UTF8.self)
            return funnel.allSatisfy(metrics.contains)
        }
        for line in funnel { #expect(metrics.contains(line), "\(line)") }
        house.expectRulesHeld()
    }
}
