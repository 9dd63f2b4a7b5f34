import Foundation
import PushCore
import PushTestSupport
import Testing

/// Sends through the admin API and the outbox of a harness without a delivery engine, for the
/// suites of issue 27 (collapse ids, edits and deletions, the changes feed, revocations).
extension Harness {
    /// Sends `body` through the send API of app1 and expects a 200.
    @discardableResult
    func send(_ body: [String: Any]) async throws -> RawHTTP.Response {
        let answer = try await admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(answer.status == 200, "\(answer.json)")
        return answer
    }

    /// The jobs of a send, as `GET …/send/{requestId}/jobs` shows them.
    func jobs(of sent: RawHTTP.Response) async throws -> [[String: Any]] {
        let requestId = try #require(sent.data["requestId"] as? String)
        return try await admin("GET", "/notifications/push/v1/send/\(requestId)/jobs", appId: "app1").dataArray
    }

    /// Claims every job waiting and records it delivered, as the delivery engine would (the
    /// harness runs without one).
    func deliverPending() throws {
        let claimed = try store.claimPushJobs(limit: 1_000, lease: 60, now: Date())
        try store.finishPushJobs(claimed.map { (id: $0.id, outcome: JobOutcome.delivered) }, now: Date())
    }
}
