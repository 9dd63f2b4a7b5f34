/// Delivers one job. The delivery engine drives every sender the same way: `DeliverySender`
/// (APNs and FCM), and the operator options `LogSender` (`--sender log`) and `NoneSender`
/// (`--sender none`); tests add doubles in `PushTestSupport`.
///
/// Implementations must be thread-safe: the engine calls `send` concurrently.
/// A sender never throws: every failure becomes a ``JobOutcome``.
public protocol PushSender: Sendable {
    /// Sends the job and reports the outcome. Never logs the token or secrets in full.
    func send(_ job: PushJob) async -> JobOutcome

    /// Sends the job and calls `completion` with the outcome, exactly once, on any thread.
    ///
    /// The delivery engine uses this form: a sender that can answer from its network thread
    /// (as the APNs client does) saves a task and two thread hops per push. The default
    /// runs `send(_:)` in a task.
    func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void)

    /// Called by the delivery engine with each batch it claimed, before it sends any of them:
    /// a sender that needs something per job from the store reads it here for the whole batch
    /// (one query, not one per push). The default does nothing.
    func prepare(_ jobs: [PushJob])
}

extension PushSender {
    /// Runs `send(_:)` in a task and hands its outcome to `completion`.
    public func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
        Task { completion(await send(job)) }
    }

    /// Nothing to prepare.
    public func prepare(_ jobs: [PushJob]) {}
}
