import Foundation

/// How a failed call is tried again: the delays between attempts (`firstDelay`, doubling up to
/// `maxDelay`, each scaled by a random factor in `jitter`), how many attempts at most, and the
/// wait itself, on the injected clock.
///
/// The SDK's one retry loop. Each caller keeps its own schedule:
///
/// | caller | first delay | longest | jitter | attempts | also ends |
/// |---|---|---|---|---|---|
/// | token registration | 2 s | 300 s | 0.5–1 | no limit | the session changes |
/// | token unregistration | 2 s | 300 s | 0.5–1 | 3 | |
/// | Chat's receipts and quick replies | 1 s | 8 s | none | no limit | the next wait would end at the deadline |
/// | Calls' call status | 2 s | 4 s | none | 3 | |
/// | the catch-up on the changes feed | 2 s | 60 s | 0.5–1 | 4 | the session changes |
/// | the conversation shown (activity) | 2 s | 8 s | 0.5–1 | 3 | the conversation shown changes |
@_spi(PNProducts)
public struct PNRetryPolicy: Sendable {
    /// The delay before the first retry, in seconds.
    public var firstDelay: Double
    /// The longest delay, in seconds.
    public var maxDelay: Double
    /// Each delay is scaled by a random factor in this range; `1...1` for none.
    public var jitter: ClosedRange<Double>
    /// Attempts in all, the first one included; `nil` for no limit.
    public var maxAttempts: Int?

    /// Creates a policy.
    public init(firstDelay: Double, maxDelay: Double, jitter: ClosedRange<Double> = 1...1, maxAttempts: Int? = nil) {
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxAttempts = maxAttempts
    }

    /// The delay before retry number `retry` (0 for the first retry), in seconds: `firstDelay`
    /// doubled `retry` times, at most `maxDelay`, scaled by the jitter.
    public func delay(beforeRetry retry: Int) -> Double {
        let capped = min(maxDelay, firstDelay * pow(2, Double(min(max(retry, 0), 30))))
        if jitter.lowerBound == jitter.upperBound { return capped * jitter.lowerBound }
        return capped * Double.random(in: jitter)
    }

    /// Runs `attempt` until it answers ``PNRetryStep/finished(_:)``; after ``PNRetryStep/retry(_:)``
    /// waits on `clock` and runs it again, unless the attempts have run out, the wait would end
    /// at or after `deadline`, or the task is cancelled (then the outcome is `interrupted`).
    ///
    /// `attempt` runs isolated to `isolation`: an actor passes itself (`isolation: self`) so its
    /// attempts may read and change its state. (Not `#isolation`: the iOS SDK the compile check
    /// builds against predates that macro.)
    public func run<Value>(
        isolation: isolated (any Actor)? = nil, on clock: PNClock, until deadline: Date? = nil,
        _ attempt: () async -> PNRetryStep<Value>
    ) async -> PNRetryOutcome<Value> {
        var attempts = 0
        while true {
            attempts += 1
            let value: Value
            switch await attempt() {
            case .finished(let answer): return PNRetryOutcome(value: answer, attempts: attempts, interrupted: false)
            case .retry(let answer): value = answer
            }
            if let maxAttempts, attempts >= maxAttempts {
                return PNRetryOutcome(value: value, attempts: attempts, interrupted: false)
            }
            let delay = delay(beforeRetry: attempts - 1)
            if let deadline, clock.now().addingTimeInterval(delay) >= deadline {
                return PNRetryOutcome(value: value, attempts: attempts, interrupted: false)
            }
            do {
                try Task.checkCancellation()
                try await clock.sleep(seconds: delay)
                try Task.checkCancellation()
            } catch {
                return PNRetryOutcome(value: value, attempts: attempts, interrupted: true)
            }
        }
    }

    /// Runs `call`, and again after a failure that `shouldRetry` accepts (by default
    /// ``PNError/isRetryable``: no answer, or a 5xx), as ``run(isolation:on:until:_:)`` does.
    public func run<Success>(
        isolation: isolated (any Actor)? = nil, on clock: PNClock, until deadline: Date? = nil,
        retryingIf shouldRetry: (PNError) -> Bool = { $0.isRetryable }, _ call: () async -> PNResult<Success>
    ) async -> PNRetryOutcome<PNResult<Success>> {
        await run(isolation: isolation, on: clock, until: deadline) { () async -> PNRetryStep<PNResult<Success>> in
            let result = await call()
            if case .failure(let error) = result, shouldRetry(error) { return .retry(result) }
            return .finished(result)
        }
    }
}

/// What one attempt of ``PNRetryPolicy/run(isolation:on:until:_:)`` answers.
@_spi(PNProducts)
public enum PNRetryStep<Value> {
    /// The answer: no further attempt.
    case finished(Value)
    /// A failure worth another attempt; the answer when the policy allows none.
    case retry(Value)
}

/// How a ``PNRetryPolicy`` run ended.
@_spi(PNProducts)
public struct PNRetryOutcome<Value> {
    /// The last attempt's answer.
    public var value: Value
    /// How many attempts were made.
    public var attempts: Int
    /// Whether the task was cancelled (or the clock's wait failed) before an attempt the policy
    /// allowed.
    public var interrupted: Bool
}

extension PNRetryOutcome: Sendable where Value: Sendable {}
extension PNRetryStep: Sendable where Value: Sendable {}
