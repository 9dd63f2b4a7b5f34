import Delivery
import FCM
import Foundation
import PushCore
import PushCrypto
import PushTestSupport
import ServerSupport
import Testing

/// `PrivatePushSender` (issue 28): a private job is sealed at send time with the token's key as
/// stored then; without a key it goes out as its placeholder (logged once per token); a key
/// that cannot be used fails the job; nothing in clear ever reaches the inner sender. And the
/// FCM message of a private push: `enc` once, `data` only `pushId`, no `notification`.
@Suite struct PrivatePushSenderTests {
    static let clear = Data(#"{"pushId":"p1","aps":{"alert":{"loc-key":"New message"},"mutable-content":1,"sound":"default"}}"#.utf8)
    static let plaintext = Data(
        #"{"pushId":"p1","type":"chat","title":"Alice","body":"See you at 5","sender":"alice","aps":{"alert":{"title":"Alice","body":"See you at 5"}}}"#
            .utf8)
    static let voipClear = Data(#"{"pushId":"v1","aps":{}}"#.utf8)
    static let voipPlaintext = Data(
        #"{"pushId":"v1","type":"call","callAction":"initiated","sessionId":"s-42","sender":"alice","senderName":"Alice","callType":"video","aps":{}}"#
            .utf8)

    /// A sealing sender over a recording one, with an in-memory key store and the service's way of
    /// opening keys (the auth secret unsealed with `secrets`).
    struct Rig {
        let secrets: SecretBox
        let keys = MemoryEncryptionKeyStore()
        let recorder = RecordingSender()
        let log = RecordingLogHandler()
        let sender: PrivatePushSender

        init() throws {
            let secrets = try SecretBox(key: Crypto.randomBytes(32))
            self.secrets = secrets
            sender = PrivatePushSender(
                wrapping: recorder, keys: keys,
                open: { appId, token, stored in
                    let auth = try secrets.open(stored.sealedAuth, context: StoredEncryptionKeys.sealingContext(appId: appId, token: token))
                    return try WebPushKeys(p256dh: [UInt8](stored.p256dh), auth: [UInt8](auth))
                }, logger: log.logger())
        }

        func register(_ token: String, appId: String = "a1") throws -> TestPushDevice {
            let device = try TestPushDevice()
            keys.set(try device.stored(appId: appId, token: token, secrets: secrets), appId: appId, token: token)
            return device
        }
    }

    static func job(token: String = "tok", voip: Bool = false, attempts: Int = 1) -> PushJob {
        var job = PushJob.test(
            token: token, kind: voip ? .call : .chat, payload: voip ? voipClear : clear, attempts: attempts)
        job.privatePush = PrivatePush(plaintext: voip ? voipPlaintext : plaintext)
        return job
    }

    @Test func aKeyedTokenGetsTheClearPartWithEncThatOpensToThePlaintext() async throws {
        let rig = try Rig()
        let device = try rig.register("tok")
        #expect(await rig.sender.send(Self.job()) == .delivered)
        let sent = try #require(rig.recorder.jobs.first)
        let object = try TestPushDevice.object(sent.payload)
        #expect(Set(object.keys) == ["aps", "pushId", "enc"])
        #expect(
            Data(try JSONCodec.encode(try device.open(sent.payload))) == Data(try JSONCodec.encode(TestPushDevice.object(Self.plaintext))))
        // The clear part is kept byte for byte, `,"enc":"…"` added before its last brace.
        let enc = try #require(object["enc"] as? String)
        #expect(sent.payload == Self.clear.dropLast() + Data(#","enc":""#.utf8) + Data(enc.utf8) + Data(#""}"#.utf8))
        #expect(enc.count == (4 * (Self.plaintext.count + WebPushEncryption.overhead) + 2) / 3)
        #expect(!String(decoding: sent.payload, as: UTF8.self).contains("See you at 5"))
    }

    @Test func aClaimedBatchReadsItsKeysInOneQueryAndEachSendTakesItsOwn() async throws {
        let rig = try Rig()
        let devices = try ["t1", "t2", "t3"].map { try rig.register($0) }
        var jobs = ["t1", "t2", "t3"].map { Self.job(token: $0) }
        jobs.append(PushJob.test(token: "t1", payload: Self.clear))  // a standard job reads nothing
        rig.sender.prepare(jobs)
        #expect(rig.keys.reads == 1)
        for job in jobs {
            let outcome = await withCheckedContinuation { done in rig.sender.send(job) { done.resume(returning: $0) } }
            #expect(outcome == .delivered)
        }
        #expect(rig.keys.reads == 1, "the sends used the batch's keys")
        for (index, device) in devices.enumerated() {
            let sent = try #require(rig.recorder.jobs.first { $0.id == jobs[index].id })
            #expect(try device.open(sent.payload)["body"] as? String == "See you at 5")
        }
        // Re-registered before the retry: the next claim reads the new key.
        let renewed = try rig.register("t1")
        var retry = jobs[0]
        retry.attempts = 2
        rig.sender.prepare([retry])
        _ = await withCheckedContinuation { done in rig.sender.send(retry) { done.resume(returning: $0) } }
        #expect(rig.keys.reads == 2)
        let resent = try #require(rig.recorder.jobs.last)
        #expect(try renewed.open(resent.payload)["body"] as? String == "See you at 5")
    }

    @Test func manyJobsHandedOnAtOnceAreAllSealedEachExactlyOnce() async throws {
        let rig = try Rig()
        let device = try rig.register("tok")
        // More than one chunk of the sealing worker, handed on from several tasks at once.
        let count = PrivatePushSender.chunk * 3 + 5
        let jobs = (0..<count).map { _ in Self.job() }
        let outcomes = await withTaskGroup(of: JobOutcome.self) { group in
            for job in jobs {
                group.addTask { await withCheckedContinuation { done in rig.sender.send(job) { done.resume(returning: $0) } } }
            }
            return await group.reduce(into: [JobOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.count == count)
        #expect(outcomes.allSatisfy { $0 == .delivered })
        let sent = rig.recorder.jobs
        #expect(sent.map(\.id).sorted() == jobs.map(\.id).sorted())
        for job in sent { #expect(try device.open(job.payload)["body"] as? String == "See you at 5") }
        rig.sender.stop()
    }

    /// Records each job as it is handed on, on the caller's thread (the recording sender's
    /// completion form goes through a task, which would reorder them).
    final class InOrder: PushSender {
        let sent = Locked<[PushJob]>([])
        func send(_ job: PushJob) async -> JobOutcome { .delivered }
        func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
            sent.withLock { $0.append(job) }
            completion(.delivered)
        }
    }

    @Test func severalSealersKeepEachTokensPushesInOrder() async throws {
        let rig = try Rig()
        let inOrder = InOrder()
        let sender = PrivatePushSender(
            wrapping: inOrder, keys: rig.keys,
            open: { appId, token, stored in
                let auth = try rig.secrets.open(stored.sealedAuth, context: StoredEncryptionKeys.sealingContext(appId: appId, token: token))
                return try WebPushKeys(p256dh: [UInt8](stored.p256dh), auth: [UInt8](auth))
            }, logger: rig.log.logger(), sealers: 4)
        let tokens = (0..<8).map { "tok\($0)" }
        for token in tokens { _ = try rig.register(token) }
        // Interleaved across the tokens, handed on one after the other, as the engine does.
        let jobs = (0..<(PrivatePushSender.chunk * 10)).map { Self.job(token: tokens[$0 % tokens.count]) }
        let answered = Locked(0)
        for job in jobs { sender.send(job) { _ in answered.withLock { $0 += 1 } } }
        #expect(await eventually(timeout: 30) { answered.withLock { $0 } == jobs.count })
        let sent = inOrder.sent.withLock { $0 }
        #expect(sent.count == jobs.count)
        for token in tokens {
            #expect(sent.filter { $0.token == token }.map(\.id) == jobs.filter { $0.token == token }.map(\.id), "token \(token)")
        }
        sender.stop()
    }

    @Test func afterStopAPrivateJobGetsARetryAndNothingIsSent() async throws {
        let rig = try Rig()
        _ = try rig.register("tok")
        #expect(await withCheckedContinuation { done in rig.sender.send(Self.job()) { done.resume(returning: $0) } } == .delivered)
        rig.sender.stop()
        let outcome = await withCheckedContinuation { done in rig.sender.send(Self.job()) { done.resume(returning: $0) } }
        guard case .retry(_, let reason) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(reason.contains("stopped"))
        #expect(rig.recorder.jobs.count == 1)
        // A standard job still passes to the inner sender, which decides for itself.
        let standard = PushJob.test(token: "tok", payload: Self.clear)
        #expect(await withCheckedContinuation { done in rig.sender.send(standard) { done.resume(returning: $0) } } == .delivered)
    }

    @Test func aKeylessAlertTokenGetsThePlaceholderOnlyLoggedOncePerToken() async throws {
        let rig = try Rig()
        let token = "b0b0cafe00112233445566778899aabbccddeeff"
        for _ in 0..<3 { _ = await rig.sender.send(Self.job(token: token)) }
        _ = await rig.sender.send(Self.job(token: "another-token"))
        #expect(rig.recorder.jobs.count == 4)
        #expect(rig.recorder.jobs.allSatisfy { $0.payload == Self.clear })
        let lines = rig.log.records(containing: "has no encryption key")
        #expect(lines.count == 2, "\(rig.log.lines)")
        #expect(!rig.log.lines.joined().contains(token), "the token itself is never logged")
        #expect(lines.first?.message.contains(PrivatePushSender.tokenHint(token)) == true)
    }

    @Test func aKeylessVoIPTokenGetsOnlyTheCallsTypeActionAndSession() async throws {
        let rig = try Rig()
        #expect(await rig.sender.send(Self.job(token: "voiptok", voip: true)) == .delivered)
        let sent = try TestPushDevice.object(try #require(rig.recorder.jobs.first).payload)
        #expect(Set(sent.keys) == ["aps", "pushId", "type", "callAction", "sessionId"])
        #expect(sent["type"] as? String == "call" && sent["callAction"] as? String == "initiated" && sent["sessionId"] as? String == "s-42")
        #expect((sent["aps"] as? [String: Any])?.isEmpty == true)
    }

    @Test func aRetryAfterTheKeyChangedIsEncryptedToTheNewKey() async throws {
        let rig = try Rig()
        let old = try rig.register("tok")
        _ = await rig.sender.send(Self.job(attempts: 1))
        let new = try rig.register("tok")  // re-registration with a rotated key
        _ = await rig.sender.send(Self.job(attempts: 2))
        let (first, retry) = (rig.recorder.jobs[0].payload, rig.recorder.jobs[1].payload)
        #expect(throws: Never.self) { try old.open(first) }
        #expect(throws: Never.self) { try new.open(retry) }
        #expect(throws: WebPushError.self) { try old.open(retry) }
        // A key removed by a registration without one: the placeholder, not the old key.
        rig.keys.set(nil, appId: "a1", token: "tok")
        _ = await rig.sender.send(Self.job(attempts: 3))
        #expect(rig.recorder.jobs[2].payload == Self.clear)
        #expect(rig.keys.reads == 3, "read at each send, never cached")
    }

    @Test func aKeyThatCannotBeUsedFailsTheJobAndNothingIsSent() async throws {
        let rig = try Rig()
        let device = try TestPushDevice()
        // Sealed for another token: the context does not match, the auth secret does not open.
        rig.keys.set(try device.stored(appId: "a1", token: "other", secrets: rig.secrets), appId: "a1", token: "tok")
        guard case .failed(let reason) = await rig.sender.send(Self.job()) else {
            Issue.record("not failed")
            return
        }
        #expect(reason.contains("encryption key"))
        // Not a point on P-256.
        var bad = try device.stored(appId: "a1", token: "tok", secrets: rig.secrets)
        bad.p256dh = Data([4] + [UInt8](repeating: 1, count: 64))
        rig.keys.set(bad, appId: "a1", token: "tok")
        guard case .failed = await rig.sender.send(Self.job()) else {
            Issue.record("not failed")
            return
        }
        // The store cannot be read: retried later, not sent in clear.
        rig.keys.fail(true)
        guard case .retry = await rig.sender.send(Self.job()) else {
            Issue.record("not retried")
            return
        }
        #expect(rig.recorder.jobs.isEmpty)
        #expect(!rig.log.lines.joined().contains("See you at 5"))
    }

    @Test func aJobWithoutPrivatePushPassesUnchanged() async throws {
        let rig = try Rig()
        let job = PushJob.test(payload: Self.plaintext)
        _ = await rig.sender.send(job)
        #expect(rig.recorder.jobs == [job])
        #expect(rig.keys.reads == 0)
    }

    @Test func anFCMPrivatePushCarriesEncOnceInAPNsPayloadAndOnlyPushIdInData() async throws {
        let rig = try Rig()
        _ = try rig.register("tok")
        _ = await rig.sender.send(Self.job())
        let sealed = try #require(rig.recorder.jobs.first)
        let enc = try #require(try TestPushDevice.object(sealed.payload)["enc"] as? String)
        let bytes = try #require(
            FCMMessage.make(
                token: "fcmtok", payload: sealed.payload, apnsHeaders: ["apns-push-type": "alert"], includeNotification: true,
                sealed: true))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.components(separatedBy: enc).count == 2, "enc exactly once")
        let message = try TestPushDevice.object(Data(bytes))
        #expect(message["data"] as? [String: String] == ["pushId": "p1"])
        #expect(message["notification"] == nil)
        let payload = try #require((message["apns"] as? [String: Any])?["payload"] as? [String: Any])
        #expect(payload["enc"] as? String == enc)
        // Standard: the top-level keys still copied into data, the notification block kept.
        let standard = try #require(
            FCMMessage.make(token: "fcmtok", payload: Self.plaintext, apnsHeaders: [:], includeNotification: true))
        let object = try TestPushDevice.object(Data(standard))
        #expect((object["data"] as? [String: String])?["body"] == "See you at 5")
        #expect(object["notification"] != nil)
    }
}
