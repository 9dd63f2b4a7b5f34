import Foundation
import PushStore
import PushTestSupport
import PushCore
import PushCrypto
import PushService
import Testing

/// Admin authentication, apps, users, auth tokens and providers over HTTP.
@Suite struct AdminAPITests {
    let harness: Harness

    init() async throws {
        harness = try await Harness.start()
        try await harness.makeApp()
    }

    @Test func adminCallsNeedTheAPIKey() async throws {
        let none = try await harness.json("GET", "/apps")
        #expect(none.status == 401)
        #expect(none.errorCode == "AUTH_ERR_EMPTY_APIKEY")
        let wrong = try await harness.json("GET", "/apps", headers: ["apikey": Harness.adminKey + "x"])
        #expect(wrong.status == 401)
        #expect(wrong.errorCode == "AUTH_ERR_APIKEY_NOT_FOUND")
        let right = try await harness.admin("GET", "/apps")
        #expect(right.status == 200)
        #expect(right.dataArray.map { $0["appId"] as? String } == ["app1"])
    }

    /// `/healthz` is the health endpoint (`/health` an alias with the same answer), and each
    /// service renders its own engine's metrics: nothing is shared through process globals.
    @Test func healthAndMetricsBelongToEachService() async throws {
        func health(_ path: String) async throws -> (status: Int, body: [String: Any]) {
            let response = try await harness.request("GET", path)
            return (response.status, try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:])
        }
        let healthz = try await health("/healthz")
        #expect(healthz.status == 200)
        #expect(healthz.body["status"] as? String == "ok")
        #expect((healthz.body["outbox"] as? [String: Any])?["pending"] as? Int == 0)
        let alias = try await health("/health")
        #expect(alias.status == 200 && alias.body["status"] as? String == "ok" && alias.body["delivery"] != nil)

