import Delivery
import Foundation
import PushCore
import PushCrypto
import PushMocks
import PushStore
import Synchronization
import PushTestSupport
import Testing

/// Several instances of the service on one store sign one APNs provider token per key
/// between them: per reuse interval, and per rejection (`ExpiredProviderToken`).
@Suite struct SharedProviderTokenTests {
    let clock = ManualClock()
    let directory: String
    let path: String
    let secrets: SecretBox
    let key: PrivateKey

    init() throws {
        directory = NSTemporaryDirectory() + "shared-jwt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/push.sqlite"
        secrets = try SecretBox(key: Data((0..<32).map { UInt8($0) }))
        key = try PrivateKey(pem: try TestCredentials.shared.get().apnsPrivateKeyPEM)
    }

    /// One instance: its own store opened on the shared file (as a separate process would),
    /// a counting (and breakable) view of it, and its token provider.
    struct Instance: Sendable {
        let store: CountingStore
        let tokens: APNsTokenProvider
    }

    func instance(
        secrets: SecretBox? = nil, logs: RecordingLogHandler = RecordingLogHandler(), shared: Bool = true
    ) throws -> Instance {
        let store = CountingStore(try SQLiteStore(path: path, synchronousFull: false))
        let clock = self.clock
        let sharing = StoredProviderTokens(store: store, secrets: secrets ?? self.secrets, logger: logs.logger())
        let tokens = try APNsTokenProvider(
            key: key, keyId: "KEY1234567", teamId: "TEAM123456", sharing: shared ? sharing : nil, now: { clock.now })
        return Instance(store: store, tokens: tokens)
    }

    struct Totals: Equatable {
        var signed: Int
        var adopted: Int
    }

    func totals(_ instances: [Instance]) -> Totals {
        Totals(
            signed: instances.reduce(0) { $0 + $1.tokens.tokensSigned }, adopted: instances.reduce(0) { $0 + $1.tokens.tokensAdopted })
    }

