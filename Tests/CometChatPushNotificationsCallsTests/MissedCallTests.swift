import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// Missed calls (issue 29, part 3): a call that rang here and ended unanswered leaves one
/// "Missed call" notification whose tap and Call back reach `callBack(_:)`.
@Suite("Missed calls")
struct MissedCallTests {
    /// The missed-call notifications the SDK asked for.
    func missedRequests(_ h: CallsHarness) -> [PNLocalNotificationRequest] {
        h.device.notificationCenter.localRequests.filter {
            $0.categoryIdentifier == CometChatPushNotificationsCalls.missedCallCategoryIdentifier
        }
    }

    /// The missed-call notifications in Notification Center.
    func missedShown(_ h: CallsHarness) -> [SimulatedShownNotification] {
        h.device.notificationCenter.shown.filter {
            $0.notification.categoryIdentifier == CometChatPushNotificationsCalls.missedCallCategoryIdentifier
        }
    }

    /// Rings `session` and lets it ring out (45 s).
    func ringOut(_ h: CallsHarness, _ payload: [AnyHashable: Any]) async {
        await h.deliver(payload)
        await h.advance(by: 45)
    }

    /// A private app's call push to a VoIP token registered without a key: it names no caller.
    func keylessPrivateCallPush(session: String) throws -> [AnyHashable: Any] {
        var standard: [String: Any] = [:]
        for (key, value) in callPush(session: session) { if let key = key as? String { standard[key] = value } }
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in try SimulatedPrivatePush.voip(standard, for: nil) { userInfo[key] = value }
        return userInfo
    }

    /// The call's alert push, as the service sends it to an alert token (Contract/payloads/
    /// call-initiated-alert.json), for the harness's caller and callee.
    func alertPush(session: String) -> [String: Any] {
        [
            "aps": ["alert": ["title": "Bob", "body": "AUDIO CALL"], "sound": "default", "thread-id": "alice_user_bob"] as [String: Any],
            "type": "call", "callAction": "initiated", "sessionId": session, "tag": session, "callType": "audio",
            "sender": "bob", "senderName": "Bob", "receiver": "alice", "receiverType": "user",
            "conversationId": "alice_user_bob", "body": "AUDIO CALL",
        ]
    }

    @Test("Nobody answers: one missed-call notification from the caller, whose Call back reaches callBack")
    func ringTimeout() async throws {
        let h = await CallsHarness()
        await ringOut(h, callPush(session: "s1", from: "bob", name: "Bob", type: "video"))
        #expect(h.delegate.endReasons == [.timedOut])
        let request = try #require(missedRequests(h).first)
        #expect(missedRequests(h).count == 1)
        #expect(request.identifier == "s1", "the call's alert collapse id")
        #expect(request.title == "Bob")
        #expect(request.body == "Missed video call")
        #expect(request.threadIdentifier == "bob", "grouped by caller")
        #expect(request.categoryIdentifier == "MissedCallCategory")
        let shown = try #require(missedShown(h).first)
        #expect(missedShown(h).count == 1)
        #expect(shown.title == "Bob" && shown.body == "Missed video call" && shown.isLocal)
        // When the user chooses Call back
        let response = try h.device.perform(CometChatPushNotificationsCalls.callBackActionIdentifier, on: shown.notification)
        await h.settle()
        #expect(response.completionCalls == 1)
        let call = try #require(h.delegate.calledBack.first)
        #expect(h.delegate.calledBack.count == 1)
        #expect(call.sessionId == "s1" && call.callerUid == "bob" && call.callerName == "Bob")
        #expect(call.receiver == "alice" && call.callType == .video && call.isVideo && !call.isGroup)
        #expect(h.delegate.events.contains(.product("callBack s1")))
        #expect(!h.delegate.events.contains { if case .tapped = $0 { return true } else { return false } }, "not a tap for Core")
        h.expectRulesHeld()
    }

    @Test("A tap on the missed-call notification reaches callBack too")
    func tapCallsBack() async throws {
        let h = await CallsHarness()
        await ringOut(h, callPush(session: "s1", type: "audio"))
        let shown = try #require(missedShown(h).first)
        h.app.sendToBackground()
        let response = h.device.tap(shown.notification)
        await h.settle()
        #expect(response.completionCalls == 1)
        #expect(h.delegate.calledBack.map(\.sessionId) == ["s1"])
        #expect(h.delegate.calledBack.first?.callType == .audio)
        #expect(h.delegate.events.filter { if case .tapped = $0 { return true } else { return false } }.isEmpty)
        h.expectRulesHeld()
    }

