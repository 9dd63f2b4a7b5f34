import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Revoking an auth token through the admin API (Contract/WIRE-CONTRACT.md §3): the push tokens
/// registered with it go in the same transaction, their queued jobs are skipped with the rule
/// `revoked` (log and trace), and a later send makes no job for them and says why, while the
/// user's other devices still get it. On SQLite, and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct RevokeTests {
    let harness: Harness
    let phone: Harness.TestSession
    let ipad: Harness.TestSession

    init() async throws {
        harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        _ = try await harness.makeUser("alice")
        phone = try await harness.makeUser("bob")
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: phone)
        try await harness.register("b0b0voip", platform: "apns_ios_voip", session: phone)
        try await harness.register("b0b0ipad", platform: "apns_ios_device", session: ipad)
    }

    func revokePhone() async throws -> RawHTTP.Response {
        try await harness.admin("DELETE", "/users/bob/auth_tokens/\(phone.authToken)", appId: "app1")
    }

    /// The trace of a send: per uid, the device tokens (hints) and the skip reasons.
    func trace(of sent: RawHTTP.Response) async throws -> [String: (devices: [String], skipped: [String])] {
        let requestId = try #require(sent.data["requestId"] as? String)
        let trace = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/trace", appId: "app1")
        #expect(trace.status == 200)
        var result: [String: (devices: [String], skipped: [String])] = [:]
        for recipient in trace.data["recipients"] as? [[String: Any]] ?? [] {
            let devices = (recipient["devices"] as? [[String: Any]] ?? []).map { $0["token"] as? String ?? "" }
            let skipped = (recipient["skipped"] as? [[String: Any]] ?? []).map { $0["reason"] as? String ?? "" }
            result[recipient["uid"] as? String ?? ""] = (devices, skipped)
        }
        return result
    }

    @Test func revokingTheSessionRemovesItsPushTokensAndSkipsTheirQueuedJobs() async throws {
        let queued = try await harness.send(MessageActionTests.message())
        #expect(queued.data["jobs"] as? Int == 2)

        let revoked = try await revokePhone()
        #expect(revoked.status == 200)
        #expect(revoked.data["revoked"] as? Int == 1)
        #expect(revoked.data["pushTokens"] as? Int == 2, "the phone's device and VoIP tokens")
        let tokens = try await harness.admin("GET", "/notifications/push/v1/tokens?uid=bob", appId: "app1")
        let left = (tokens.data["pushTokens"] as? [[String: Any]] ?? []).map { $0["pushToken"] as? String ?? "" }
        #expect(left == ["b0b0ipad"])

        // The phone's queued job is skipped (log and trace say why); the iPad's still goes.
        let requestId = try #require(queued.data["requestId"] as? String)
        let log = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/log", appId: "app1").dataArray
        let byToken = Dictionary(uniqueKeysWithValues: log.map { ($0["token"] as? String ?? "", $0) })
        #expect(byToken["b0b0phone"]?["state"] as? String == "skipped")
        #expect(byToken["b0b0phone"]?["rule"] as? String == "revoked")
        #expect(byToken["b0b0ipad"]?["state"] as? String == "pending")
        #expect(byToken["b0b0ipad"]?["rule"] is NSNull)
        let traced = try await trace(of: queued)
        #expect(traced["bob"]?.devices == ["b0b0ipad…"])
        #expect(traced["bob"]?.skipped == ["revoked"])
        let claimed = try harness.store.claimPushJobs(limit: 10, lease: 60, now: Date())
        #expect(claimed.map(\.token) == ["b0b0ipad"])

        // The phone's SDK finds its session gone: its next request is the logout answer.
        let next = try await harness.client("GET", "/notifications/push/v1/preferences", session: phone)
        #expect(next.status == 401 && next.errorCode == "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
        // Revoking it again: 404, nothing more happens.
        #expect(try await revokePhone().status == 404)
    }

    @Test func aSendAfterTheRevokeMakesNoJobForThePhoneAndSaysWhy() async throws {
        let before = try await harness.send(MessageActionTests.message())
        try harness.deliverPending()
        #expect(try await revokePhone().data["pushTokens"] as? Int == 2)

        let sent = try await harness.send(MessageActionTests.message(["id": "1043", "text": "Still there?"]))
        #expect(sent.data["jobs"] as? Int == 1)
        let recipient = (sent.data["recipients"] as? [[String: Any]])?.first
        #expect(recipient?["jobs"] as? Int == 1 && recipient?["rule"] == nil)
        let jobs = try await harness.jobs(of: sent)
        let queued = jobs.filter { $0["skipped"] as? Bool == false }.map { $0["token"] as? String ?? "" }
        #expect(queued == ["b0b0ipad"])
        let skipped = jobs.filter { $0["skipped"] as? Bool == true }
        #expect(skipped.map { $0["token"] as? String ?? "" } == ["b0b0phone"], "a chat never goes to the VoIP token anyway")
        #expect(skipped.map { $0["rule"] as? String ?? "" } == ["revoked"])
        let traced = try await trace(of: sent)
        #expect(traced["bob"]?.devices == ["b0b0ipad…"])
        #expect(traced["bob"]?.skipped == ["revoked"])
        #expect(try harness.store.claimPushJobs(limit: 10, lease: 60, now: Date()).map(\.token) == ["b0b0ipad"])

        // A call: the phone's VoIP token is the one recorded as revoked; the iPad rings as an alert.
        let call: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob"]],
            "call": [
                "sessionId": "call-1", "callAction": "initiated", "sender": ["uid": "alice"], "receiver": ["uid": "bob"],
                "sentAt": Int64(Date().timeIntervalSince1970 * 1000),
            ] as [String: Any],
        ]
        let rang = try await harness.jobs(of: try await harness.send(call))
        #expect(rang.filter { $0["skipped"] as? Bool == false }.map { $0["token"] as? String ?? "" } == ["b0b0ipad"])
        #expect(rang.filter { $0["skipped"] as? Bool == true }.map { $0["token"] as? String ?? "" } == ["b0b0voip"])

        // An edit of the message the phone got goes to the iPad only.
        let edit = try await harness.send(MessageActionTests.message(MessageActionTests.edit))
        #expect(try await harness.jobs(of: edit).map { $0["token"] as? String ?? "" } == ["b0b0ipad"])
        _ = before

        // Bob signs in on the phone again: its token is his again, and sends reach it.
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        let again = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await harness.register("b0b0phone", platform: "apns_ios_device", session: again)
        let back = try await harness.send(MessageActionTests.message(["id": "1044"]))
        #expect(back.data["jobs"] as? Int == 2)
        #expect(try await harness.jobs(of: back).allSatisfy { $0["skipped"] as? Bool == false })
    }

    @Test func revokingAllOfAUsersAuthTokensRemovesAllTheirPushTokens() async throws {
        let carol = try await harness.makeUser("carol")
        try await harness.register("ca01phone", platform: "apns_ios_device", session: carol)
        try await harness.send(MessageActionTests.message(to: ["bob", "carol"]))
        let revoked = try await harness.admin("DELETE", "/users/bob/auth_tokens", appId: "app1")
        #expect(revoked.status == 200)
        #expect(revoked.data["revoked"] as? Int == 2)
        #expect(revoked.data["pushTokens"] as? Int == 3)
        #expect(try harness.store.tokens(appId: "app1", uid: "bob").isEmpty)
        #expect(try harness.store.tokens(appId: "app1", uid: "carol").map(\.token) == ["ca01phone"])
        #expect(try harness.store.claimPushJobs(limit: 10, lease: 60, now: Date()).map(\.token) == ["ca01phone"])
        // A user without auth tokens: nothing to revoke.
        let none = try await harness.admin("DELETE", "/users/bob/auth_tokens", appId: "app1")
        #expect(none.data["revoked"] as? Int == 0 && none.data["pushTokens"] as? Int == 0)
    }

    /// A job being sent when its token is revoked is left to its sender (only queued jobs are
    /// skipped); on PostgreSQL its queue row keeps its lease.
    @Test func aJobBeingSentIsLeftToItsSender() async throws {
        try await harness.send(MessageActionTests.message())
        let leased = try harness.store.claimPushJobs(limit: 10, lease: 60, now: Date())
        #expect(leased.count == 2)
        #expect(try await revokePhone().data["pushTokens"] as? Int == 2)
        #expect(try harness.store.activePushJobCounts().inFlight == 2)
        try harness.store.finishPushJobs(leased.map { (id: $0.id, outcome: JobOutcome.delivered) }, now: Date())
        #expect(try harness.store.pushJobCounts().delivered == 2)
    }
}