    @Test func threeInstancesSignOneTokenPerReuseInterval() throws {
        // Given three instances on one store file
        let instances = try (0..<3).map { _ in try instance() }

        // When each asks for a token
        let first = try instances.map { try $0.tokens.token() }

        // Then one signed it and the others took it from the store
        #expect(Set(first.map(\.value)).count == 1)
        #expect(totals(instances) == Totals(signed: 1, adopted: 2))

        // And within the reuse interval every push is served from memory: no store call
        let calls = instances.map(\.store.calls)
        clock.advance(49 * 60)
        for instance in instances { #expect(try instance.tokens.token() == first[0]) }
        #expect(instances.map(\.store.calls) == calls)

        // When the token is past the reuse interval, for three intervals in a row
        var seen = Set(first.map(\.value))
        for round in 1...3 {
            clock.advance(2 * 60 + Double(round == 1 ? 0 : 48 * 60))
            let next = try instances.map { try $0.tokens.token() }
            // Then it is replaced once for all of them
            #expect(Set(next.map(\.value)).count == 1)
            #expect(!seen.contains(next[0].value))
            seen.insert(next[0].value)
            #expect(totals(instances).signed == 1 + round)
        }
    }

    @Test func manyThreadsOnSeveralStoresSignOneTokenPerInterval() throws {
        // Given three instances, each used by eight threads at once
        let instances = try (0..<3).map { _ in try instance() }
        let values = Mutex<Set<String>>([])
        for phase in 0..<4 {
            // When all threads ask for tokens, in four phases a reuse interval apart
            DispatchQueue.concurrentPerform(iterations: 24) { index in
                for _ in 0..<50 {
                    guard let token = try? instances[index % 3].tokens.token() else { return }
                    values.withLock { _ = $0.insert(token.value) }
                }
            }
            // Then the cluster signed exactly one token per phase
            #expect(totals(instances).signed == phase + 1)
            #expect(values.withLock { $0.count } == phase + 1)
            clock.advance(51 * 60)
        }
    }

    @Test func anExpiredProviderTokenSeenByEveryInstanceLeadsToOneNewSignature() throws {
        // Given three instances using one token
        let instances = try (0..<3).map { _ in try instance() }
        let rejected = try instances.map { try $0.tokens.token() }[0]
        clock.advance(5 * 60)

        // When APNs rejects it (ExpiredProviderToken) at each instance
        for instance in instances { instance.tokens.invalidate(rejected) }
        let next = try instances.map { try $0.tokens.token() }

        // Then one instance signed a new token and the others took it without signing
        #expect(Set(next.map(\.value)).count == 1)
        #expect(next[0] != rejected)
        #expect(totals(instances) == Totals(signed: 2, adopted: 4))

        // And a late rejection of the old token at an instance that already moved on changes nothing
        instances[2].tokens.invalidate(rejected)
        #expect(try instances[2].tokens.token() == next[0])
        #expect(totals(instances).signed == 2)
    }

    @Test func aRejectionSeenAfterAnotherInstanceRefreshedTakesTheSharedToken() throws {
        // Given two instances using one token, the first of which already replaced it after a rejection
        let a = try instance()
        let b = try instance()
        let rejected = try a.tokens.token()
        #expect(try b.tokens.token() == rejected)
        a.tokens.invalidate(rejected)
        let fresh = try a.tokens.token()

        // When APNs rejects the old token at the second instance too
        b.tokens.invalidate(rejected)

        // Then the second takes the first's new token without signing
        #expect(try b.tokens.token() == fresh)
        #expect(b.tokens.tokensSigned == 0)
        #expect(totals([a, b]) == Totals(signed: 2, adopted: 2))
    }

    @Test func aTokenPastTheReuseIntervalIsReplacedOnceEvenWhenAnInstanceWasIdle() throws {
        // Given an instance whose token is due, and another that has not asked for a while
        let a = try instance()
        let b = try instance()
        let old = try a.tokens.token()
        #expect(try b.tokens.token() == old)
        clock.advance(50 * 60)

        // When the first refreshes and, much later, the second asks
        let new = try a.tokens.token()
        clock.advance(10 * 60)

        // Then the second takes the refreshed token: one signature for the interval
        #expect(new != old)
        #expect(try b.tokens.token() == new)
        #expect(totals([a, b]) == Totals(signed: 2, adopted: 2))
    }

    @Test func theSharedTokenIsStoredSealed() throws {
        // Given an instance that signed a token
        let a = try instance()
        let token = try a.tokens.token()

        // Then the store holds one row, and neither the token nor its signature appears in
        // the database files
        #expect(try a.store.rowCount(table: .providerTokens) == 1)
        let signature = String(token.value.split(separator: ".").last ?? "")
        #expect(signature.count > 40)
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] {
            bytes += (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data()
        }
        #expect(bytes.count > 0)
        #expect(bytes.range(of: Data(token.value.utf8)) == nil)
        #expect(bytes.range(of: Data(signature.utf8)) == nil)

        // And what is stored opens to the token with the service's secret key, for this key only
        var sealed: [Data] = []
        try a.store.exportRows(table: .providerTokens, batchSize: 10) { rows in
            for row in rows { if case .blob(let data) = row[2] { sealed.append(data) } }
        }
        #expect(sealed.count == 1)
        let opened = try secrets.open(sealed[0], context: "provider-token:TEAM123456:KEY1234567")
        #expect(String(decoding: opened, as: UTF8.self) == token.value)
        #expect(throws: (any Error).self) { try secrets.open(sealed[0], context: "provider-token:TEAM123456:OTHERKEY00") }
    }

    @Test func aStoredTokenSealedWithAnotherKeyIsReplacedAndReported() throws {
        // Given a token stored by an instance with another secret key
        let other = try instance(secrets: try SecretBox(key: Data(repeating: 9, count: 32)))
        let foreign = try other.tokens.token()

        // When an instance with this service's key asks
        let log = RecordingLogHandler()
        let a = try instance(logs: log)

        // Then it signs its own (it cannot use what it cannot open) and says why, as a warning
        #expect(try a.tokens.token() != foreign)
        #expect(a.tokens.tokensSigned == 1)
        #expect(log.messages(at: .warning).contains { $0.contains("cannot be opened") && $0.contains("KEY1234567") })
    }

    @Test func aStoreFailureFallsBackToLocalSigningAtMostOncePerTwentyMinutes() throws {
        // Given an instance whose store is down
        let log = RecordingLogHandler()
        let a = try instance(logs: log)
        a.store.failing = true

        // When it needs a token, then it signs one locally and says so
        let local = try a.tokens.token()
        #expect(a.tokens.tokensSigned == 1)
        #expect(a.tokens.sharingFailures == 1)
        #expect(log.messages(at: .warning).contains { $0.contains("cannot be shared") && $0.contains("KEY1234567") })

        // When APNs rejects that token within 20 minutes, then it keeps it (a new one would be
        // refused as TooManyProviderTokenUpdates) and asks the store again only a minute later
        clock.advance(5 * 60)
        a.tokens.invalidate(local)
        #expect(try a.tokens.token() == local)
        #expect(try a.tokens.token() == local)
        #expect(a.store.calls == 2)
        clock.advance(61)
        #expect(try a.tokens.token() == local)
        #expect(a.store.calls == 3)
        #expect(a.tokens.tokensSigned == 1)

        // When 20 minutes have passed since it signed, then it signs a new one locally
        clock.advance(15 * 60)
        let second = try a.tokens.token()
        #expect(second != local)
        #expect(a.tokens.tokensSigned == 2)

        // When the store is back and the token is due, then the instance shares again: it
        // takes the token another instance stored meanwhile
        a.store.failing = false
        let b = try instance()
        clock.advance(45 * 60)
        let shared = try b.tokens.token()
        clock.advance(5 * 60)
        #expect(try a.tokens.token() == shared)
        #expect(a.tokens.tokensSigned == 2)
        #expect(a.tokens.tokensAdopted == 1)
    }

    @Test func withoutSharingEachInstanceSignsItsOwn() throws {
        // The baseline the shared store removes: two instances, two tokens
        let a = try instance(shared: false)
        let b = try instance(shared: false)
        #expect(try a.tokens.token() != b.tokens.token())
        #expect(totals([a, b]) == Totals(signed: 2, adopted: 0))
        #expect(a.store.calls == 0)
    }
}

/// A ``SharedStore`` that counts the calls to the shared token and can be made to fail.
final class CountingStore: SharedStore {
    private let store: SQLiteStore
    private let state = Mutex((calls: 0, failing: false))

    init(_ store: SQLiteStore) { self.store = store }

    /// Calls to `withSharedProviderToken`, failed ones included.
    var calls: Int { state.withLock { $0.calls } }

    /// While true, every call throws as an unreachable database would.
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    func withSharedProviderToken(
        teamId: String, keyId: String, _ update: (SharedProviderToken?) throws -> SharedProviderToken?
    ) throws -> SharedProviderToken? {
        let failing = state.withLock { state in
            state.calls += 1
            return state.failing
        }
        if failing { throw StoreError.database("connection refused") }
        return try store.withSharedProviderToken(teamId: teamId, keyId: keyId, update)
    }

    func exportRows(table: StoreTable, batchSize: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        try store.exportRows(table: table, batchSize: batchSize, body)
    }

    func importRows(table: StoreTable, rows: [[StoreValue]]) throws { try store.importRows(table: table, rows: rows) }

    func rowCount(table: StoreTable) throws -> Int { try store.rowCount(table: table) }
}

/// The log lines an instance wrote.
/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let time = Mutex<Date>(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}
