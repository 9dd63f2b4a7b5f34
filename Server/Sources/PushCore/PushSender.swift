/// Delivers one job to APNs or FCM. Part 2's delivery engine implements it; this package
/// ships two stand-ins, ``RecordingSender`` (tests) and ``LogSender`` (development).
///
/// Implementations must be thread-safe: the dispatcher calls `send` concurrently.
/// A sender never throws: every failure becomes a ``JobOutcome``.
public protocol PushSender: Sendable {
    /// Sends the job and reports the outcome. Never logs the token or secrets in full.
    func send(_ job: PushJob) async -> JobOutcome
}
