import Foundation
import PushTestSupport
import PushCore
import PushStore
import Testing

/// The outbox survives `kill -9` of the running binary in the middle of sends: every
/// accepted send keeps its jobs, retried sends (same Idempotency-Key) create none twice,
/// and after a restart every job reaches the sender. The binary runs the delivery engine
/// with `--sender log` (the engine's claims, leases and batched finishing, no network);
/// the lease is 60 s and the restarted process takes over its predecessor's at once.
@Suite struct CrashRecoveryTests {
    static let adminKey = "crash-test-admin-key"
    static let authToken = "dev-user_crash-test-token"

    static func start(_ directory: String, _ database: TestDatabase) async throws -> ServerProcess {
        try await ServerProcess.start(
            [
                "--port", "0", "--data-dir", directory, "--seed-dev", "--sender", "log", "--sender-journal", directory + "/sent.log",
                "--job-lease", "60", "--poll-interval", "0.01", "--log-level", "error", "--rate-limit", "0",
            ] + database.arguments,
            environment: ["PUSH_ADMIN_KEY": adminKey, "PUSH_SEED_AUTH_TOKEN": authToken])
    }

    static func send(port: Int, key: Int) async -> (status: Int, requestId: String?)? {
        let body: [String: Any] = [
            "type": "chat", "recipients": [["uid": "dev-user", "badge": key % 50]],
            "message": ["id": "msg-\(key)", "sender": ["uid": "alice"], "receiver": ["uid": "dev-user"], "text": "Message \(key)"],
        ]
        guard
            let response = try? await RawHTTP.json(
                port: port, "POST", "/notifications/push/v1/send",
                headers: ["apikey": adminKey, "appid": "dev-app", "Idempotency-Key": "k\(key)"], body)
        else { return nil }
        return (response.status, response.data["requestId"] as? String)
    }

    @Test func killNineMidSendLosesNothingAndDuplicatesNothing() async throws {
        let directory = NSTemporaryDirectory() + "push-crash-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        let total = 400
        // Given a running binary; the user has an APNs, an FCM and a VoIP token (a chat goes to the first two)
        let first = try await Self.start(directory, database)
        let session = ["appid": "dev-app", "authToken": Self.authToken]
        for (token, platform) in [("aaaa0001", "apns_ios_device"), ("ffff0001", "fcm_ios"), ("bbbb0001", "apns_ios_voip")] {
            let body: [String: Any] = [
                "fcmToken": token, "platform": platform, "providerId": platform == "fcm_ios" ? "dev-fcm" : "dev-apns",
            ]
            #expect(try await RawHTTP.json(port: first.port, "POST", "/notifications/push/v1/tokens", headers: session, body).status == 200)
        }
        // When sends stream in from three clients and the process is killed mid-way
        let answered = Locked<[Int: String]>([:])
        let next = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    while true {
                        let key = next.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        guard key < total else { return }
                        guard let result = await Self.send(port: first.port, key: key) else { continue }
                        guard result.status == 200, let id = result.requestId else { continue }
                        let count = answered.withLock { answered -> Int in
                            answered[key] = id
                            return answered.count
                        }
                        // The client that sees the 80th answer kills the server while the others are mid-request.
                        if count == 80 { first.kill9() }
                    }
                }
            }
        }
        let beforeCrash = answered.withLock { $0 }
        let inFlightAtKill = try database.open().pushJobCounts().inFlight
        #expect(beforeCrash.count >= 80)
        #expect(beforeCrash.count < total)

        // Then after a restart, retrying every send with its key replays the answered ones
        let second = try await Self.start(directory, database)
        defer { second.stop() }
        var requestIds: [Int: String] = [:]
        for key in 0..<total {
            let result = try #require(await Self.send(port: second.port, key: key))
            #expect(result.status == 200)
            requestIds[key] = result.requestId
            if let before = beforeCrash[key] { #expect(result.requestId == before, "send \(key) was stored twice") }
        }
        #expect(Set(requestIds.values).count == total)

        // And every job of every send reaches the sender, none is stored twice
        let store = try database.open()
        let drained = try await waitWhileProgressing("drain", { try store.pushJobCounts() }) { $0.pending + $0.inFlight == 0 }
        #expect(drained.done, "\(drained.value)")
        let jobs = try store.allPushJobs()
        #expect(jobs.count == 2 * total, "two alert tokens per send")
        #expect(Set(jobs.map(\.requestId)) == Set(requestIds.values))
        #expect(try store.pushJobCounts().delivered == 2 * total)
        let journal = try String(contentsOfFile: directory + "/sent.log", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(Set(journal) == Set(jobs.map(\.id)), "every job was handed to the sender")
        // At-least-once: only a job the killed process had claimed but not yet finished may
        // be handed over twice (at most what it had in flight).
        #expect(journal.count - Set(journal).count <= inFlightAtKill)
    }
}
