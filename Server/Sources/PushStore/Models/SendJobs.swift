import PushCore

/// The push jobs of a send as ``ServiceStore/acceptSend(appId:idempotencyKey:requestHash:jobs:webhooks:response:now:)``
/// takes them: made batch by batch while the store writes them, inside its transaction, so that a
/// large send's jobs are never in memory all at once (issue 32: the 20,000 jobs of one send held
/// about 20 MB until they were stored). A batch maker that throws refuses the send: nothing of
/// it is stored, and the error reaches the caller unchanged.
///
/// The batches are taken on the calling thread, once each; a store never asks for a batch
/// again.
public struct SendJobs {
    private let next: () throws -> [PushJob]?

    /// Jobs made by `next`, called until it returns nil.
    public init(_ next: @escaping () throws -> [PushJob]?) {
        self.next = next
    }

    /// Jobs made beforehand: one batch.
    public init(_ jobs: [PushJob]) {
        var rest: [PushJob]? = jobs
        self.init {
            defer { rest = nil }
            return rest
        }
    }

    /// Takes every batch and hands the jobs on in chunks of exactly `size` (the last one
    /// shorter, none empty), whatever sizes the batches have: one statement shape per full
    /// chunk. Returns whether any job is to be sent (not skipped).
    package func forEachChunk(of size: Int, _ body: (ArraySlice<PushJob>) throws -> Void) throws -> Bool {
        precondition(size > 0, "a chunk holds at least one job")
        var pending: [PushJob] = []
        var toSend = false
        while let batch = try next() {
            toSend = toSend || batch.contains { !$0.skipped }
            pending += batch
            guard pending.count >= size else { continue }
            let whole = pending.count - pending.count % size
            for start in stride(from: 0, to: whole, by: size) { try body(pending[start..<start + size]) }
            pending.removeFirst(whole)
        }
        if !pending.isEmpty { try body(pending[...]) }
        return toSend
    }
}
