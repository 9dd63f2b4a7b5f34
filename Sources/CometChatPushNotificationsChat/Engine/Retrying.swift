import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Sends a call again after transport failures and 5xx answers, with doubling delays, as long
/// as the next attempt can start before `deadline`. Other errors (4xx, a rejected session)
/// end at once.
struct Retrying: Sendable {
    /// The first delay, in seconds.
    var firstDelay: Double = 1
    /// The longest delay, in seconds.
    var maxDelay: Double = 8
    /// The clock the delays and the deadline are measured on.
    let clock: PNClock

    /// Runs `attempt` until it succeeds, fails for good, the deadline leaves no room for
    /// another try, or the task is cancelled. Returns the last result and the number of attempts.
    func run(until deadline: Date, _ attempt: () async -> PNResult<Data>) async -> (PNResult<Data>, attempts: Int) {
        var delay = firstDelay
        var attempts = 0
        while true {
            attempts += 1
            let result = await attempt()
            guard case .failure(let error) = result, error.isRetryable else { return (result, attempts) }
            guard clock.now().addingTimeInterval(delay) < deadline, !Task.isCancelled else { return (result, attempts) }
            do { try await clock.sleep(seconds: delay) } catch { return (result, attempts) }
            delay = min(maxDelay, delay * 2)
        }
    }
}
