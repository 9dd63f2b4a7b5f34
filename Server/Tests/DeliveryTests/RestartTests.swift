import Delivery
import Foundation
import PushCore
import ServerSupport
import PushTestSupport
import Testing

@Suite struct RestartTests {
    @Test func aMockRestartMidRunLosesNothing() async throws {
        // Given 400 jobs and a mock that answers after 5 ms
        let harness = try await DeliveryHarness.start(
            latencyMilliseconds: 5, retry: RetryPolicy(maxAttempts: 20, baseDelay: 0.05, maxDelay: 0.5))
        let tokens = (0..<400).map { String(format: "%04x", $0) }
        for token in tokens { try harness.enqueue(token) }

        // When the mock is killed and restarted while they are being delivered
        harness.engine.start()
        let mock = harness.mock
        let started = await waitWhileProgressing("first 100 sends", { mock.log(kind: "apns").count }) { $0 >= 100 }
        #expect(started.done, "\(started.value) of 400 sent")
        try harness.mock.restart(downFor: 0.3)
        let counts = try await harness.drain()

        // Then every job was delivered, and every token got a 200 from APNs
        #expect(counts.delivered == 400)
        #expect(counts.failed == 0)
        let accepted = Set(harness.mock.log(kind: "apns").filter { $0["status"] as? Int == 200 }.compactMap { $0["token"] as? String })
        #expect(accepted == Set(tokens))
    }
}
