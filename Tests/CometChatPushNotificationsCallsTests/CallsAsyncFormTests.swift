import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls
import CometChatPushNotificationsTesting

/// The Calls product's `async` forms answer what their completion-handler forms answer.
@Suite("Calls async forms")
struct CallsAsyncFormTests {
    @Test("declineAndWait stops the ring, sends rejected and returns once the service took it")
    func declineAndWait() async throws {
        let h = await CallsHarness()
        await h.deliver(callPush(session: "s1"))
        try await h.sdk.calls.declineAndWait(sessionId: "s1")
        #expect(h.calls.callKit.ringingCalls.isEmpty)
        #expect(h.statusRequests == ["s1 rejected"])
        await h.settle()
        #expect(h.delegate.endReasons == [.declined])
        h.expectRulesHeld()
    }

    @Test("declineAndWait throws notInitialised before initialize, productNotInstalled without the product")
    func declineAndWaitWithoutTheProduct() async {
        let device = SimulatedDevice()
        device.simulateUnlinked(["CometChatPushNotificationsCalls"])
        let app = device.launch()
        let calls = CometChatPushNotificationsCalls(sdk: app.sdk)
        #expect(await Self.code { try await calls.declineAndWait(sessionId: "s1") } == .notInitialised)
        app.sdk.initialize(config: callsConfig())
        #expect(await Self.code { try await calls.declineAndWait(sessionId: "s1") } == .productNotInstalled)
        #expect(device.service.requests(.callStatus).isEmpty)
    }

    @Test("requestCallPermissionsAndWait asks once and returns the answer")
    func requestCallPermissionsAndWait() async {
        let h = await CallsHarness(requestCallPermissions: false)
        h.calls.microphone.userAnswer = true
        #expect(await h.sdk.calls.requestCallPermissionsAndWait())
        #expect(h.calls.microphone.prompts == 1)
    }

    /// The code of the `PNError` that `call` throws, or `nil` when it returns.
    static func code(_ call: () async throws -> Void) async -> PNError.Code? {
        do {
            try await call()
            return nil
        } catch let error as PNError {
            return error.code
        } catch {
            Issue.record("not a PNError: \(error)")
            return nil
        }
    }
}
