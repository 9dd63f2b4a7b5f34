import Delivery
import Foundation
import PushCore
import ServerSupport
import PushCrypto
import PushMocks
import PushStore
import PushTestSupport
import Testing

/// Two delivery senders on one store (as two instances of the service would be) present one
/// provider token at APNs, and one more after APNs rejects it.
@Suite struct SharedProviderTokenDeliveryTests {
    let mock: MockPushServer
    let path: String
    let secrets: SecretBox

    init() async throws {
        mock = try await offThePool { try MockPushServer() }
        let directory = NSTemporaryDirectory() + "shared-jwt-delivery-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/push.sqlite"
        secrets = try SecretBox(key: Crypto.randomBytes(32))
    }

    /// A sender with its own store opened on the shared file; `shared: false` is the sender
    /// as tests and harnesses build it, without a store.
    func sender(shared: Bool) throws -> (sender: DeliverySender, store: SQLiteStore) {
        let store = try SQLiteStore(path: path, synchronousFull: false)
        var configuration = DeliveryConfiguration(
            apnsBaseURL: mock.baseURL, fcmBaseURL: mock.baseURL, caFile: mock.credentials.caFile,
            retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 5), requestTimeoutMilliseconds: 5_000)
        if shared { configuration = configuration.sharingProviderTokens(through: store, secrets: secrets, logger: .silent) }
        let directory = StaticDirectory(providers: [
            "apns-1": .apns(
                APNsCredentials(
                    keyId: MockPushServer.keyId, teamId: MockPushServer.teamId, bundleId: "com.example.app",
                    privateKeyPEM: mock.credentials.apnsPrivateKeyPEM, production: false))
        ])
        return (DeliverySender(directory: directory, configuration: configuration, logger: .silent), store)
    }

    func job(_ token: String) -> PushJob {
        .test(
            appId: "app1", requestId: "req-1", token: token, providerId: "apns-1",
            payload: Data(#"{"aps":{"alert":{"title":"Hi","body":"there"}}}"#.utf8), environment: .sandbox)
    }

    func jwts() -> [String] { mock.log(kind: "apns").compactMap { $0["jwt"] as? String } }

    @Test func twoSendersOnOneStorePresentOneProviderToken() async throws {
        // Given two senders on one store, each with its own store connection
        let (a, storeA) = try sender(shared: true)
        let (b, storeB) = try sender(shared: true)
        defer {
            a.shutdown()
            b.shutdown()
        }

        // When both deliver pushes
        for index in 0..<6 {
            let sender = index % 2 == 0 ? a : b
            #expect(await sender.send(job(String(format: "aa%02x", index))) == .delivered)
        }

        // Then APNs saw one provider token, signed by one sender and taken from the store by the other
        #expect(jwts().count == 6)
        #expect(Set(jwts()).count == 1)
        let countsA = a.providerTokenCounts()
        let countsB = b.providerTokenCounts()
        #expect(countsA.map(\.signed) == [1] && countsA.map(\.adopted) == [0])
        #expect(countsB.map(\.signed) == [0] && countsB.map(\.adopted) == [1])
        #expect(try storeA.rowCount(table: .providerTokens) == 1)

        // When APNs rejects that token (ExpiredProviderToken) at both senders
        let rejecting = [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]]
        try mock.script(["bb01": rejecting, "bb02": rejecting])
        #expect(await a.send(job("bb01")) == .delivered)
        #expect(await b.send(job("bb02")) == .delivered)

        // Then the cluster signed one new token: each sender retried with it
        let log = mock.log(kind: "apns").map { ($0["token"] as? String ?? "", $0["jwt"] as? String ?? "", $0["status"] as? Int ?? 0) }
        let first = try #require(jwts().first)
        let retried = log.filter { $0.0.hasPrefix("bb") && $0.2 == 200 }.map { $0.1 }
        #expect(retried.count == 2)
        #expect(Set(retried).count == 1 && retried[0] != first)
        #expect(Set(jwts()).count == 2)

        // And /metrics shows who signed and who took it from the store
        let metricsA = DeliveryService(store: storeA, sender: a, logger: .silent).metricsText()
        let metricsB = DeliveryService(store: storeB, sender: b, logger: .silent).metricsText()
        let labels = "{team=\"\(MockPushServer.teamId)\",key=\"\(MockPushServer.keyId)\"}"
        #expect(metricsA.contains("push_apns_provider_tokens_signed_total\(labels) 2"))
        #expect(metricsA.contains("push_apns_provider_tokens_adopted_total\(labels) 0"))
        #expect(metricsB.contains("push_apns_provider_tokens_signed_total\(labels) 0"))
        #expect(metricsB.contains("push_apns_provider_tokens_adopted_total\(labels) 2"))
        #expect(metricsB.contains("push_apns_provider_token_sharing_failures_total\(labels) 0"))
    }

    @Test func sendersWithoutAStoreEachSignTheirOwn() async throws {
        // The baseline the store removes (and proof the mock tells tokens apart): two tokens
        let (a, _) = try sender(shared: false)
        let (b, _) = try sender(shared: false)
        defer {
            a.shutdown()
            b.shutdown()
        }
        #expect(await a.send(job("cc01")) == .delivered)
        #expect(await b.send(job("cc02")) == .delivered)
        #expect(Set(jwts()).count == 2)
        #expect(a.providerTokenCounts().map(\.signed) == [1])
        let metrics = DeliveryService(store: try SQLiteStore(path: path, synchronousFull: false), sender: a, logger: .silent).metricsText()
        let labels = "{team=\"\(MockPushServer.teamId)\",key=\"\(MockPushServer.keyId)\"}"
        #expect(metrics.contains("push_apns_provider_tokens_signed_total\(labels) 1"))
        #expect(metrics.contains("push_apns_provider_tokens_adopted_total\(labels) 0"))
    }
}
