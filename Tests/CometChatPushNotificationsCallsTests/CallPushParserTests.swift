import Foundation
import Testing
@testable import CometChatPushNotificationsCalls

@Suite("Call push parsing")
struct CallPushParserTests {
    @Test("A complete call push reads every field")
    func completePush() throws {
        // Given
        let payload = callPush("initiated", session: "s9", from: "bob", name: "Bob B", type: "video", receiver: "alice")
        // When
        let push = CallPushParser.parse(payload)
        // Then
        #expect(push.problem == nil)
        #expect(push.action == .initiated)
        #expect(push.sessionId == "s9")
        #expect(push.callType == .video)
        #expect(push.callerUid == "bob")
        #expect(push.callerName == "Bob B")
        #expect(push.callerAvatar == URL(string: "https://example.com/bob.png"))
        #expect(push.receiver == "alice")
        #expect(!push.isGroup)
        let call = try #require(push.incomingCall(payload: payload, uuid: UUID()))
        #expect(call.rawPayload["callAction"] as? String == "initiated")
    }

    @Test("Group calls are recognised by conversationId or receiverType, and ring with the group's handle")
    func groupCalls() {
        let byConversation = CallPushParser.parse([
            "callAction": "initiated", "sessionId": "s", "sender": "bob", "receiver": "g1", "conversationId": "group_g1",
        ])
        #expect(byConversation.isGroup)
        #expect(byConversation.handle == "g1")
        let byType = CallPushParser.parse(["callAction": "initiated", "sessionId": "s", "receiverType": "GROUP", "receiver": "g2"])
        #expect(byType.isGroup)
    }

    @Test(
        "Numbers, older keys and odd casing are tolerated",
        arguments: [
            (PayloadCase("numbers and senderUid") { ["callAction": "INITIATED", "sessionId": 12345, "senderUid": "old"] }, "12345", "old"),
            (PayloadCase("padding and a numeric sender") { ["callAction": " initiated ", "sessionId": " s1 ", "sender": 7] }, "s1", "7"),
        ])
    func tolerant(payload: PayloadCase, session: String, caller: String) {
        let push = CallPushParser.parse(payload.make())
        #expect(push.problem == nil)
        #expect(push.sessionId == session)
        #expect(push.callerUid == caller)
        #expect(push.callType == .audio)
    }

    @Test(
        "Malformed pushes have a problem and never crash",
        arguments: [
            PayloadCase("empty") { [:] },
            PayloadCase("no session") { ["callAction": "initiated"] },
            PayloadCase("no action") { ["sessionId": "s1"] },
            PayloadCase("unknown action") { ["sessionId": "s1", "callAction": "teleport"] },
            PayloadCase("wrong types") { ["sessionId": ["nested": true], "callAction": ["initiated"]] },
            PayloadCase("blank session, script avatar") {
                ["sessionId": "   ", "callAction": "initiated", "senderAvatar": "javascript:alert(1)"]
            },
        ])
    func malformed(payload: PayloadCase) {
        let push = CallPushParser.parse(payload.make())
        #expect(push.problem != nil)
        #expect(push.callerAvatar == nil)
        #expect(!push.displayName.isEmpty)
    }
}
