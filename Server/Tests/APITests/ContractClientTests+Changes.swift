import Foundation
import PushTestSupport
import Testing

extension ContractClientTests {
    /// The changes of `Contract/client/changes.json`, made for alice after a cursor, which this
    /// returns: message 1042 edited, 1043 deleted (both pushed to alice's phone first), then the
    /// conversation read, at the fixture's times.
    func changesOfAlice() async throws -> String {
        let now = try await harness.client("GET", "/notifications/push/v1/changes", session: session)
        #expect(now.status == 200)
        let cursor = try #require(now.data["cursor"] as? String)
        #expect(try await harness.register("a1ce0002", platform: "apns_ios_device", session: session).status == 200)
        func send(_ id: String, _ extra: [String: Any]) async throws {
            var message: [String: Any] = [
                "id": id, "sender": ["uid": "alice", "name": "Alice"], "receiver": ["uid": "bob", "name": "Bob"], "text": "See you at 5",
            ]
            message.merge(extra) { $1 }
            let sent = try await harness.admin(
                "POST", "/notifications/push/v1/send", appId: session.appId,
                ["type": "chat", "recipients": [["uid": session.uid]], "message": message])
            #expect(sent.status == 200, "\(sent.json)")
        }
        try await send("1042", [:])
        try await send("1043", [:])
        try await send("1042", ["action": "edited", "text": "See you at 6", "sentAt": 1_732_900_060_000])
        try await send("1043", ["action": "deleted", "sentAt": 1_732_900_070_000])
        pinnedNow.withLock { $0 = Date(timeIntervalSince1970: 1_732_900_080) }
        defer { pinnedNow.withLock { $0 = nil } }
        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: session, ["receiverType": "user", "receiver": "bob", "unreadCount": 0])
        #expect(read.status == 200)
        return cursor
    }
}
