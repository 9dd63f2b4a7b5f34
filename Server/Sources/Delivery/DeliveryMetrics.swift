#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import Synchronization

/// Counters and latency figures of the delivery engine, rendered in the Prometheus text
/// format by `prometheusText(queue:)`.
public final class DeliveryMetrics: Sendable {
    /// Upper bounds (seconds) of the latency histogram buckets.
    public static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    struct State {
        var sent: [String: Int] = [:]
        var failed: [String: Int] = [:]
        var retried: [String: Int] = [:]
        var tokensRemoved = 0
        var expired = 0
        var bucketCounts = [Int](repeating: 0, count: DeliveryMetrics.buckets.count)
        var latencyCount = 0
        var latencySum = 0.0
        var recent = [Double](repeating: 0, count: 65_536)
        var recentNext = 0
        var recentFilled = 0
        /// Per app: pushes the provider took (`sent`), the SDK reported delivered and opened.
        var funnel: [String: [String: Int]] = [:]
        /// Per app: sent → delivered delays (the latest 1,024), their sum and count.
        var delays: [String: Delays] = [:]
    }

    struct Delays {
        var recent: [Double] = []
        var next = 0
        var sum = 0.0
        var count = 0
    }

    /// The stages of the per-app funnel, in order.
    public static let funnelStages = ["sent", "delivered", "opened"]

    private let state = Mutex(State())

    /// Creates empty metrics.
    public init() {}

    /// Records the outcome of one attempt. `latency` is from the job's acceptance to the
    /// provider's answer; `provider` is `apns` or `fcm`.
    public func record(_ outcome: JobOutcome, provider: String, latency: TimeInterval) {
        state.withLock { state in
            switch outcome {
            case .delivered:
                state.sent[provider, default: 0] += 1
            case .retry(_, let reason):
                state.retried[Self.label(reason), default: 0] += 1
            case .failed(let reason):
                state.failed[Self.label(reason), default: 0] += 1
            case .tokenInvalid(let reason):
                state.failed[Self.label(reason), default: 0] += 1
                state.tokensRemoved += 1
            case .expired:
                state.expired += 1
                return
            }
            if let bucket = Self.buckets.firstIndex(where: { latency <= $0 }) { state.bucketCounts[bucket] += 1 }
            state.latencyCount += 1
            state.latencySum += latency
            state.recent[state.recentNext] = latency
            state.recentNext = (state.recentNext + 1) % state.recent.count
            state.recentFilled = min(state.recentFilled + 1, state.recent.count)
        }
    }

    /// Counts one push of `app` reaching `stage` (`sent`, `delivered` or `opened`); `delay`
    /// (delivered only) is from the provider taking it to the device reporting it.
    public func recordFunnel(app: String, stage: String, delay: TimeInterval? = nil) {
        state.withLock { state in
            state.funnel[app, default: [:]][stage, default: 0] += 1
            guard let delay else { return }
            var delays = state.delays[app] ?? Delays()
            if delays.recent.count < 1_024 {
                delays.recent.append(delay)
            } else {
                delays.recent[delays.next] = delay
            }
            delays.next = (delays.next + 1) % 1_024
            delays.sum += delay
            delays.count += 1
            state.delays[app] = delays
        }
    }

    /// How many pushes of `app` reached `stage`.
    public func funnelCount(app: String, stage: String) -> Int {
        state.withLock { $0.funnel[app]?[stage] ?? 0 }
    }

    /// Pushes delivered so far, all providers.
    public var delivered: Int { state.withLock { $0.sent.values.reduce(0, +) } }

    /// Pushes that ended without delivery so far (dead tokens included).
    public var failed: Int { state.withLock { $0.failed.values.reduce(0, +) } }

    /// Pushes recorded expired (never sent: their moment had passed).
    public var expired: Int { state.withLock { $0.expired } }

    /// Tokens deleted after a dead-token answer.
    public var tokensRemoved: Int { state.withLock { $0.tokensRemoved } }

    /// A quantile (0…1) of the latest 65,536 latencies, in seconds; nil before any.
    public func latencyQuantile(_ q: Double) -> Double? {
        let samples = state.withLock { Array($0.recent.prefix($0.recentFilled)) }.sorted()
        guard !samples.isEmpty else { return nil }
        return samples[min(samples.count - 1, Int(Double(samples.count) * q))]
    }

