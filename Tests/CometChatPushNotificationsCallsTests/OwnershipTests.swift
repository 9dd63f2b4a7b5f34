import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

@Suite("PushKit ownership and the VoIP token")
struct OwnershipTests {
    @Test("With .sdk, initialize creates the registry before it returns and registers the VoIP token")
    func sdkOwnership() async {
        // Given
        let device = SimulatedDevice(permission: .authorized, backgroundModes: ["voip"], clock: SimulatedClock(autoAdvanceLimit: 0))
        let calls = device.calls
        calls.pushKit.issueToken(SimulatedDevice.token(0xB0))
        // When
        var createdDuringLaunch = 0
        device.launch { sdk in
            sdk.initialize(config: callsConfig())
            createdDuringLaunch = calls.pushKit.registriesCreated
        }
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.settle()
        // Then
        #expect(createdDuringLaunch == 1)
        let voip = device.service.registrations(authToken: "alice-token").filter { $0.platform == "apns_ios_voip" }
        #expect(voip.map(\.token) == [PNHex.string(SimulatedDevice.token(0xB0))])
        #expect(device.service.contractViolations == [])
    }

    @Test("A rotated VoIP token is registered; an invalidated one is dropped")
    func rotationAndInvalidation() async {
        let h = await CallsHarness()
        h.calls.pushKit.issueToken(SimulatedDevice.token(0xC0))
        await h.settle()
        let hex = PNHex.string(SimulatedDevice.token(0xC0))
        #expect(h.device.service.registrations(authToken: "alice-token").contains { $0.platform == "apns_ios_voip" && $0.token == hex })
        h.calls.pushKit.invalidateToken()
        await h.settle()
        let tokens = h.sdk.getDiagnostics()["tokens"] as? [String: String]
        #expect(tokens?.keys.contains { $0.contains("voip") } == false)
        #expect(await h.readiness() == .voipEntitlementMissing)
    }

    @Test("With .app, the SDK creates no registry; the app forwards token and pushes")
    func appOwnership() async {
        // Given
        let h = await CallsHarness(ownership: .app, voipToken: false)
        let sdk = h.sdk
        h.calls.pushKit.appOwnsRegistry { push, completion in
            sdk.calls.handleIncomingVoIPPush(push.payload, completion: completion)
        }
        #expect(h.calls.pushKit.registriesCreated == 0)
        // When the app forwards its token and a push
        sdk.calls.handleVoIPToken(SimulatedDevice.token(0xD0))
        await h.settle()
        let delivery = await h.deliver(callPush(session: "s1"))
        // Then
        #expect(h.device.service.registrations(authToken: "alice-token").contains { $0.platform == "apns_ios_voip" })
        #expect(delivery.reportedInCallback)
        #expect(h.calls.callKit.ringingCalls.count == 1)
        h.calls.callKit.answer()
        await h.settle()
        #expect(h.delegate.presentedCalls.map(\.sessionId) == ["s1"])
        h.expectRulesHeld()
    }

    @Test("A device whose calls are not enabled keeps the product idle")
    func idleWithoutSimulator() async {
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: callsConfig()) }
        await device.settle()
        #expect(app.sdk.getDiagnostics()["callsRing"] as? Bool == false)
        let finished = PNLockedFlag()
        app.sdk.calls.handleIncomingVoIPPush(callPush()) { finished.set() }
        #expect(finished.value)
    }
}

/// A flag set from a completion.
final class PNLockedFlag: @unchecked Sendable {
    // @unchecked: `flag` is only touched under `lock`.
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}

@Suite("Calls APIs before the product is installed")
struct CallsNotInstalledTests {
    @Test("decline answers notInitialised before initialize, productNotInstalled when initialize did not install Calls")
    func declineWithoutTheProduct() async {
        let device = SimulatedDevice()
        device.simulateUnlinked(["CometChatPushNotificationsCalls"])
        let app = device.launch()
        let calls = CometChatPushNotificationsCalls(sdk: app.sdk)
        let before: PNResult<Void> = await withCheckedContinuation { done in
            calls.decline(sessionId: "s1") { done.resume(returning: $0) }
        }
        #expect(before.failure?.code == .notInitialised)

        // The Calls product's class was not found (stripped by the linker): Core did not install it.
        app.sdk.initialize(config: callsConfig())
        let after: PNResult<Void> = await withCheckedContinuation { done in
            calls.decline(sessionId: "s1") { done.resume(returning: $0) }
        }
        #expect(after.failure?.code == .productNotInstalled)
        #expect(device.service.requests(.callStatus).isEmpty)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
