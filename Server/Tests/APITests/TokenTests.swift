import Foundation
import PushCore
import PushTestSupport
import Testing

/// Token limits, re-registration, moves between users and unregistering, over HTTP.
@Suite struct TokenTests {
    let harness: Harness
    let alice: Harness.TestSession
    let bob: Harness.TestSession

    init() async throws {
        harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        alice = try await harness.makeUser("alice")
        bob = try await harness.makeUser("bob")
    }

    func tokens(_ uid: String? = nil) async throws -> [[String: Any]] {
        let path = "/notifications/push/v1/tokens" + (uid.map { "?uid=\($0)" } ?? "")
        return try await harness.admin("GET", path, appId: "app1").data["pushTokens"] as? [[String: Any]] ?? []
    }

    @Test func sameTokenAgainIsUpdatedNotDuplicated() async throws {
        try await harness.register("aaaa", platform: "apns_ios_device", session: alice)
        let again = try await harness.client(
            "POST", "/notifications/push/v1/tokens", session: alice,
            ["fcmToken": "aaaa", "platform": "apns_ios_device", "providerId": "apns-1", "timezone": "Asia/Tokyo"])
        #expect(again.status == 200)
        let list = try await tokens("alice")
        #expect(list.count == 1)
        #expect(list.first?["timezone"] as? String == "Asia/Tokyo")
    }

    /// The optional `environment` field (the SDK reads `aps-environment` from the app's
    /// provisioning profile) is stored, kept by a later registration without it, shown to the
    /// admin API, and copied into the token's jobs.
    @Test func theTokensEnvironmentIsStoredAndReachesItsJobs() async throws {
        let first = try await harness.client(
            "POST", "/notifications/push/v1/tokens", session: alice,
            ["fcmToken": "e0e0", "platform": "apns_ios_device", "providerId": "apns-1", "environment": "production"])
        #expect(first.status == 200)
        #expect(first.data["environment"] as? String == "production")
        try await harness.register("e0e0", platform: "apns_ios_device", session: alice)
        #expect(try await tokens("alice").first?["environment"] as? String == "production")
        for bad: [String: Any] in [
            ["fcmToken": "e0e1", "platform": "apns_ios_device", "providerId": "apns-1", "environment": "staging"],
            ["fcmToken": "e0e2", "platform": "fcm_ios", "providerId": "fcm-1", "environment": "sandbox"],
        ] {
            let refused = try await harness.client("POST", "/notifications/push/v1/tokens", session: alice, bad)
            #expect(refused.status == 400)
        }
        let send: [String: Any] = [
            "type": "chat", "recipients": [["uid": "alice"]],
            "message": ["id": "m1", "sender": ["uid": "bob"], "receiver": ["uid": "alice"], "text": "hi"],
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", send).status == 200)
        #expect(try harness.store.allPushJobs().map(\.environment) == [.production])
    }

    @Test func pushTokenIsAnAliasOfFcmToken() async throws {
        let response = try await harness.client(
            "POST", "/notifications/push/v1/tokens", session: alice,
            ["pushToken": "bbbb", "platform": "apns_ios_voip", "providerId": "apns-1"])
        #expect(response.status == 200)
        #expect(response.data["pushToken"] as? String == "bbbb")
        #expect(try await tokens("alice").first?["pushTokenType"] as? String == "voip")
    }

    @Test func tokenRegisteredByAnotherUserMovesToThem() async throws {
        try await harness.register("shared-device", platform: "apns_ios_device", session: alice)
        try await harness.register("shared-device", platform: "apns_ios_device", session: bob)
        #expect(try await tokens("alice").isEmpty)
        #expect(try await tokens("bob").map { $0["pushToken"] as? String } == ["shared-device"])
        // Alice logging out does not remove Bob's token.
        _ = try await harness.client("DELETE", "/notifications/push/v1/tokens", session: alice)
        #expect(try await tokens("bob").count == 1)
    }

    @Test func hundredAndFirstTokenDropsTheOldest() async throws {
        for index in 0..<101 {
            let response = try await harness.register(String(format: "tok%04d", index), platform: "apns_ios_device", session: alice)
            #expect(response.status == 200)
        }
        let list = try await tokens("alice").compactMap { $0["pushToken"] as? String }
        #expect(list.count == 100)
        #expect(!list.contains("tok0000"))
        #expect(list.contains("tok0001"))
        #expect(list.contains("tok0100"))
    }

    @Test func tokenLengthLimitIs4096Characters() async throws {
        let longest = String(repeating: "f", count: 4_096)
        #expect(try await harness.register(longest, platform: "fcm_ios", session: alice).status == 200)
        let tooLong = try await harness.register(longest + "f", platform: "fcm_ios", session: alice)
        #expect(tooLong.status == 400)
        #expect(tooLong.errorCode == "ERR_BAD_REQUEST")
        #expect(((tooLong.json["error"] as? [String: Any])?["details"] as? [String: String])?["fcmToken"] == "too long")
    }

    @Test func unregisterRemovesOnlyThisSessionsTokens() async throws {
        let secondSession = try await harness.admin("POST", "/users/alice/auth_tokens", appId: "app1").data["authToken"] as? String ?? ""
        let other = Harness.TestSession(appId: "app1", uid: "alice", authToken: secondSession)
        try await harness.register("phone", platform: "apns_ios_device", session: alice)
        try await harness.register("phone-voip", platform: "apns_ios_voip", session: alice)
        try await harness.register("tablet", platform: "apns_ios_device", session: other)
        let response = try await harness.client("DELETE", "/notifications/push/v1/tokens", session: alice)
        #expect(response.status == 200)
        #expect(response.data["deleted"] as? Int == 2)
        #expect(try await tokens("alice").map { $0["pushToken"] as? String } == ["tablet"])
    }

    @Test func adminDeletesOneToken() async throws {
        try await harness.register("gone-soon", platform: "apns_ios_device", session: alice)
        #expect(try await harness.admin("DELETE", "/notifications/push/v1/tokens/gone-soon", appId: "app1").status == 200)
        let again = try await harness.admin("DELETE", "/notifications/push/v1/tokens/gone-soon", appId: "app1")
        #expect(again.status == 404)
        #expect(again.errorCode == "ERR_TOKEN_NOT_FOUND")
    }

    @Test func adminListingHasTheContractFields() async throws {
        try await harness.register("abcdef", platform: "fcm_ios", session: alice)
        let token = try #require(try await tokens().first)
        for key in ["uid", "authToken", "platform", "providerId", "pushToken", "pushTokenType", "createdAt", "updatedAt"] {
            #expect(token[key] != nil, "missing \(key)")
        }
        // The listing carries a hint, never the auth token itself.
        #expect(token["authToken"] as? String != alice.authToken)
    }
}
