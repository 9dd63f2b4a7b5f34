import Delivery
import Foundation
import PushCore
import Testing

/// A push whose moment has passed is recorded expired, never sent late; every attempt of a
/// job carries the same `apns-id`, derived from the job id.
@Suite struct ExpiryTests {
    static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    @Test func anAlertPastItsExpirationAndACallPastItsRingDeadlineAreNotSent() async throws {
        // Given an alert whose apns-expiration passed, a call push sent 60 s ago (the ring
        // timeout is 45 s), a call push sent now and an alert still valid
        let harness = try await DeliveryHarness.start()
        for token in ["e001", "e002", "e003", "e004"] { try harness.register(token) }
        let now = Date()
        let stale = try harness.enqueue("e001", expiration: Int64(now.timeIntervalSince1970) - 10)
        let lateCall = try harness.enqueue(
            "e002", platform: .apnsVoIP, kind: .call,
            payload: #"{"type":"call","callAction":"initiated","sentAt":"\#(Self.milliseconds(now.addingTimeInterval(-60)))"}"#)
        try harness.enqueue(
            "e003", platform: .apnsVoIP, kind: .call,
            payload: #"{"type":"call","callAction":"initiated","sentAt":"\#(Self.milliseconds(now))"}"#)
        try harness.enqueue("e004", expiration: Int64(now.timeIntervalSince1970) + 3600)

        // When the engine runs
        harness.engine.start()
        let counts = try await harness.drain()

        // Then the two late pushes are expired and never reached APNs; the others were sent
        #expect(counts.expired == 2)
        #expect(counts.delivered == 2)
        let sent = Set(harness.mock.log(kind: "apns").compactMap { $0["token"] as? String })
        #expect(sent == ["e003", "e004"])
        #expect(harness.engine.metrics.expired == 2)
        #expect(harness.engine.metrics.prometheusText(queue: nil).contains("push_expired_total 2"))
        #expect(try harness.tokens().count == 4, "an expired push says nothing about its token")
        _ = (stale, lateCall)
    }

    @Test func theAPNsIdIsTheJobIdOnEveryAttempt() async throws {
        // Given a job APNs answers 503 once, then 200
        let harness = try await DeliveryHarness.start()
        try harness.register("a1d1")
        try harness.mock.script(["a1d1": [["status": 503, "reason": "ServiceUnavailable"], ["status": 200]]])
        let job = try harness.enqueue("a1d1")
        harness.engine.start()
        _ = try await harness.drain()

        // Then both attempts carried the job's id as apns-id
        let ids = harness.mock.log(kind: "apns").compactMap { $0["apns_id"] as? String }
        #expect(ids.count == 2)
        #expect(Set(ids) == [job.id.lowercased()])
        // A job id that is not a UUID gets a stable UUID derived from it
        let derived = DeliverySender.apnsId(forJob: "job-42")
        #expect(derived == DeliverySender.apnsId(forJob: "job-42"))
        #expect(UUID(uuidString: derived) != nil && derived != DeliverySender.apnsId(forJob: "job-43"))
        // A lowercase UUID is sent as it is; an uppercase one lowercased; anything else that is
        // not one (a digit out of range, a dash misplaced) derived, never passed through
        let uuid = "1b4e28ba-2fa1-4d2e-883f-0016d3cca427"
        #expect(DeliverySender.apnsId(forJob: uuid) == uuid)
        #expect(DeliverySender.apnsId(forJob: uuid.uppercased()) == uuid)
        for notOne in ["1b4e28ba-2fa1-4d2e-883f-0016d3cca42g", "1b4e28ba2-fa1-4d2e-883f-0016d3cca427", uuid + "0", "{\(uuid)}"] {
            let id = DeliverySender.apnsId(forJob: notOne)
            #expect(id != notOne && UUID(uuidString: id) != nil, "\(notOne)")
        }
    }
}
