import Foundation
import PushCore
import PushMocks
import PushService
import PushStore
import PushTestSupport
import Testing

/// Three `push-server` processes on one PostgreSQL database deliver 60,000 pushes sent
/// through their send APIs (spread over the three) to the native mock APNs (50 ms per
/// answer); one is `kill -9`ed mid-run. At the mock: every job answered at least once (its
/// `apns-id` is the job id), the kill's duplicates (jobs answered before the kill and again
/// after it) no more than the jobs the killed instance had leased at the kill (read from the
/// store right after it; reported with every other duplicate), at most one provider JWT per key
/// for the whole cluster, and the survivors finish the killed instance's jobs once its leases
/// run out (`--job-lease 15`). `scenario` runs on any `--database`: a dry run on one SQLite file
/// shared by three processes works too (as a check of the test, not a supported deployment).
@Suite(.serialized) struct MultiInstanceTests {
    static let adminKey = "multi-instance-admin-key"
    static let authToken = "dev-user_multi-instance-token"
    static let tokens = 200
    static let sends = 300
    static let lease = 15

    static func start(
        index: Int, database: String, mock: NativeMockAPNs, secretKey: String, directory: String
    ) async throws
        -> ServerProcess
    {
        try await ServerProcess.start(
            [
                "--port", "0", "--data-dir", directory + "/instance-\(index)", "--database", database,
                "--apns-url", mock.baseURL, "--ca-file", mock.credentials.caFile, "--job-lease", String(lease),
                "--delivery-max-in-flight", "400", "--log-level", "error", "--rate-limit", "0", "--max-tokens-per-user", "1000",
            ] + (index == 0 ? ["--seed-dev"] : []) + (database.hasPrefix("postgres") ? ["--database-pool", "6"] : []),
            environment: ["PUSH_ADMIN_KEY": adminKey, "PUSH_SEED_AUTH_TOKEN": authToken, "PUSH_SECRET_KEY": secretKey])
    }

    static func send(port: Int, key: Int) async -> Int? {
        await RawHTTP.sendDevChat(port: port, adminKey: adminKey, keyPrefix: "multi", key: key)
    }

    static func outbox(port: Int) async -> [String: Int]? {
        guard
            let response = try? await RawHTTP.json(port: port, "GET", "/admin/outbox", headers: ["apikey": adminKey]),
            response.status == 200
        else { return nil }
        return response.data["pushJobs"] as? [String: Int]
    }

