import Foundation

/// Capped exponential back-off with jitter.
struct RetryPolicy: Sendable {
    /// The first delay, in seconds.
    var base: Double = 2
    /// The longest delay, in seconds.
    var cap: Double = 300
    /// The delay is scaled by a random factor in this range.
    var jitter: ClosedRange<Double> = 0.5...1.0

    /// The delay before retry number `attempt` (0 for the first retry).
    func delay(attempt: Int) -> Double {
        let exponential = base * pow(2, Double(min(attempt, 30)))
        return min(cap, exponential) * Double.random(in: jitter)
    }
}
