import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// The configuration the call scenarios use.
func callsConfig(
    ownership: PNPushKitOwnership = .sdk, requestCallPermissions: Bool = true,
    branding: CallKitBranding = CallKitBranding(name: "Acme", iconTemplateImageName: "CallIcon", ringtone: "ring.caf"),
    callKitAvailability: PNCallKitAvailability = .automatic, missedCallNotifications: Bool = true
) -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: "apns-provider", callKit: branding,
        requestCallPermissions: requestCallPermissions, pushKitOwnership: ownership,
        callKitAvailability: callKitAvailability, missedCallNotifications: missedCallNotifications)
}

/// A VoIP push as the service sends it (Contract/WIRE-CONTRACT.md §4).
func callPush(
    _ action: String = "initiated", session: String = "s1", from sender: String = "bob", name: String = "Bob",
    type: String = "audio", receiver: String = "alice", group: Bool = false
) -> [AnyHashable: Any] {
    [
        "aps": [:] as [String: Any], "type": "call", "callAction": action, "sessionId": session, "callType": type,
        "sender": sender, "senderName": name, "senderAvatar": "https://example.com/\(sender).png",
        "receiver": receiver, "receiverType": group ? "group" : "user",
        "conversationId": group ? "group_\(receiver)" : "\(receiver)_user_\(sender)",
        "body": type == "video" ? "VIDEO CALL" : "AUDIO CALL",
    ]
}

/// A device with calls enabled, the app launched as the guide's AppDelegate does, and (by
/// default) alice logged in with a VoIP token registered.
struct CallsHarness {
    let device: SimulatedDevice
    let calls: SimulatedCalls
    let delegate = RecordingCallsDelegate()
    let app: SimulatedApp

    init(
        ownership: PNPushKitOwnership = .sdk, backgroundModes: Set<String> = ["remote-notification", "voip"],
        voipToken: Bool = true, loggedIn: Bool = true, requestCallPermissions: Bool = true, config: PNConfiguration? = nil,
        permission: PNNotificationPermission = .authorized, languages: [String]? = nil
    ) async {
        device = SimulatedDevice(
            permission: permission, promptAnswer: permission, backgroundModes: backgroundModes,
            clock: SimulatedClock(autoAdvanceLimit: 0))
        if let languages { device.preferredLanguages = languages }
        calls = device.calls
        if voipToken { calls.pushKit.issueToken(SimulatedDevice.token(0xA0)) }
        let delegate = self.delegate
        app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config ?? callsConfig(ownership: ownership, requestCallPermissions: requestCallPermissions))
        }
        if loggedIn { device.logInToChatSDK(uid: "alice", authToken: "alice-token") }
        await settle()
    }

    var sdk: CometChatPushNotifications { app.sdk }

    /// Lets CallKit's queue, the main queue and the SDK's work finish.
    func settle() async {
        for _ in 0..<3 {
            await calls.callKit.drain()
            #expect(await device.settle())
        }
    }

    /// Delivers a push and settles.
    @discardableResult
    func deliver(_ payload: [AnyHashable: Any]) async -> SimulatedVoIPDelivery {
        let delivery = calls.pushKit.deliver(payload)
        await settle()
        return delivery
    }

    /// Rings `payload` and declines it on the call screen, then settles.
    func ringAndDecline(_ payload: [AnyHashable: Any]) async {
        await deliver(payload)
        calls.callKit.decline()
        await settle()
    }

    /// Moves the device's clock (which does not move by itself here) and settles.
    func advance(by seconds: TimeInterval) async {
        device.clock.advance(by: seconds)
        await settle()
    }

    /// The status requests the service received, as (sessionId, status).
    var statusRequests: [String] {
        device.service.requests(.callStatus).map { "\($0.match?.parameter ?? "?") \($0.json["status"] ?? "?")" }
    }

    /// The VoIP rule held for every push so far, and nothing broke the contract.
    func expectRulesHeld(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(calls.kills == [], sourceLocation: sourceLocation)
        #expect(device.kills == [], sourceLocation: sourceLocation)
        #expect(device.violations == [], sourceLocation: sourceLocation)
        #expect(calls.callKit.violations == [], sourceLocation: sourceLocation)
        #expect(device.service.contractViolations == [], sourceLocation: sourceLocation)
        #expect(delegate.callbacksOffMain == 0, sourceLocation: sourceLocation)
        for delivery in calls.pushKit.deliveries {
            #expect(delivery.reportedInCallback || !delivery.mustReport, sourceLocation: sourceLocation)
            #expect(delivery.completedInOrder, sourceLocation: sourceLocation)
        }
    }

    /// Waits for `ensureRingReady`.
    func readiness() async -> PNRingReadiness? {
        let sdk = self.sdk
        let result: PNResult<PNRingReadiness> = await withCheckedContinuation { continuation in
            sdk.ensureRingReady { continuation.resume(returning: $0) }
        }
        return try? result.get()
    }
}

/// A payload built on demand, so payload tables can be test arguments.
struct PayloadCase: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () -> [AnyHashable: Any]
    init(_ name: String, _ make: @escaping @Sendable () -> [AnyHashable: Any]) {
        self.name = name
        self.make = make
    }
    var testDescription: String { name }
}