    @Test(
        .enabled(if: isReleaseBuild, "60,000 pushes: release builds only"),
        .enabled(if: PGTest.isConfigured, "PUSH_TEST_DATABASE_URL is not set"))
    func threeInstancesOneKilled() async throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        try await Self.scenario(database: schema.url)
    }

    /// Jobs as the store exports them: (lowercased id, state, lease owner).
    static func jobs(_ store: any ServiceStore) throws -> [(id: String, state: String, owner: String?)] {
        let columns = StoreTable.pushJobs.columns
        let (id, state, owner) = (
            columns.firstIndex(of: "id")!, columns.firstIndex(of: "state")!, columns.firstIndex(of: "lease_owner")!
        )
        var jobs: [(id: String, state: String, owner: String?)] = []
        try store.exportRows(table: .pushJobs, batchSize: 5000) { rows in
            for row in rows {
                guard case .text(let jobId) = row[id], case .text(let jobState) = row[state] else { continue }
                var leaseOwner: String?
                if case .text(let text) = row[owner] { leaseOwner = text }
                jobs.append((jobId.lowercased(), jobState, leaseOwner))
            }
        }
        return jobs
    }

    /// The scenario on `database` (the instances' `--database`; the test reads the jobs
    /// through the same store type).
    static func scenario(database: String, sends: Int = sends) async throws {
        let store = try StoreLocation.parse(database).open(poolSize: 2, logger: .silent)
        let directory = NSTemporaryDirectory() + "push-multi-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mock = try NativeMockAPNs(
            binaryDirectory: ServerProcess.binary.deletingLastPathComponent(), latencyMilliseconds: 50, recordJWTs: true)
        defer { mock.stop() }
        let secretKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let total = Self.tokens * sends
        let started = Date()

        // Given three instances on one database (the first seeds the app, user and provider),
        // and a user with 200 device tokens
        var instances: [ServerProcess] = []
        for index in 0..<3 {
            instances.append(try await Self.start(index: index, database: database, mock: mock, secretKey: secretKey, directory: directory))
        }
        defer { for instance in instances { instance.stop() } }
        let session = ["appid": "dev-app", "authToken": Self.authToken]
        for index in 0..<Self.tokens {
            let body: [String: Any] = ["fcmToken": String(format: "%064x", index), "platform": "apns_ios_device", "providerId": "dev-apns"]
            let port = instances[index % 3].port
            #expect(try await RawHTTP.json(port: port, "POST", "/notifications/push/v1/tokens", headers: session, body).status == 200)
        }

        // When 300 sends (200 jobs each) go to the three in turn and the third is killed once a
        // quarter of the pushes are answered (a send whose answer is lost is retried with its
        // key on a survivor)
        let victim = instances[2]
        let victimPid = victim.process.processIdentifier
        let killed = Locked(false)
        let next = Locked(0)
        let refused = Locked(0)
        let leasedAtKill = Locked<[String]>([])
        let killedAt = Locked<Date?>(nil)
        let answeredAtKill = Locked(0)
        let ports = instances.map(\.port)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    while true {
                        let key = next.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        guard key < sends else { return }
                        var target = key % 3
                        let deadline = Date().addingTimeInterval(60)
                        while Date() < deadline {
                            if target == 2, killed.withLock({ $0 }) { target = key % 2 }
                            if await Self.send(port: ports[target], key: key) == 200 { break }
                            refused.withLock { $0 += 1 }
                            target = (target + 1) % 2
                        }
                    }
                }
            }
            group.addTask {
                let deadline = Date().addingTimeInterval(120)
                while mock.answeredCount() < total / 4, Date() < deadline {
                    try? await Task.sleep(nanoseconds: 2_000_000)
                }
                // Kill it while it holds leases: when the three keep up with the sends, any one
                // of them can be between claims, with nothing leased, at a given moment. Stopped,
                // its sessions (and so its lease locks) live on, so its leases read then are what
                // it has in flight at the kill. (Owner: `<boot id>/<pid>/<start time>`.)
                var rows: [(id: String, state: String, owner: String?)] = []
                _ = try await victim.stop(until: deadline) {
                    rows = try Self.jobs(store).filter {
                        $0.state == "leased" && $0.owner?.split(separator: "/").dropFirst().first == "\(victimPid)"
                    }
                    return !rows.isEmpty
                }
                victim.kill9()
                killedAt.withLock { $0 = Date() }
                answeredAtKill.withLock { $0 = mock.answeredCount() }
                killed.withLock { $0 = true }
                leasedAtKill.withLock { $0 = rows.map(\.id) }
            }
            try await group.waitForAll()
        }
        let answeredAtTheKill = answeredAtKill.withLock { $0 }
        let inFlightAtKill = leasedAtKill.withLock { $0 }
        #expect(!inFlightAtKill.isEmpty, "the killed instance had jobs in flight")
        #expect(answeredAtTheKill < total, "the kill came mid-run")

        // Then the survivors deliver everything, the killed instance's jobs included
        let survivors = [instances[0].port, instances[1].port]
        var counts: [String: Int] = [:]
        let drainDeadline = Date().addingTimeInterval(120)
        while Date() < drainDeadline {
            counts = await Self.outbox(port: survivors[0]) ?? [:]
            if counts["pending"] == 0, counts["inFlight"] == 0, (counts["delivered"] ?? 0) + (counts["failed"] ?? 0) >= total { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        let drainedAfterKill = Date().timeIntervalSince(killedAt.withLock { $0 } ?? Date())
        #expect(counts["delivered"] == total && counts["failed"] == 0 && counts["pending"] == 0 && counts["inFlight"] == 0, "\(counts)")
        let jobIds = try Self.jobs(store).map(\.id)
        #expect(jobIds.count == total, "one job per token per send: the retried sends were not accepted twice")

        // What the mock saw, once its log stops growing
        var answered = mock.answered()
        let settle = Date().addingTimeInterval(5)
        while Date() < settle {
            try await Task.sleep(nanoseconds: 200_000_000)
            let now = mock.answered()
            if now.count == answered.count { break }
            answered = now
        }
        let distinct = Set(answered)
        #expect(distinct.isSuperset(of: jobIds), "every job reached the mock at least once")
        #expect(distinct.isSuperset(of: inFlightAtKill), "the survivors sent the killed instance's jobs")
        let duplicates = answered.count - distinct.count
        // The kill's duplicates: jobs answered before the kill and again after it (the killed
        // instance's sends that it could not record). A transport error's resend, in any
        // instance, is the other kind (bounded by FaultTests); both are reported.
        let beforeKill = Set(answered.prefix(answeredAtTheKill))
        let resentAfterKill = Set(answered.dropFirst(answeredAtTheKill).filter { beforeKill.contains($0) })
        #expect(
            resentAfterKill.count <= inFlightAtKill.count,
            "the kill's duplicates (\(resentAfterKill.count)) are bounded by the jobs the killed instance had in flight")
        let resentOfVictim = resentAfterKill.intersection(inFlightAtKill).count
        // And in all: the survivors' sends of jobs the killed instance had sent are the only
        // duplicates (the engine resends nothing else unless a provider fails, and the HTTP/2
        // client never resends on its own), so they cannot outnumber its leases.
        #expect(
            duplicates <= inFlightAtKill.count,
            "duplicates in all (\(duplicates)) are bounded by the jobs the killed instance had in flight (\(inFlightAtKill.count))")

        // The survivors' resends, by reason (a transport failure's resend is a duplicate when
        // the provider had taken the push)
        var retried: [String: Int] = [:]
        for port in survivors {
            guard let text = try? await RawHTTP.request(port: port, "GET", "/metrics").body else { continue }
            for line in String(decoding: text, as: UTF8.self).split(separator: "\n") where line.hasPrefix("push_retried_total{") {
                let reason = line.split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
                retried[reason, default: 0] += Int(line.split(separator: " ").last ?? "") ?? 0
            }
        }

        // One provider JWT per key for the cluster: three instances, one signing.
        let jwts = mock.jwts()
        let perKey = Dictionary(grouping: jwts) { "\($0.issuer)/\($0.keyId)" }
        #expect(!perKey.isEmpty, "the mock saw provider tokens")
        for (key, seenTokens) in perKey {
            #expect(seenTokens.count <= 1, "key \(key): \(seenTokens.count) distinct JWTs (iat \(seenTokens.map(\.issuedAt)))")
        }

        print(
            "MultiInstanceTests: \(total) jobs over 3 instances; at the kill \(answeredAtTheKill) answered by the mock, "
                + "\(inFlightAtKill.count) leased by the killed instance; resent after the kill \(resentAfterKill.count) "
                + "(\(resentOfVictim) of them its leases), duplicates in all \(duplicates); survivors' push retries \(retried); send retries \(refused.withLock { $0 }); drained \(String(format: "%.1f", drainedAfterKill)) s "
                + "after the kill (lease \(Self.lease) s); JWTs per key \(perKey.mapValues(\.count)); "
                + "whole test \(String(format: "%.0f", Date().timeIntervalSince(started))) s")
    }
}