        // A second service in the same process delivers a push; only its metrics count it.
        let other = try await Harness.start(sender: .recording)
        try await other.makeApp()
        let bob = try await other.makeUser("bob")
        try await other.register("aa11", platform: "apns_ios_device", session: bob)
        let send: [String: Any] = [
            "type": "chat", "recipients": [["uid": "bob"]],
            "message": ["id": "m1", "sender": ["uid": "alice"], "receiver": ["uid": "bob"], "text": "hi"],
        ]
        #expect(try await other.admin("POST", "/notifications/push/v1/send", appId: "app1", send).status == 200)
        #expect(await eventually { other.recorder?.jobs.count == 1 })
        func metrics(_ service: Harness) async throws -> String {
            String(decoding: try await service.request("GET", "/metrics").body, as: UTF8.self)
        }
        #expect(await eventually { other.app.delivery.engine.metrics.delivered == 1 })
        #expect(try await metrics(other).contains("push_sent_total{provider=\"apns\"} 1"))
        #expect(try await metrics(harness).contains("push_sent_total") == true)
        #expect(try await !metrics(harness).contains("push_sent_total{provider"))
    }

    @Test func aClientSessionCannotCallTheAdminAPI() async throws {
        let alice = try await harness.makeUser("alice")
        let response = try await harness.json(
            "GET", "/notifications/push/v1/tokens", headers: ["appid": "app1", "authToken": alice.authToken])
        #expect(response.status == 401)
        #expect(response.errorCode == "AUTH_ERR_EMPTY_APIKEY")
    }

    @Test func appsAreCreatedOnceAndDeleted() async throws {
        let created = try await harness.admin("POST", "/apps", ["appId": "app2", "webhookUrl": "http://127.0.0.1:9/hook"])
        #expect(created.status == 200)
        #expect((created.data["webhookSecret"] as? String)?.hasPrefix("whsec_") == true)
        let duplicate = try await harness.admin("POST", "/apps", ["appId": "app2"])
        #expect(duplicate.status == 409)
        #expect(duplicate.errorCode == "ERR_APP_ALREADY_EXISTS")
        let badURL = try await harness.admin("POST", "/apps", ["appId": "app3", "webhookUrl": "ftp://x"])
        #expect(badURL.status == 400)
        #expect(try await harness.admin("DELETE", "/apps/app2").status == 200)
        #expect(try await harness.admin("GET", "/apps/app2").status == 404)
    }

    @Test func deletingAnAppDropsItsQueuedWebhookEvents() async throws {
        let alice = try await harness.makeUser("alice")
        let receipt = try await harness.client("POST", "/users/bob/conversation/delivered", session: alice, ["messageId": "1"])
        #expect(receipt.status == 200)
        #expect(try harness.store.pendingWebhookJobCount() == 1)
        #expect(try await harness.admin("DELETE", "/apps/app1").status == 200)
        #expect(try harness.store.pendingWebhookJobCount() == 0)
    }

    @Test func revokedAuthTokenIsRejected() async throws {
        let alice = try await harness.makeUser("alice")
        try await harness.register("abcd", platform: "apns_ios_device", session: alice)
        let revoke = try await harness.admin("DELETE", "/users/alice/auth_tokens/\(alice.authToken)", appId: "app1")
        #expect(revoke.status == 200)
        let again = try await harness.admin("DELETE", "/users/alice/auth_tokens/\(alice.authToken)", appId: "app1")
        #expect(again.status == 404)
        #expect(again.errorCode == "ERR_AUTH_TOKEN_NOT_FOUND")
        let after = try await harness.register("abcd", platform: "apns_ios_device", session: alice)
        #expect(after.status == 401)
        #expect(after.errorCode == "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
    }

    @Test func usersAreUniqueAndValidated() async throws {
        _ = try await harness.makeUser("alice")
        let again = try await harness.admin("POST", "/users", appId: "app1", ["uid": "alice"])
        #expect(again.status == 409)
        let bad = try await harness.admin("POST", "/users", appId: "app1", ["uid": "has space"])
        #expect(bad.status == 400)
        let noApp = try await harness.admin("POST", "/users", ["uid": "x"])
        #expect(noApp.errorCode == "AUTH_ERR_EMPTY_APPID")
        #expect(try await harness.admin("GET", "/users/alice", appId: "app1").data["uid"] as? String == "alice")
        #expect(try await harness.admin("DELETE", "/users/alice", appId: "app1").status == 200)
        #expect(try await harness.admin("GET", "/users/alice", appId: "app1").errorCode == "ERR_UID_NOT_FOUND")
    }

    @Test func providerSecretsAreSealedAndNeverReturned() async throws {
        let list = try await harness.admin("GET", "/notifications/push/v1/providers", appId: "app1")
        #expect(list.dataArray.count == 2)
        #expect(!String(decoding: list.body, as: UTF8.self).contains("PRIVATE KEY"))
        // No stored value contains the key (every row of every table, on either store), nor
        // do the raw bytes of a SQLite file.
        let keyBytes = Data("TUlHVEFnRUFNQk1HQnlxR1NNNDlB".utf8)
        var rows = 0
        for table in StoreTable.allCases {
            try harness.store.exportRows(table: table, batchSize: 500) { batch in
                rows += batch.count
                for value in batch.joined() {
                    switch value {
                    case .text(let text): #expect(!text.contains("TUlHVEFnRUFNQk1HQnlxR1NNNDlB"), "\(table)")
                    case .blob(let data): #expect(data.range(of: keyBytes) == nil, "\(table)")
                    case .int, .null: break
                    }
                }
            }
        }
        #expect(rows > 0)
        if !TestDatabase.isPostgres {
            let database = try Data(contentsOf: URL(fileURLWithPath: harness.directory + "/push.sqlite"))
            #expect(database.range(of: keyBytes) == nil)
        }
        // The delivery engine gets them back through the ProviderDirectory.
        guard case .apns(let apns) = try harness.app.providers.credentials(appId: "app1", providerId: "apns-1") else {
            Issue.record("no APNs credentials")
            return
        }
        #expect(apns.privateKeyPEM == Harness.testPEM)
        #expect(apns.bundleId == "com.example.chat")
        guard case .fcm(let fcm) = try harness.app.providers.credentials(appId: "app1", providerId: "fcm-1") else {
            Issue.record("no FCM credentials")
            return
        }
        #expect(fcm.projectId == "demo-project")
        #expect(fcm.notificationForCall == false)
    }

    @Test func providersConflictAndUpdate() async throws {
        let duplicate = try await harness.admin(
            "POST", "/notifications/push/v1/providers/apns", appId: "app1", Harness.apnsProvider("apns-1"))
        #expect(duplicate.status == 409)
        #expect(duplicate.errorCode == "ERR_PROVIDER_ALREADY_EXISTS")
        var changed = Harness.apnsProvider("apns-1")
        changed["production"] = true
        #expect(
            try await harness.admin("PUT", "/notifications/push/v1/providers/apns", appId: "app1", changed).data["production"] as? Bool
                == true)
        let missing = try await harness.admin("PUT", "/notifications/push/v1/providers/apns", appId: "app1", Harness.apnsProvider("nope"))
        #expect(missing.errorCode == "ERR_PROVIDER_NOT_FOUND")
        var notPEM = Harness.apnsProvider("apns-2")
        notPEM["p8Key"] = "hello"
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "app1", notPEM).status == 400)
    }

    @Test func secretBoxRejectsTamperingAndOtherContexts() async throws {
        let box = try SecretBox(key: Data(repeating: 1, count: 32))
        let sealed = try box.seal(Data("secret".utf8), context: "a")
        #expect(try box.open(sealed, context: "a") == Data("secret".utf8))
        #expect(throws: SecretBoxError.self) { try box.open(sealed, context: "b") }
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: SecretBoxError.self) { try box.open(tampered, context: "a") }
    }
}
