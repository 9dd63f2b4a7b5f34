import Foundation
import PushTestSupport
import PushCore
import PushMocks
import PushStore
import Testing

/// Whether this is a release build: the heavy scenarios run only there (CI runs both).
let isReleaseBuild: Bool = {
    #if DEBUG
    return false
    #else
    return true
    #endif
}()

/// `kill -9` of `push-server` delivering 20,000 pushes through the real `DeliveryEngine` and
/// `DeliverySender` to the native mock APNs (50 ms per answer), then a restart: every job
/// reaches the mock at least once, the restarted service takes over its predecessor's leases
/// at once (long before `--job-lease`), and the duplicates the mock counts (by `apns-id`,
/// which is the job id) are no more than the jobs in flight at the kill.
@Suite(.serialized) struct EngineCrashTests {
    static let adminKey = "engine-crash-admin-key"
    static let authToken = "dev-user_engine-crash-token"
    static let tokens = 200
    static let sends = 100

    static func start(_ directory: String, _ database: TestDatabase, mock: NativeMockAPNs) async throws -> ServerProcess {
        try await ServerProcess.start(
            [
                "--port", "0", "--data-dir", directory, "--seed-dev", "--apns-url", mock.baseURL, "--ca-file",
                mock.credentials.caFile, "--job-lease", "60", "--delivery-max-in-flight", "400", "--log-level", "error",
                "--rate-limit", "0", "--max-tokens-per-user", "1000",
            ] + database.arguments,
            environment: ["PUSH_ADMIN_KEY": adminKey, "PUSH_SEED_AUTH_TOKEN": authToken])
    }

    static func send(port: Int, key: Int) async -> Int? {
        await RawHTTP.sendDevChat(port: port, adminKey: adminKey, keyPrefix: "crash", key: key)
    }

    @Test(.enabled(if: isReleaseBuild, "20,000 pushes: release builds only"))
    func killNineMidRunThroughTheDeliveryEngine() async throws {
        let directory = NSTemporaryDirectory() + "push-engine-crash-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        let mock = try NativeMockAPNs(binaryDirectory: ServerProcess.binary.deletingLastPathComponent(), latencyMilliseconds: 50)
        defer { mock.stop() }
        let total = Self.tokens * Self.sends

        // Given a running service whose user has 200 device tokens
        let first = try await Self.start(directory, database, mock: mock)
        let session = ["appid": "dev-app", "authToken": Self.authToken]
        for index in 0..<Self.tokens {
            let body: [String: Any] = ["fcmToken": String(format: "%064x", index), "platform": "apns_ios_device", "providerId": "dev-apns"]
            #expect(try await RawHTTP.json(port: first.port, "POST", "/notifications/push/v1/tokens", headers: session, body).status == 200)
        }

        // When 100 sends (200 jobs each) stream in and the process is killed mid-delivery
        let next = Locked(0)
        let killed = Locked(false)
        let inFlightWhenStopped = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    while !killed.withLock({ $0 }) {
                        let key = next.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        guard key < Self.sends else { return }
                        _ = await Self.send(port: first.port, key: key)
                    }
                }
            }
            group.addTask {
                let deadline = Date().addingTimeInterval(120)
                while mock.answeredCount() < total / 4, Date() < deadline {
                    try? await Task.sleep(nanoseconds: 2_000_000)
                }
                // Kill it with jobs in flight: when delivery keeps up with the sends the engine
                // can be between claims, with nothing leased, at any one moment.
                // The count is read while the process is stopped: on PostgreSQL a commit it sent
                // just before the stop can still land after the read, so a read after the kill may
                // find fewer (even none) in flight. The bounds below use that later, tighter count.
                if let store = try? database.open() {
                    _ = await first.stop(until: deadline) {
                        let inFlight = (try? store.pushJobCounts().inFlight) ?? 0
                        inFlightWhenStopped.withLock { $0 = inFlight }
                        return inFlight > 0
                    }
                }
                first.kill9()
                killed.withLock { $0 = true }
            }
        }
        let answeredAtKill = mock.answeredCount()
        #expect(answeredAtKill < total, "the kill came mid-run")
        let store = try database.open()
        let atKill = try store.pushJobCounts()
        let inFlightAtKill = atKill.inFlight
        #expect(inFlightWhenStopped.withLock { $0 } > 0, "jobs were in flight when the process was stopped to be killed")

        // Then a restarted service (every send retried with its key) delivers everything at
        // once: its predecessor's leases (60 s) are taken over, not waited for
        // What the mock had answered before the restart, the dead process's last requests
        // included: they are answered after its latency, so wait until the log stops growing.
        var settled = mock.answeredCount()
        let settleDeadline = Date().addingTimeInterval(5)
        while Date() < settleDeadline {
            try await Task.sleep(nanoseconds: 200_000_000)
            let now = mock.answeredCount()
            if now == settled { break }
            settled = now
        }
        let answeredBeforeRestart = mock.answered()
        let restartedAt = Date()
        let second = try await Self.start(directory, database, mock: mock)
        defer { second.stop() }
        for key in 0..<Self.sends { #expect(await Self.send(port: second.port, key: key) == 200) }
        #expect(
            try await eventually(timeout: 40) {
                let counts = try store.pushJobCounts()
                return counts.pending == 0 && counts.inFlight == 0
            })
        let drainSeconds = Date().timeIntervalSince(restartedAt)
        #expect(drainSeconds < 40, "drained without waiting for the 60 s lease")
        let jobs = try store.allPushJobs()
        #expect(jobs.count == total)
        #expect(try store.pushJobCounts().delivered == total, "nothing left in the outbox, nothing failed")
        let answered = mock.answered()
        let distinct = Set(answered)
        #expect(distinct.isSuperset(of: jobs.map { $0.id.lowercased() }), "every job reached the mock at least once")
        let duplicates = answered.count - distinct.count
        // The kill's duplicates: jobs the dead process had sent that the restarted one sent again.
        // (A transport error's resend in either process is the other kind, bounded by FaultTests.)
        let sentBefore = Set(answeredBeforeRestart)
        let resentAfterKill = Set(answered.dropFirst(answeredBeforeRestart.count).filter { sentBefore.contains($0) })
        #expect(resentAfterKill.count <= inFlightAtKill, "the kill's duplicates are bounded by the jobs in flight at it")
        // And in all: with a healthy provider nothing else is sent twice (the HTTP/2 client
        // never resends on its own), so the duplicates cannot outnumber the jobs in flight.
        #expect(duplicates <= inFlightAtKill, "duplicates in all (\(duplicates)) are bounded by the jobs in flight (\(inFlightAtKill))")
        print(
            "EngineCrashTests: \(total) jobs; at the kill \(answeredAtKill) answered by the mock, \(inFlightAtKill) in flight; "
                + "resent after the restart \(resentAfterKill.count), duplicates in all \(duplicates); "
                + "drained \(String(format: "%.1f", drainSeconds)) s after the restart")
    }
}
