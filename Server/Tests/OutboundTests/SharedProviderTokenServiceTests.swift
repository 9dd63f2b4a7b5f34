import Foundation
import PushCore
import PushMocks
import PushService
import PushStore
import PushTestSupport
import Testing

/// Two services on one database (as two instances of a cluster) present one APNs provider
/// token: the second takes the token the first signed from the store, where it is sealed.
@Suite struct SharedProviderTokenServiceTests {
    @Test func twoServicesOnOneDatabaseShareTheProviderToken() async throws {
        // Given a service delivering to a mock APNs, with a provider and a user with three devices
        let mock = try await offThePool { try MockPushServer() }
        let shared = NSTemporaryDirectory() + "push-shared-jwt-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let configure: @Sendable (inout ServiceConfiguration) -> Void = { configuration in
            configuration.dataDirectory = shared
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
        }
        let first = try await Harness.start(sender: .delivery, configure: configure)
        _ = try await first.admin("POST", "/apps", ["appId": "app1", "name": "App"])
        let provider: [String: Any] = [
            "providerId": "apns-1", "keyId": MockPushServer.keyId, "teamId": MockPushServer.teamId, "bundleId": "com.example.app",
            "p8Key": mock.credentials.apnsPrivateKeyPEM, "production": false,
        ]
        #expect(try await first.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", provider).status == 200)
        let bob = try await first.makeUser("bob")
        for token in ["dd01", "dd02", "dd03"] {
            #expect(try await first.register(token, platform: "apns_ios_device", session: bob).status == 200)
        }
        let send: [String: Any] = [
            "type": "chat", "recipients": [["uid": "bob"]],
            "message": ["id": "m1", "sender": ["uid": "alice"], "receiver": ["uid": "bob"], "text": "hi"],
        ]

        // When the first service delivers a chat, stops delivering, and a second service on
        // the same database delivers another
        #expect(try await first.admin("POST", "/notifications/push/v1/send", appId: "app1", send).status == 200)
        #expect(await eventually { (try? first.store.pushJobCounts().delivered) == 3 })
        first.app.delivery.engine.stop(timeout: 5)
        let second = try await Harness.start(sender: .delivery, database: first.database, configure: configure)
        var again = send
        again["message"] = ["id": "m2", "sender": ["uid": "alice"], "receiver": ["uid": "bob"], "text": "again"]
        #expect(try await second.admin("POST", "/notifications/push/v1/send", appId: "app1", again).status == 200)
        #expect(await eventually { (try? second.store.pushJobCounts().delivered) == 6 })

        // Then APNs saw one provider token for the six pushes
        let jwts = mock.log(kind: "apns").compactMap { $0["jwt"] as? String }
        #expect(jwts.count == 6)
        #expect(Set(jwts).count == 1)

        // And the first signed it, the second took it from the store, as /metrics says
        let labels = "{team=\"\(MockPushServer.teamId)\",key=\"\(MockPushServer.keyId)\"}"
        let metricsFirst = String(decoding: try await first.request("GET", "/metrics").body, as: UTF8.self)
        let metricsSecond = String(decoding: try await second.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metricsFirst.contains("push_apns_provider_tokens_signed_total\(labels) 1"))
        #expect(metricsSecond.contains("push_apns_provider_tokens_signed_total\(labels) 0"))
        #expect(metricsSecond.contains("push_apns_provider_tokens_adopted_total\(labels) 1"))

        // And the database holds it sealed: one row, and the token appears in no database file
        #expect(try second.store.rowCount(table: .providerTokens) == 1)
        try second.store.exportRows(table: .providerTokens, batchSize: 10) { rows in
            for case .blob(let sealed) in rows.joined() { #expect(sealed.range(of: Data(jwts[0].utf8)) == nil) }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: shared).filter { $0.contains(".sqlite") }
        #expect(files.isEmpty == TestDatabase.isPostgres)
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: shared + "/" + file))
            #expect(bytes.range(of: Data(jwts[0].utf8)) == nil, "\(file) holds the provider token in clear")
        }
    }
}