    @Test("A tap that launches the app reaches callBack once a Calls delegate is set, exactly once")
    func launchingTapIsHeld() async throws {
        let h = await CallsHarness()
        await ringOut(h, callPush(session: "s1"))
        let shown = try #require(missedShown(h).first)
        h.device.terminate()
        let response = h.device.tap(shown.notification) { sdk in sdk.initialize(config: callsConfig()) }
        #expect(await h.device.settle())
        #expect(response.receivedBy == .sdk && response.completionCalls == 1)
        let late = RecordingCallsDelegate()
        let sdk = try #require(h.device.app?.sdk)
        sdk.delegate = late
        #expect(await h.device.settle())
        sdk.delegate = late
        #expect(await h.device.settle())
        #expect(late.calledBack.map(\.sessionId) == ["s1"])
        #expect(late.callbacksOffMain == 0)
    }

    @Test("The caller cancels before anyone answers: one missed-call notification")
    func callerCancels() async throws {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1", name: "Bob"))
        await h.deliver(callPush("cancelled", session: "s1"))
        #expect(h.delegate.endReasons == [.cancelled])
        #expect(missedRequests(h).map(\.title) == ["Bob"])
        #expect(missedShown(h).count == 1)
        h.expectRulesHeld()
    }

    /// Endings that are not missed calls.
    enum Ending: String, CaseIterable, Sendable {
        case declinedHere, declinedInApp, declinedElsewhere, answeredElsewhere, answeredThenEndedByCaller, answeredThenHungUp,
            failed
    }

    @Test("No missed-call notification for a call declined, answered, or failed", arguments: Ending.allCases)
    func notMissed(_ ending: Ending) async throws {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        switch ending {
        case .declinedHere:
            h.calls.callKit.decline()
        case .declinedInApp:
            h.sdk.calls.decline(sessionId: "s1")
        case .declinedElsewhere:
            await h.deliver(callPush("rejected", session: "s1"))
        case .answeredElsewhere:
            await h.deliver(callPush("ongoing", session: "s1"))
        case .answeredThenEndedByCaller:
            h.calls.callKit.answer()
            await h.settle()
            await h.deliver(callPush("ended", session: "s1"))
        case .answeredThenHungUp:
            h.calls.callKit.answer()
            await h.settle()
            h.calls.callKit.hangUp()
        case .failed:
            h.sdk.calls.reportCallEnded(sessionId: "s1", reason: .failed)
        }
        await h.settle()
        await h.advance(by: 120)
        #expect(h.delegate.endReasons.count == 1)
        #expect(!h.delegate.endReasons.contains(.timedOut) && !h.delegate.endReasons.contains(.cancelled))
        #expect(missedRequests(h).isEmpty)
        #expect(missedShown(h).isEmpty)
        h.expectRulesHeld()
    }

    @Test("A second call turned away busy (the first still rings) leaves no missed-call notification")
    func busy() async {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        await h.deliver(callPush(session: "s2", from: "carol", name: "Carol"))
        #expect(h.delegate.endReasons == [.busy])
        #expect(h.statusRequests == ["s2 busy"])
        #expect(missedRequests(h).isEmpty)
        h.expectRulesHeld()
    }

    @Test("A call waiting beside an answered call that nobody answers is a missed call; the answered one is not")
    func waitingRingsOut() async throws {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        h.calls.callKit.answer()
        await h.settle()
        await ringOut(h, callPush(session: "s2", from: "carol", name: "Carol"))
        #expect(h.delegate.endReasons == [.timedOut])
        let request = try #require(missedRequests(h).first)
        #expect(missedRequests(h).count == 1)
        #expect(request.identifier == "s2" && request.title == "Carol" && request.threadIdentifier == "carol")
        #expect(h.calls.callKit.activeCalls.count == 1, "the answered call goes on")
        h.expectRulesHeld()
    }

    @Test("missedCallNotifications off: no notification and no category")
    func optionOff() async {
        let h = await CallsHarness(config: callsConfig(missedCallNotifications: false))
        await ringOut(h, callPush(session: "s1"))
        await h.deliver(callPush(session: "s2"))
        await h.deliver(callPush("cancelled", session: "s2"))
        #expect(h.delegate.endReasons == [.timedOut, .cancelled])
        #expect(missedRequests(h).isEmpty)
        #expect(h.device.notificationCenter.categories.map(\.identifier) == [CometChatPushNotifications.messageCategoryIdentifier])
        h.expectRulesHeld()
    }

