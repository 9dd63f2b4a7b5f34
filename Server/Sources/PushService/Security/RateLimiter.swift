#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

/// A token bucket per key (an auth token's hash): `burst` requests at once, refilled at
/// `perMinute` a minute, on an injected clock. Keys idle for ten minutes are forgotten.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let perMinute: Double
    private let burst: Double
    private let clock: any ServiceClock
    private let buckets = Locked<[Data: Bucket]>([:])

    /// Creates a limiter; `perMinute <= 0` disables it. Buckets refill on `clock`'s time.
    public init(perMinute: Int, burst: Int, clock: any ServiceClock = SystemClock()) {
        self.perMinute = Double(perMinute)
        self.burst = Double(max(1, burst))
        self.clock = clock
    }

    /// Takes one request from the key's bucket; false when the bucket is empty.
    public func allow(_ key: Data) -> Bool {
        guard perMinute > 0 else { return true }
        let now = clock.now
        return buckets.withLock { buckets in
            if buckets.count > 100_000 {
                buckets = buckets.filter { now.timeIntervalSince($0.value.updated) < 600 }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(burst, bucket.tokens + elapsed * perMinute / 60)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[key] = bucket
            return allowed
        }
    }
}