    /// The Prometheus exposition text. `queue` adds the outbox gauges when given.
    public func prometheusText(queue: OutboxCounts?) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        out += "# HELP push_sent_total Pushes the provider accepted.\n# TYPE push_sent_total counter\n"
        for (provider, count) in snapshot.sent.sorted(by: { $0.key < $1.key }) {
            out += "push_sent_total{provider=\"\(provider)\"} \(count)\n"
        }
        out += "# HELP push_failed_total Pushes that ended without delivery, by reason.\n# TYPE push_failed_total counter\n"
        for (reason, count) in snapshot.failed.sorted(by: { $0.key < $1.key }) {
            out += "push_failed_total{reason=\"\(reason)\"} \(count)\n"
        }
        out += "# HELP push_retried_total Attempts that will be retried, by reason.\n# TYPE push_retried_total counter\n"
        for (reason, count) in snapshot.retried.sorted(by: { $0.key < $1.key }) {
            out += "push_retried_total{reason=\"\(reason)\"} \(count)\n"
        }
        out += "# HELP push_tokens_removed_total Tokens deleted after a dead-token answer.\n"
        out += "# TYPE push_tokens_removed_total counter\npush_tokens_removed_total \(snapshot.tokensRemoved)\n"
        out += "# HELP push_expired_total Pushes never sent because their moment had passed (alert expiration, ring deadline).\n"
        out += "# TYPE push_expired_total counter\npush_expired_total \(snapshot.expired)\n"
        if let queue {
            out += "# HELP push_queue_depth Jobs in the outbox by state.\n# TYPE push_queue_depth gauge\n"
            out += "push_queue_depth{state=\"pending\"} \(queue.pending)\n"
            out += "push_queue_depth{state=\"in_flight\"} \(queue.inFlight)\n"
        }
        out += "# HELP push_delivery_latency_seconds From acceptance to the provider's answer.\n"
        out += "# TYPE push_delivery_latency_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in Self.buckets.enumerated() {
            cumulative += snapshot.bucketCounts[index]
            out += "push_delivery_latency_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "push_delivery_latency_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)\n"
        out += "push_delivery_latency_seconds_sum \(snapshot.latencySum)\n"
        out += "push_delivery_latency_seconds_count \(snapshot.latencyCount)\n"
        for q in [0.5, 0.99] {
            if let value = latencyQuantile(q) {
                out += "push_delivery_latency_recent_seconds{quantile=\"\(q)\"} \(value)\n"
            }
        }
        out += funnelText(snapshot)
        return out
    }

    private func funnelText(_ snapshot: State) -> String {
        var out = "# HELP push_funnel_total Pushes per app that the provider took (sent), the device reported (delivered), "
        out += "the user opened (opened).\n# TYPE push_funnel_total counter\n"
        for (app, stages) in snapshot.funnel.sorted(by: { $0.key < $1.key }) {
            for stage in Self.funnelStages {
                out += "push_funnel_total{app=\"\(Self.escaped(app))\",stage=\"\(stage)\"} \(stages[stage] ?? 0)\n"
            }
        }
        out += "# HELP push_delivery_delay_seconds From the provider taking a push to the device reporting it delivered, per app.\n"
        out += "# TYPE push_delivery_delay_seconds summary\n"
        for (app, delays) in snapshot.delays.sorted(by: { $0.key < $1.key }) {
            let label = Self.escaped(app)
            let sorted = delays.recent.sorted()
            for q in [0.5, 0.9, 0.99] where !sorted.isEmpty {
                let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
                out += "push_delivery_delay_seconds{app=\"\(label)\",quantile=\"\(q)\"} \(value)\n"
            }
            out += "push_delivery_delay_seconds_sum{app=\"\(label)\"} \(delays.sum)\n"
            out += "push_delivery_delay_seconds_count{app=\"\(label)\"} \(delays.count)\n"
        }
        return out
    }

    /// A label value as it is, escaped as the Prometheus text format wants (app ids).
    public static func escaped(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }

    /// A short label for a reason: its first word, without characters Prometheus labels
    /// would need escaped (reasons may carry messages).
    public static func label(_ reason: String) -> String {
        let word = reason.split(whereSeparator: { $0 == " " || $0 == ":" }).first.map(String.init) ?? reason
        return String(word.filter { $0.isLetter || $0.isNumber || $0 == "_" }.prefix(40))
    }
}

/// What the APNs token provider of one (team, key) did since the sender started.
public struct ProviderTokenCounts: Sendable, Equatable {
    /// The team id (`iss`).
    public var teamId: String
    /// The key id (`kid`).
    public var keyId: String
    /// Tokens this instance signed.
    public var signed: Int
    /// Tokens this instance took from the store (another instance had signed them).
    public var adopted: Int
    /// Calls to the store that failed (the instance then signed locally or kept its token).
    public var sharingFailures: Int

    /// Creates a value.
    public init(teamId: String, keyId: String, signed: Int, adopted: Int, sharingFailures: Int) {
        self.teamId = teamId
        self.keyId = keyId
        self.signed = signed
        self.adopted = adopted
        self.sharingFailures = sharingFailures
    }

    /// The Prometheus text of these counters (their HELP and TYPE lines even when empty).
    public static func prometheusText(_ all: [ProviderTokenCounts]) -> String {
        let series: [(name: String, help: String, value: (ProviderTokenCounts) -> Int)] = [
            ("push_apns_provider_tokens_signed_total", "APNs provider tokens (JWTs) this instance signed, by team and key.", { $0.signed }),
            (
                "push_apns_provider_tokens_adopted_total",
                "APNs provider tokens this instance took from the store (signed by another instance), by team and key.", { $0.adopted }
            ),
            (
                "push_apns_provider_token_sharing_failures_total",
                "Failed store calls for the shared APNs provider token (the instance went on with its own), by team and key.",
                { $0.sharingFailures }
            ),
        ]
        var out = ""
        for (name, help, value) in series {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for counts in all {
                let labels = "team=\"\(DeliveryMetrics.label(counts.teamId))\",key=\"\(DeliveryMetrics.label(counts.keyId))\""
                out += "\(name){\(labels)} \(value(counts))\n"
            }
        }
        return out
    }
}