    @Test(
        "Notifications not allowed: nothing is posted and the log says why", arguments: [PNNotificationPermission.denied, .notDetermined])
    func permissionDenied(_ permission: PNNotificationPermission) async {
        let h = await CallsHarness(permission: permission)
        await ringOut(h, callPush(session: "s1"))
        #expect(h.delegate.endReasons == [.timedOut])
        #expect(missedRequests(h).isEmpty)
        #expect(h.device.logger.all.contains { $0.contains("notification permission is \(permission.rawValue)") })
        h.expectRulesHeld()
    }

    @Test("After initialize the categories are MessageCategory and MissedCallCategory with its Call back button")
    func categories() throws {
        let device = SimulatedDevice(permission: .authorized, backgroundModes: ["remote-notification", "voip"])
        _ = device.calls
        device.launch { sdk in sdk.initialize(config: callsConfig()) }
        let categories = device.notificationCenter.categories
        #expect(categories.map(\.identifier) == ["MessageCategory", "MissedCallCategory"])
        #expect(categories.first?.actions.first?.kind == .textInput(buttonTitle: "Send", placeholder: "Message"))
        let callBack = try #require(categories.last?.actions.first)
        #expect(categories.last?.actions.count == 1)
        #expect(callBack.identifier == CometChatPushNotificationsCalls.callBackActionIdentifier && callBack.title == "Call back")
        #expect(callBack.kind == .button && callBack.options == [.foreground])
        #expect(device.notificationCenter.categorySetCount == 2, "MessageCategory first, so a launching tap is never lost")
    }

    @Test("A call that also alerted on an alert token leaves one notification, whichever comes first", arguments: [true, false])
    func alertAndMissedCall(_ alertFirst: Bool) async throws {
        let h = await CallsHarness()
        h.app.sendToBackground()
        if alertFirst { h.device.deliver(alertPush(session: "s1"), collapseId: "s1") }
        await ringOut(h, callPush(session: "s1", name: "Bob"))
        if !alertFirst { h.device.deliver(alertPush(session: "s1"), collapseId: "s1") }
        await h.settle()
        #expect(missedRequests(h).count == 1)
        #expect(h.device.notificationCenter.shown.count == 1)
        #expect(h.device.notificationCenter.duplicates.isEmpty)
        if alertFirst {
            // The missed call replaced the alert that rang.
            let shown = try #require(missedShown(h).first)
            #expect(shown.title == "Bob" && shown.body == "Missed audio call")
        }
        h.expectRulesHeld()
    }

    @Test("A session id over 64 bytes: the identifier is the alert's derived collapse id (sha256- and base64url SHA-256)")
    func longSessionId() async throws {
        let session = "v1.us.group-call-" + String(repeating: "7f3a", count: 16)
        let collapseId = "sha256-5SUnCgxYMw1lZb3m_7ts7_wLPjHPcmMLHUPuzPs1kCA"
        let h = await CallsHarness()
        h.app.sendToBackground()
        h.device.deliver(alertPush(session: session), collapseId: collapseId)
        await ringOut(h, callPush(session: session))
        #expect(missedRequests(h).map(\.identifier) == [collapseId])
        #expect(h.device.notificationCenter.shown.count == 1 && missedShown(h).count == 1)
        // 64 bytes exactly is the session id itself.
        let sixtyFour = String(repeating: "x", count: 64)
        await ringOut(h, callPush(session: sixtyFour, from: "carol", name: "Carol"))
        #expect(missedRequests(h).last?.identifier == sixtyFour)
        h.expectRulesHeld()
    }

    @Test("A group call says so and names the group")
    func groupCall() async throws {
        let h = await CallsHarness()
        var push = callPush(session: "g1", from: "bob", name: "Bob", receiver: "team", group: true)
        push["receiverName"] = "Team Rocket"
        await ringOut(h, push)
        let request = try #require(missedRequests(h).first)
        #expect(request.title == "Bob" && request.body == "Missed group audio call in Team Rocket")
        #expect(request.threadIdentifier == "bob")
        let shown = try #require(missedShown(h).first)
        try h.device.perform(CometChatPushNotificationsCalls.callBackActionIdentifier, on: shown.notification)
        await h.settle()
        let call = try #require(h.delegate.calledBack.first)
        #expect(call.isGroup && call.receiver == "team" && call.callerUid == "bob")
        h.expectRulesHeld()
    }

