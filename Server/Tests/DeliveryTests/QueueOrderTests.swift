import Delivery
import Foundation
import PushCore
import Testing

@Suite struct QueueOrderTests {
    @Test func callPushesJumpTheQueue() async throws {
        // Given a backlog of chat pushes and a call push queued after them
        let harness = try await DeliveryHarness.start()
        for index in 0..<20 { try harness.enqueue(String(format: "%04x", index)) }
        let call = try harness.enqueue("ca11", platform: .apnsVoIP, kind: .call, payload: #"{"type":"call"}"#)

        // When the engine claims a small batch
        let claimed = try harness.store.claimPushJobs(limit: 3, lease: 30, now: Date().addingTimeInterval(1))

        // Then the call comes first, ahead of older chat pushes
        #expect(claimed.first?.id == call.id)
        #expect(claimed.count == 3)
        #expect(claimed.allSatisfy { $0.attempts == 1 })
    }

    @Test func metricsExposeSentFailedAndLatency() async throws {
        let harness = try await DeliveryHarness.start()
        harness.engine.start()
        try harness.register("0e01")
        try harness.mock.script(["0e02": [["status": 410, "reason": "Unregistered"]]])
        try harness.register("0e02")
        try harness.enqueue("0e01")
        try harness.enqueue("0e02")
        let counts = try await harness.drain()
        let text = harness.engine.metrics.prometheusText(queue: counts)
        #expect(text.contains("push_sent_total{provider=\"apns\"} 1"))
        #expect(text.contains("push_failed_total{reason=\"Unregistered\"} 1"))
        #expect(text.contains("push_tokens_removed_total 1"))
        #expect(text.contains("push_delivery_latency_seconds_count 2"))
        #expect(text.contains("push_queue_depth{state=\"pending\"} 0"))
    }
}
