#if DEBUG
// Debug builds only: the private payload's parts are internal to PushService (`@testable`);
// the release build runs the whole path through the service in `PrivatePushDeliveryTests`.
import Delivery
import Foundation
import PushCore
import PushCrypto
@testable import PushService
import PushStore
import PushTestSupport
import ServerSupport
import Testing

/// Private push (issue 28, `docs/design/private-push.md`): what a private app's jobs carry in
/// clear, their keyed ids, the size fitter, and the sealing at send time, from the service's
/// payload code through `PrivatePushSender` to the device's decryption. The store does not keep
/// an app's privacy yet (another branch), so the jobs are built here with the service's own
/// factory and a private `AppRecord`.
@Suite struct PrivatePushTests {
    /// What a private push must never carry in clear (payload or headers).
    static let secrets = [
        "alice-7", "Alice Liddell", "Meet me at the garden gate", "https://cdn.example/alice.png", "bob-9",
        "alice-7_user_bob-9", "session-42", "custom-secret", "msg-1042", "Spring sale", "50% off everything",
        "campaign-secret", "Bob Builder", "https://cdn.example/bob.png",
    ]

    static var party: [String: Any] { ["uid": "alice-7", "name": "Alice Liddell", "avatar": "https://cdn.example/alice.png"] }
    static var receiver: [String: Any] { ["uid": "bob-9", "name": "Bob Builder", "avatar": "https://cdn.example/bob.png"] }

    static func chat(
        category: String = "message", text: String = "Meet me at the garden gate", extra: [String: Any] = [:]
    )
        -> [String: Any]
    {
        var message: [String: Any] = [
            "id": "msg-1042", "category": category, "sender": party, "receiver": receiver, "text": text,
            "custom": ["note": "custom-secret"], "message": ["id": "msg-1042", "text": text], "sentAt": 1_700_000_000_000,
        ]
        if category == "reaction" { message["reaction"] = "👍" }
        message.merge(extra) { _, new in new }
        return ["type": "chat", "recipients": [["uid": "bob-9", "badge": 3]], "message": message]
    }

    static func call(_ action: String) -> [String: Any] {
        [
            "type": "call", "recipients": [["uid": "bob-9"]],
            "call": [
                "sessionId": "session-42", "callAction": action, "callType": "video", "sender": party, "receiver": receiver,
                "sentAt": 1_700_000_000_000,
            ]
                as [String: Any],
        ]
    }

    static var campaign: [String: Any] {
        [
            "type": "campaign", "recipients": [["uid": "bob-9"]],
            "campaign": [
                "id": "cmp-7", "campaignId": "spring", "title": "Spring sale", "body": "50% off everything",
                "url": "https://cdn.example/alice.png", "custom": ["k": "campaign-secret"], "sentAt": 1_700_000_000_000,
            ] as [String: Any],
        ]
    }

    // MARK: Clear part and sealing