    @Test("Two missed calls from one caller are grouped in the caller's thread")
    func groupedByCaller() async {
        let h = await CallsHarness()
        await ringOut(h, callPush(session: "s1", from: "bob", name: "Bob"))
        await ringOut(h, callPush(session: "s2", from: "bob", name: "Bob", type: "video"))
        await ringOut(h, callPush(session: "s3", from: "carol", name: "Carol"))
        #expect(missedRequests(h).map(\.identifier) == ["s1", "s2", "s3"])
        #expect(missedRequests(h).map(\.threadIdentifier) == ["bob", "bob", "carol"])
        #expect(missedShown(h).count == 3)
        h.expectRulesHeld()
    }

    @Test("In a private app the notification names the decrypted caller")
    func privateCaller() async throws {
        let h = await CallsHarness(config: privateCallsConfig())
        let keys = try #require(h.device.service.encryptionKeys(token: PNHex.string(SimulatedDevice.token(0xA0))))
        var standard: [String: Any] = [:]
        for (key, value) in callPush(session: "s1", from: "bob", name: "Bob", type: "video") {
            if let key = key as? String { standard[key] = value }
        }
        let push = try SimulatedPrivatePush.voip(standard, for: keys)
        #expect(push["senderName"] == nil)
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in push { userInfo[key] = value }
        await ringOut(h, userInfo)
        let request = try #require(missedRequests(h).first)
        #expect(request.title == "Bob" && request.body == "Missed video call" && request.threadIdentifier == "bob")
        #expect(request.identifier == "s1")
        let shown = try #require(missedShown(h).first)
        h.device.tap(shown.notification)
        await h.settle()
        #expect(h.delegate.calledBack.map(\.callerName) == ["Bob"])
        h.expectRulesHeld()
    }

    @Test("The notification and its Call back button are in the device's language (the first one with texts)")
    func inTheDevicesLanguage() async throws {
        let h = await CallsHarness(languages: ["ja-JP", "de-CH", "en"])
        let callBack = try #require(h.device.notificationCenter.categories.last?.actions.first)
        #expect(callBack.title == "Zurückrufen", "no texts in Japanese: German, the next language")
        await ringOut(h, callPush(session: "s1", from: "bob", name: "Bob", type: "video"))
        var push = callPush(session: "g1", from: "bob", name: "Bob", receiver: "team", group: true)
        push["receiverName"] = "Team Rocket"
        await ringOut(h, push)
        #expect(missedRequests(h).map(\.title) == ["Bob", "Bob"])
        #expect(missedRequests(h).map(\.body) == ["Verpasster Videoanruf", "Verpasster Gruppen-Audioanruf in Team Rocket"])
        #expect(missedShown(h).map(\.body) == ["Verpasster Videoanruf", "Verpasster Gruppen-Audioanruf in Team Rocket"])
        // Call back reaches the delegate as in English.
        try h.device.perform(CometChatPushNotificationsCalls.callBackActionIdentifier, on: try #require(missedShown(h).first).notification)
        await h.settle()
        #expect(h.delegate.calledBack.map(\.sessionId) == ["s1"])
        h.expectRulesHeld()
    }

    @Test("A keyless private call on a French device: \"Appel manqué\", also as the missed call's caller name")
    func keylessCallerInFrench() async throws {
        let h = await CallsHarness(config: privateCallsConfig(), languages: ["fr-CA"])
        await ringOut(h, try keylessPrivateCallPush(session: "s1"))
        let request = try #require(missedRequests(h).first)
        #expect(request.title == "Appel manqué" && request.body == "Appel audio manqué")
        h.device.tap(try #require(missedShown(h).first).notification)
        await h.settle()
        #expect(h.delegate.calledBack.map(\.callerName) == ["Appel manqué"])
        h.expectRulesHeld()
    }

    @Test("A keyless private call names no caller: the notification says \"Missed call\"")
    func keylessCaller() async throws {
        let h = await CallsHarness(config: privateCallsConfig())
        await ringOut(h, try keylessPrivateCallPush(session: "s1"))
        let request = try #require(missedRequests(h).first)
        #expect(request.title == "Missed call" && request.threadIdentifier == nil)
        h.expectRulesHeld()
    }
}
