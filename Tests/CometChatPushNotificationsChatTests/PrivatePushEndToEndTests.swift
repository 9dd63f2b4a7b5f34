import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// Issue 28 end to end, on the setup of ``SimulatedE2E``: one household in a `standard` app and
/// one in a `private` app of the same `push-server`, each sent the same message, an edit of it
/// and a call. The private app's requests at the mock APNs (bodies and headers, as logged) hold
/// none of the people's uids or names, the text, the avatar URL, the conversation id or the
/// call's session id; its devices register their keys through the SDK, open every push (the
/// Notification Service Extension, the app for an edit, PushKit for a call) and show, ring and
/// report exactly what the standard household's devices do.
@Suite("Simulated end to end: private push", .serialized, .enabled(if: SimulatedE2E.isConfigured))
struct PrivatePushEndToEndTests {
    /// What one household's devices made of the same pushes.
    struct Observed: Equatable {
        var extensionTitles: [String?] = []
        var extensionBodies: [String?] = []
        var avatars: [Bool] = []
        var receipts: [String] = []
        var tappedSender: String?
        var tappedBody: String?
        var edits: [String] = []
        var callerNames: [String] = []
    }

    /// Sends the same things to `house` as to every other household of the test: a message with
    /// the sender's avatar, a tap on it, an edit of it, a call. Returns what the devices did and
    /// the strings that name someone or something in it.
    static func exercise(_ house: Household, run: String) async throws -> (Observed, [String]) {
        let avatar = "https://media.example.com/avatars/\(house.bob)-\(run).png"
        for device in house.devices { device.nse.media.serve(avatar, .jpeg()) }
        let messageId = "m-\(run)-" + UUID().uuidString.prefix(8).lowercased()
        let text = "Meet me at the old lighthouse \(run) at six"
        let edited = "Meet me at the harbour \(run) at seven"
        let senderName = "Bartholomew Quince"
        let sessionId = "call-\(run)-" + UUID().uuidString.prefix(8).lowercased()
        func message(_ body: String, action: String? = nil) -> [String: Any] {
            var message: [String: Any] = [
                "id": messageId, "text": body, "receiverType": "user",
                "sender": ["uid": house.bob, "name": senderName, "avatar": avatar],
                "receiver": ["uid": house.alice, "name": "Alice Marchbanks"],
            ]
            if let action { message["action"] = action }
            return ["type": "chat", "recipients": [["uid": house.alice, "badge": 1]], "message": message]
        }
        var observed = Observed()

        // The message: shown by each device's extension, with the avatar and a delivered receipt.
        let sent = try await house.send(message(text), messageId: messageId)
        let pushes = try await house.deliver(sent)
        #expect(pushes.count == 2)
        for push in pushes.sorted(by: { $0.token < $1.token }) {
            let run = try #require(house.extensionRun(push.apnsId), "the extension did not run for \(push.apnsId)")
            observed.extensionTitles.append(run.title)
            observed.extensionBodies.append(run.body)
            observed.avatars.append(run.content?.sender?.avatar != nil)
            observed.receipts.append(run.receipt.map { "\($0)" } ?? "none")
        }

        // A tap on the iPad's notification: the app's delegate gets the whole message.
        let onTablet = try #require(house.tablet.shown.first)
        house.tablet.device.tap(onTablet)
        #expect(await house.tablet.device.settle())
        let tapped = house.tablet.delegate.tappedInfos.last
        observed.tappedSender = tapped?.senderName
        observed.tappedBody = tapped?.body

        // The edit: a background push that the app opens and applies.
        try await house.waitDelivered(sent)
        let edit = try await house.send(message(edited, action: "edited"), messageId: messageId)
        try await house.deliver(edit)
        try await SimulatedE2E.wait("the edit applied on the phone") {
            house.phone.delegate.messageChanges.contains { $0.messageId == messageId }
        }
        observed.edits = house.phone.delegate.messageChanges.filter { $0.messageId == messageId }.map { $0.body ?? "?" }

        // The call: PushKit reports it to CallKit with the caller's name.
        let call = try await house.send(
            [
                "type": "call", "recipients": [["uid": house.alice]],
                "call": [
                    "sessionId": sessionId, "callAction": "initiated", "callType": "audio", "receiverType": "user",
                    "sender": ["uid": house.bob, "name": senderName, "avatar": avatar],
                    "receiver": ["uid": house.alice, "name": "Alice Marchbanks"],
                ],
            ], messageId: sessionId)
        let ring = try await house.deliver(call)
        #expect(ring.map(\.pushType) == ["voip"])
        observed.callerNames = house.phone.device.calls.callKit.reports.map(\.report.callerName)
        house.expectRulesHeld()

        let conversation = [house.alice, house.bob].sorted().joined(separator: "_user_")
        let named = [
            house.alice, house.bob, senderName, "Marchbanks", text, edited, "old lighthouse", "harbour", avatar, messageId, sessionId,
            conversation,
        ]
        return (observed, named)
    }

    @Test("A private app's pushes name nobody at APNs, and its devices show, ring and report as a standard app's")
    func privateAsStandard() async throws {
        let standard = try await Household.make()
        let (expected, _) = try await Self.exercise(standard, run: "std")
        #expect(expected.extensionBodies.allSatisfy { $0?.contains("old lighthouse") == true }, "\(expected)")
        #expect(expected.callerNames == ["Bartholomew Quince"])

        let house = try await Household.make(privacy: "private")
        // Every token of the private household was registered with its key.
        let listed = try #require(
            try await house.admin.object("GET", "/notifications/push/v1/tokens?uid=\(house.alice)")["pushTokens"] as? [[String: Any]])
        #expect(listed.count == 3 && listed.allSatisfy { $0["encrypted"] as? Bool == true }, "\(listed)")
        let (observed, named) = try await Self.exercise(house, run: "prv")
        #expect(
            observed
                == Observed(
                    extensionTitles: expected.extensionTitles,
                    extensionBodies: expected.extensionBodies.map { $0?.replacingOccurrences(of: "std", with: "prv") },
                    avatars: expected.avatars, receipts: expected.receipts, tappedSender: expected.tappedSender,
                    tappedBody: expected.tappedBody?.replacingOccurrences(of: "std", with: "prv"),
                    edits: expected.edits.map { $0.replacingOccurrences(of: "std", with: "prv") }, callerNames: expected.callerNames))

        // What Apple saw: every request to the private household's tokens, as the mock logged it
        // (body and headers), names nothing of the conversation, and carries `enc`.
        let tokens = Set(house.devices.flatMap { [$0.apnsToken, $0.voipToken].compactMap { $0 } })
        let requests = house.apnsRequests
        #expect(requests.count >= 5, "the message to two devices, the edit to two, the call")
        #expect(requests.allSatisfy { $0.payload["enc"] is String }, "\(requests.map(\.payload))")
        let lines = try String(contentsOf: house.environment.apnsLog, encoding: .utf8).split(separator: "\n")
            .filter { line in tokens.contains { line.contains($0) } }
        #expect(lines.count == requests.count)
        for line in lines {
            for name in named { #expect(!line.contains(name), "APNs saw \"\(name)\": \(line)") }
        }
        // The standard household's requests, for contrast, do name them.
        let standardText = try String(contentsOf: standard.environment.apnsLog, encoding: .utf8)
        #expect(standardText.contains("old lighthouse std"))
    }
}