    @Test func privatePushesCarryNothingPersonalInClearAndEachEncOpensToTheStandardPayload() async throws {
        let fixture = try PrivateFixture()
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice)
        let fcm = try fixture.token("b0b0fcm", platform: .fcm)
        let voip = try fixture.token("b0b0voip", platform: .apnsVoIP)
        var bodies: [(String, [String: Any], [PushTokenRecord])] = [
            ("chat", Self.chat(), [phone, fcm]), ("reaction", Self.chat(category: "reaction"), [phone, fcm]),
            ("action", Self.chat(category: "action"), [phone]), ("campaign", Self.campaign, [phone, fcm]),
            ("call initiated (VoIP)", Self.call("initiated"), [voip]), ("call cancelled (VoIP)", Self.call("cancelled"), [voip]),
            ("call initiated (alert)", Self.call("initiated"), [phone]), ("call cancelled (alert)", Self.call("cancelled"), [fcm]),
        ]
        bodies.append(("group chat", Self.chat(extra: ["receiverType": "group"]), [phone]))
        for (name, body, tokens) in bodies {
            let jobs = try fixture.jobs(body, tokens: tokens)
            #expect(jobs.count == tokens.count, "\(name)")
            let standard = try fixture.jobs(body, tokens: tokens, standard: true)
            for (job, plain) in zip(jobs, standard) {
                let privatePush = try #require(job.privatePush, "\(name)")
                let sent = try #require(await fixture.seal(job), "\(name)")
                try Self.expectNothingPersonal(sent, name)
                let opened = try fixture.device(job.token).open(sent.payload)
                // The plaintext is the standard payload with its keyed ids (and the job's pushId).
                #expect(try Self.canonical(opened) == Self.canonical(try TestPushDevice.object(privatePush.plaintext)), "\(name)")
                var expected = try TestPushDevice.object(plain.payload)
                expected["pushId"] = job.id
                if var aps = expected["aps"] as? [String: Any], let thread = aps["thread-id"] as? String {
                    aps["thread-id"] = fixture.mode.recipient("bob-9").thread(conversationId: thread)
                    expected["aps"] = aps
                }
                #expect(try Self.canonical(opened) == Self.canonical(expected), "\(name)")
                try Self.expectClearShape(sent, name, placeholder: name.hasPrefix("call") ? "Incoming call" : "Custom placeholder")
            }
        }
    }

    @Test func editDeletionAndReadPushesAreBackgroundPushesSealedWithKeyedIds() async throws {
        let fixture = try PrivateFixture()
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice)
        let fcm = try fixture.token("b0b0fcm", platform: .fcm)
        let sent = try fixture.jobs(Self.chat(), tokens: [phone, fcm])
        let keyed = fixture.mode.recipient("bob-9")
        let messageId = keyed.collapseId(.message, id: "msg-1042")
        for action in [ChatEvent.Action.edited, .deleted] {
            var body = Self.chat(text: "Meet me at the garden gate, edited")
            var message = body["message"] as? [String: Any] ?? [:]
            message["action"] = action.rawValue
            body["message"] = message
            let request = try SendRequest.parse(JSONObject(body, path: ""), now: Date())
            guard case .chat(let event) = request.event else { Issue.record("not a chat"); return }
            let plan = try MessageActions(service: fixture.context, appId: "app1", requestId: "r1", privateMode: fixture.mode).plan(
                action, of: event, recipients: request.recipients, tokens: ["bob-9": [phone, fcm]],
                found: sent.map { MessageJob(job: $0, pending: false) })
            #expect(plan.jobs.count == 2)
            // The changes feed names the notification by the keyed id, as the device knows it.
            #expect(plan.changes.map(\.notificationId) == [Optional(messageId)])
            for job in plan.jobs {
                #expect(job.headers.collapseId == keyed.collapseId(action == .edited ? .edit : .deletion, id: "msg-1042"))
                let out = try #require(await fixture.seal(job))
                try Self.expectNothingPersonal(out, action.rawValue)
                #expect(
                    try Self.canonical(TestPushDevice.object(out.payload).filter { $0.key != "enc" })
                        == Self.canonical(
                            ["aps": ["content-available": 1], "pushId": job.id]))
                let opened = try fixture.device(job.token).open(out.payload)
                #expect(opened["notificationId"] as? String == messageId)
                #expect(opened["action"] as? String == action.rawValue)
                #expect(opened["conversationId"] as? String == "alice-7_user_bob-9")
            }
        }
        // A pending private job is not rewritten (its text is sealed): the edit follows it.
        var edit = Self.chat(text: "edited")
        var message = edit["message"] as? [String: Any] ?? [:]
        message["action"] = "edited"
        edit["message"] = message
        let request = try SendRequest.parse(JSONObject(edit, path: ""), now: Date())
        guard case .chat(let event) = request.event else { return }
        let plan = try MessageActions(service: fixture.context, appId: "app1", requestId: "r2", privateMode: fixture.mode).plan(
            .edited, of: event, recipients: request.recipients, tokens: ["bob-9": [phone]],
            found: [MessageJob(job: sent[0], pending: true)])
        #expect(plan.rewrite.isEmpty && plan.jobs.count == 1)

        // A read: background, the plaintext with the conversation's keyed thread id.
        let reads = ReadSync.jobs(
            service: fixture.context, requestId: "read-1", uid: "bob-9", conversationId: "alice-7_user_bob-9", unreadCount: 2,
            tokens: [phone, fcm], privateMode: fixture.mode)
        for job in reads {
            let out = try #require(await fixture.seal(job))
            try Self.expectNothingPersonal(out, "read")
            let opened = try fixture.device(job.token).open(out.payload)
            #expect(opened["type"] as? String == "read")
            #expect(opened["threadId"] as? String == keyed.thread(conversationId: "alice-7_user_bob-9"))
            #expect(opened["threadId"] as? String == sent[0].payloadObject?.aps?["thread-id"] as? String)
        }
    }

    /// The badge the service counts (issue 30): a private read push keeps its `aps.badge` in clear
    /// (it names no one, and iOS applies it even when it does not wake the app); `unreadCount`
    /// is sealed.
    @Test func aReadPushKeepsTheServiceBadgeInClearAndItsCountSealed() async throws {
        let fixture = try PrivateFixture()
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice)
        let reads = ReadSync.jobs(
            service: fixture.context, requestId: "read-1", uid: "bob-9", conversationId: "alice-7_user_bob-9", unreadCount: 4,
            badge: 4, tokens: [phone], privateMode: fixture.mode)
        let job = try #require(reads.first)
        let clear = try #require(job.payloadObject)
        #expect(clear.aps as? [String: Int] == ["content-available": 1, "badge": 4])
        #expect(Set(clear.object.keys) == ["aps", "pushId"])
        let out = try #require(await fixture.seal(job))
        try Self.expectNothingPersonal(out, "read")
        let opened = try fixture.device(job.token).open(out.payload)
        #expect(opened["unreadCount"] as? String == "4")
        #expect((opened["aps"] as? [String: Any])?["badge"] as? Int == 4)
    }

    @Test func keyedIdsAreStablePerRecipientDifferBetweenUsersAndFromTheUnkeyedHashAndFitAPNs() throws {
        let fixture = try PrivateFixture()
        let bob = fixture.mode.recipient("bob-9")
        let carol = fixture.mode.recipient("carol-3")
        #expect(bob.collapseId(.message, id: "1042") == fixture.mode.recipient("bob-9").collapseId(.message, id: "1042"))
        #expect(bob.collapseId(.message, id: "1042") != carol.collapseId(.message, id: "1042"))
        #expect(bob.collapseId(.message, id: "1042") != CollapseId.of(.message, id: "1042"))
        #expect(bob.collapseId(.message, id: "1042") != CollapseIdTests.message1042)
        #expect(bob.thread(conversationId: "a_user_b") != carol.thread(conversationId: "a_user_b"))
        // Another service (another sealing key) keys differently: the ids are not a public hash.
        let other = try PrivateFixture()
        #expect(other.mode.recipient("bob-9").collapseId(.message, id: "1042") != bob.collapseId(.message, id: "1042"))
        // The same uid in another app is another key.
        let elsewhere = PushIdKeys(secrets: fixture.context.secrets).recipient(appId: "app2", uid: "bob-9")
        #expect(elsewhere.collapseId(.message, id: "1042") != bob.collapseId(.message, id: "1042"))
        let long = String(repeating: "x", count: 128)
        for id in [
            bob.collapseId(.message, id: long), bob.collapseId(.deletion, id: long), bob.call(sessionId: long),
            bob.thread(conversationId: long),
        ] {
            #expect(id.utf8.count <= APNsLimitsProxy.maxCollapseIdBytes, "\(id)")
        }
        #expect(bob.collapseId(.message, id: long).utf8.count == 47 && bob.call(sessionId: long).hasPrefix("call-"))
        #expect(bob.call(sessionId: long).utf8.count == 48 && bob.thread(conversationId: long).hasPrefix("thr-"))
    }

    // MARK: Size

    @Test func aLongMessageWithALargeCustomIsFittedUnderTheLimitAtACharacterBoundary() async throws {
        let fixture = try PrivateFixture()
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice)
        // Emoji (several scalars each) and a letter with a combining accent, repeated past the budget.
        let unit = "👩‍👩‍👧 e\u{301}x "
        let text = String(String(repeating: unit, count: 3_900 / unit.count + 1).prefix(3_900))
        let custom = ["blob": String(repeating: "c", count: 3_000)]
        let body = Self.chat(text: text, extra: ["custom": custom])
        let jobs = try fixture.jobs(body, tokens: [phone])
        let job = try #require(jobs.first)
        let privatePush = try #require(job.privatePush)
        #expect(privatePush.trimmed == ["message", "custom", "body"])
        let sent = try #require(await fixture.seal(job))
        #expect(sent.payload.count <= 4_096)
        #expect(sent.payload.count == PrivateFit.sealedSize(clearBytes: job.payload.count, plaintextBytes: privatePush.plaintext.count))
        // The fit uses the budget, to within a character (up to 18 bytes, twice: `body` and `aps.alert.body`).
        #expect(sent.payload.count > 4_096 - 60, "the fit uses the budget: \(sent.payload.count)")
        let opened = try fixture.device(job.token).open(sent.payload)
        let shortened = try #require(opened["body"] as? String)
        #expect(shortened.hasSuffix("…") && shortened.count > 100)
        // Whole characters only: the shortened text is a prefix of the original's characters.
        let kept = shortened.dropLast()
        #expect(Array(text).starts(with: Array(kept)))
        #expect(((opened["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == shortened)
        #expect(opened["custom"] == nil && opened["message"] == nil)

        // Only what is needed goes: a large custom alone is removed, the text kept.
        let customOnly = try #require(try fixture.jobs(Self.chat(extra: ["custom": custom]), tokens: [phone]).first?.privatePush)
        #expect(customOnly.trimmed == ["message", "custom"] || customOnly.trimmed == ["custom"])
        #expect(try TestPushDevice.object(customOnly.plaintext)["body"] as? String == "Meet me at the garden gate")
        let small = try #require(try fixture.jobs(Self.chat(), tokens: [phone]).first?.privatePush)
        #expect(small.trimmed.isEmpty)
    }

    @Test func theVoIPBudgetIs5120AndStandardAppsAreUnchanged() async throws {
        let fixture = try PrivateFixture()
        let voip = try fixture.token("b0b0voip", platform: .apnsVoIP)
        var body = Self.call("initiated")
        var call = body["call"] as? [String: Any] ?? [:]
        call["sender"] = ["uid": "alice-7", "name": String(repeating: "A", count: 250), "avatar": String(repeating: "h", count: 1_200)]
        call["receiver"] = ["uid": "bob-9", "name": "Bob", "avatar": String(repeating: "r", count: 1_200)]
        body["call"] = call
        // Sealed, this call is over the alert limit and within VoIP's.
        let job = try #require(try fixture.jobs(body, tokens: [voip]).first)
        let sent = try #require(await fixture.seal(job))
        #expect(sent.payload.count > 4_096 && sent.payload.count <= 5_120)
        #expect(PayloadSize.check([job], event: try SendRequest.parse(JSONObject(body, path: ""), now: Date()).event, badge: nil) == nil)

        // Standard: byte for byte as before (no private push, the unkeyed ids).
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice)
        let standard = try #require(try fixture.jobs(Self.chat(), tokens: [phone], standard: true).first)
        #expect(standard.privatePush == nil)
        #expect(standard.headers.collapseId == CollapseId.of(.message, id: "msg-1042"))
        let object = try TestPushDevice.object(standard.payload)
        #expect(object["senderName"] as? String == "Alice Liddell")
        #expect((object["aps"] as? [String: Any])?["thread-id"] as? String == "alice-7_user_bob-9")
    }

    @Test func aPrivatePushThatCannotFitEvenWithoutItsTextIsRefusedAtTheDoorNamingTheField() throws {
        let fixture = try PrivateFixture()
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice)
        var body = Self.chat()
        var message = body["message"] as? [String: Any] ?? [:]
        message["sender"] = ["uid": "alice-7", "name": "Alice", "avatar": String(repeating: "h", count: 2_048)]
        message["receiver"] = ["uid": "bob-9", "name": "Bob", "avatar": String(repeating: "r", count: 1_000)]
        body["message"] = message
        let request = try SendRequest.parse(JSONObject(body, path: ""), now: Date())
        let jobs = try fixture.jobs(body, tokens: [phone])
        let refusal = try #require(PayloadSize.check(jobs, event: request.event, badge: 3))
        let text = String(decoding: refusal.response.body, as: UTF8.self)
        #expect(refusal.response.status == 400)
        #expect(text.contains("message.sender.avatar"), "\(text)")
        // The same send in a standard app fits (the sealed budget is smaller).
        #expect(PayloadSize.check(try fixture.jobs(body, tokens: [phone], standard: true), event: request.event, badge: 3) == nil)
    }

    // MARK: Contract fixtures

    /// `Contract/payloads/private/`: each fixture is the push as APNs receives it; `pushId`, `enc`
    /// and the keyed `thread-id` are examples (replaced by the job's before comparing), and each
    /// `enc` opens to the standard fixture of the same name with the keyed ids.
    @Test func thePrivatePayloadFixturesAreWhatTheServiceSends() async throws {
        #expect(Set(Fixtures.names(in: "payloads/private")) == ["chat-user", "call-initiated", "call-initiated-keyless", "read"])
        let fixture = try PrivateFixture(placeholder: nil)
        let body = { (name: String) in SendTests.cases.first { $0.0 == name }?.1 ?? [:] }
        let phone = try fixture.token("b0b0phone", platform: .apnsDevice, uid: "bob")
        let voip = try fixture.token("b0b0voip", platform: .apnsVoIP, uid: "bob")
        let keyless = try fixture.token("b0b0voip2", platform: .apnsVoIP, keyed: false, uid: "bob")
        let read = ReadSync.jobs(
            service: fixture.context, requestId: "read-1", uid: "bob", conversationId: "alice_user_bob", unreadCount: 2, tokens: [phone],
            privateMode: fixture.mode)
        let cases: [(String, PushJob, String?)] = [
            ("chat-user", try #require(try fixture.jobs(body("chat-user"), tokens: [phone]).first), "chat-user"),
            ("call-initiated", try #require(try fixture.jobs(body("call-initiated"), tokens: [voip]).first), "call-initiated"),
            ("call-initiated-keyless", try #require(try fixture.jobs(body("call-initiated"), tokens: [keyless]).first), nil),
            ("read", try #require(read.first), "read"),
        ]
        let keyed = fixture.mode.recipient("bob")
        for (name, job, standardName) in cases {
            let sent = try #require(await fixture.seal(job), "\(name)")
            let payload = try TestPushDevice.object(sent.payload)
            var expected = try Fixtures.load("payloads/private", name)
            expected["pushId"] = job.id
            if expected["enc"] != nil { expected["enc"] = payload["enc"] }
            if var aps = expected["aps"] as? [String: Any], aps["thread-id"] != nil {
                aps["thread-id"] = keyed.thread(conversationId: "alice_user_bob")
                expected["aps"] = aps
            }
            #expect(NSDictionary(dictionary: payload).isEqual(to: expected), "\(name) differs from Contract/payloads/private")
            guard let standardName else { continue }
            var standard = try Fixtures.load("payloads", standardName)
            standard["pushId"] = job.id
            if var aps = standard["aps"] as? [String: Any], aps["thread-id"] != nil {
                aps["thread-id"] = keyed.thread(conversationId: "alice_user_bob")
                standard["aps"] = aps
            }
            if name == "read" { standard["threadId"] = keyed.thread(conversationId: "alice_user_bob") }
            let opened = try fixture.device(job.token).open(sent.payload)
            #expect(NSDictionary(dictionary: opened).isEqual(to: standard), "\(name): enc does not open to payloads/\(standardName)")
        }
    }

    // MARK: Helpers

    static func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONCodec.encode(object, sortedKeys: true), as: UTF8.self)
    }

    static func expectNothingPersonal(_ job: PushJob, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var clear = try TestPushDevice.object(job.payload)
        clear["enc"] = nil
        let text = try canonical(clear) + " " + (job.headers.collapseId ?? "")
        for secret in secrets {
            #expect(!text.contains(secret), "\(name): \(secret) in clear: \(text)", sourceLocation: sourceLocation)
        }
        #expect(Set(clear.keys).isSubset(of: ["aps", "pushId"]), "\(name): \(clear.keys.sorted())", sourceLocation: sourceLocation)
    }

    static func expectClearShape(_ job: PushJob, _ name: String, placeholder: String) throws {
        let object = try TestPushDevice.object(job.payload)
        let aps = try #require(object["aps"] as? [String: Any])
        #expect(object["enc"] is String, "\(name)")
        switch job.headers.pushType {
        case .voip:
            #expect(aps.isEmpty, "\(name)")
        case .background:
            #expect(aps.count == 1 && aps["content-available"] as? Int == 1, "\(name)")
        default:
            #expect((aps["alert"] as? [String: Any])?["loc-key"] as? String == placeholder, "\(name): \(aps)")
            #expect(aps["mutable-content"] as? Int == 1, "\(name)")
            let allowed: Set<String> = [
                "alert", "mutable-content", "sound", "badge", "category", "thread-id", "interruption-level", "relevance-score",
            ]
            #expect(Set(aps.keys).isSubset(of: allowed), "\(name): \(aps.keys.sorted())")
        }
    }
}

/// APNs' limit on collapse ids, as the service checks it.
enum APNsLimitsProxy {
    static let maxCollapseIdBytes = 64
}

extension PushJob {
    /// The payload as an object, with its `aps`.
    var payloadObject: (object: [String: Any], aps: [String: Any]?)? {
        guard let object = try? TestPushDevice.object(payload) else { return nil }
        return (object, object["aps"] as? [String: Any])
    }
}

/// A private app (`app1`, placeholder "Custom placeholder") of a service with a fresh sealing key,
/// its recipient `bob-9`'s tokens with device keys, and the sender that seals.
final class PrivateFixture {
    let context: ServiceContext
    let mode: PrivateMode
    let keys = MemoryEncryptionKeyStore()
    let recorder = RecordingSender()
    let log = RecordingLogHandler()
    let sender: PrivatePushSender
    private var devices: [String: TestPushDevice] = [:]

    init(placeholder: String? = "Custom placeholder") throws {
        let path = NSTemporaryDirectory() + "private-push-\(UUID().uuidString).sqlite"
        let store = try SQLiteStore(path: path, synchronousFull: false)
        let secrets = try SecretBox(key: Crypto.randomBytes(32))
        context = ServiceContext(
            configuration: ServiceConfiguration(), store: store, secrets: secrets, adminKey: "adm_test", logger: .silent)
        let app = AppRecord(id: "app1", name: "App", createdAt: Date(), privacy: .private, privatePlaceholder: placeholder)
        mode = try #require(PrivateMode(app: app, ids: context.pushIds))
        let opened = PushServiceApp.privateKeys(keyStore: keys, secrets: secrets)
        sender = PrivatePushSender(wrapping: recorder, keys: opened.store, open: opened.open, logger: log.logger())
    }

    /// A token of `bob-9`, registered with a device key unless `keyed` is false.
    func token(_ token: String, platform: TokenPlatform, keyed: Bool = true, uid: String = "bob-9") throws -> PushTokenRecord {
        if keyed {
            let device = try TestPushDevice()
            devices[token] = device
            keys.set(try device.stored(appId: "app1", token: token, secrets: context.secrets), appId: "app1", token: token)
        }
        return PushTokenRecord(
            appId: "app1", uid: uid, token: token, platform: platform, providerId: platform == .fcm ? "fcm" : "apns", timezone: nil,
            authTokenHash: Data(), authTokenHint: "", createdAt: Date(), updatedAt: Date())
    }

    func device(_ token: String) throws -> TestPushDevice {
        try #require(devices[token])
    }

    /// The jobs of a send body for `tokens`, built by the service's factory in private mode (or standard).
    func jobs(_ body: [String: Any], tokens: [PushTokenRecord], standard: Bool = false) throws -> [PushJob] {
        // As the API parses a body: through the service's JSON codec.
        let parsed = try JSONCodec.parse(try JSONCodec.encode(body)) as? [String: Any] ?? [:]
        let request = try SendRequest.parse(JSONObject(parsed, path: ""), now: Date())
        let factory = JobFactory(service: context, requestId: "r1", ttlSeconds: 3_600, privateMode: standard ? nil : mode)
        return request.recipients.flatMap { factory.jobs(for: request.event, uid: $0.uid, badge: $0.badge, tokens: tokens) }
    }

    /// The job as the sealing sender forwards it (nil when it did not).
    func seal(_ job: PushJob) async -> PushJob? {
        let before = recorder.jobs.count
        _ = await sender.send(job)
        let after = recorder.jobs
        return after.count > before ? after.last : nil
    }
}
#endif
