#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import Synchronization

/// A circuit breaker per provider, consulted before any token is deleted.
///
/// APNs answers `BadDeviceToken` or `DeviceTokenNotForTopic` for *every* token when the
/// provider's environment or bundle id is wrong, so those answers only mean "this token is
/// dead" while the provider is otherwise healthy: at least one 200 among its last
/// `window` answers, or one within `healthyWithin` seconds. When it is not healthy and
/// most of its recent answers are such configuration answers (or `InvalidProviderToken`,
/// `BadTopic`, `TopicDisallowed`, a 403), the breaker opens: the provider is
/// *misconfigured*, its jobs wait instead of being sent or failed, no token is deleted, and
/// one waiting job is let through as a probe on a back-off schedule. A 200 (a probe that
/// succeeds) or ``reset(appId:providerId:)`` (the provider was updated) closes it.
public final class ProviderBreakers: Sendable {
    /// Tuning (command-line flags `--breaker-window` and `--breaker-healthy-within`).
    public struct Settings: Sendable {
        /// How many recent answers are kept per provider (default 50).
        public var window = 50
        /// A 200 this recent keeps the provider healthy (default 600 s).
        public var healthyWithin: TimeInterval = 600
        /// The first probe delay once open, doubled per failed probe (default 1 s).
        public var probeBase: TimeInterval = 1
        /// The longest probe delay (default 300 s).
        public var probeMax: TimeInterval = 300

        /// Defaults.
        public init() {}
    }

    /// What an answer says about the provider.
    public enum Answer: Sendable, Equatable {
        /// Accepted (200).
        case accepted
        /// An answer that a provider misconfiguration produces for every token; the reason.
        case configuration(String)
        /// Anything else (transport errors, 429, 5xx, other 4xx).
        case other
    }

    /// A change of state, to log and count.
    public enum Transition: Sendable, Equatable {
        /// The provider is now misconfigured, for this reason.
        case opened(reason: String)
        /// The provider answers again.
        case closed
    }

    struct State {
        var recent: [Answer] = []
        var lastAccepted: Date?
        var openReason: String?
        var nextProbe = Date.distantPast
        var probeDelay: TimeInterval = 0
    }

    private let settings: Settings
    private let states = Mutex<[String: State]>([:])

    /// Creates breakers.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The APNs answers that a wrong provider configuration gives every token.
    public static func isConfigurationAnswer(status: Int, reason: String?) -> Bool {
        switch (status, reason) {
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (400, "BadTopic"), (400, "TopicDisallowed"),
            (400, "MissingTopic"):
            return true
        case (403, "ExpiredProviderToken"):
            return false
        case (403, _):
            return true
        default:
            return false
        }
    }

    static func key(_ appId: String, _ providerId: String) -> String { appId + "\u{0}" + providerId }

    /// Records an answer; returns the transition it caused, if any.
    @discardableResult
    public func record(_ answer: Answer, appId: String, providerId: String, at now: Date) -> Transition? {
        states.withLock { states in
            var state = states[Self.key(appId, providerId)] ?? State()
            defer { states[Self.key(appId, providerId)] = state }
            state.recent.append(answer)
            if state.recent.count > settings.window { state.recent.removeFirst(state.recent.count - settings.window) }
            if answer == .accepted {
                state.lastAccepted = now
                guard state.openReason != nil else { return nil }
                state.openReason = nil
                state.probeDelay = 0
                return .closed
            }
            guard state.openReason == nil, !healthy(state, now: now) else { return nil }
            var reasons: [String: Int] = [:]
            for case .configuration(let reason) in state.recent { reasons[reason, default: 0] += 1 }
            let configuration = reasons.values.reduce(0, +)
            guard configuration * 2 >= state.recent.count, configuration > 0 else { return nil }
            let top = reasons.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!
            let reason = "\(top.key) for \(configuration) of its last \(state.recent.count) answers and no 200"
            state.openReason = reason
            state.probeDelay = settings.probeBase
            state.nextProbe = now.addingTimeInterval(settings.probeBase)
            return .opened(reason: reason)
        }
    }

    private func healthy(_ state: State, now: Date) -> Bool {
        if state.recent.contains(.accepted) { return true }
        if let last = state.lastAccepted, now.timeIntervalSince(last) <= settings.healthyWithin { return true }
        return false
    }

    /// Whether the provider is healthy enough for a dead-token answer to delete the token.
    public func isHealthy(appId: String, providerId: String, at now: Date) -> Bool {
        states.withLock { states in
            guard let state = states[Self.key(appId, providerId)] else { return false }
            return state.openReason == nil && healthy(state, now: now)
        }
    }

    /// Whether a job of the provider may be sent now: always while closed; while open, one
    /// probe per back-off step. When not, the job waits until the returned date.
    public func admit(appId: String, providerId: String, at now: Date) -> (admitted: Bool, waitUntil: Date, reason: String?) {
        states.withLock { states in
            guard var state = states[Self.key(appId, providerId)], let reason = state.openReason else { return (true, now, nil) }
            if now >= state.nextProbe {
                state.probeDelay = min(max(state.probeDelay * 2, settings.probeBase), settings.probeMax)
                state.nextProbe = now.addingTimeInterval(state.probeDelay)
                states[Self.key(appId, providerId)] = state
                return (true, state.nextProbe, reason)
            }
            return (false, state.nextProbe, reason)
        }
    }

    /// Why the provider is misconfigured, or nil while its breaker is closed.
    public func openReason(appId: String, providerId: String) -> String? {
        states.withLock { $0[Self.key(appId, providerId)]?.openReason }
    }

    /// Every open breaker: (app, provider, reason).
    public func open() -> [(appId: String, providerId: String, reason: String)] {
        states.withLock { states in
            states.compactMap { key, state in
                guard let reason = state.openReason else { return nil }
                let parts = key.split(separator: "\u{0}", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "", reason)
            }.sorted { ($0.appId, $0.providerId) < ($1.appId, $1.providerId) }
        }
    }

    /// Forgets what the provider answered (it was updated): closes its breaker. Returns
    /// whether it was open.
    @discardableResult
    public func reset(appId: String, providerId: String) -> Bool {
        states.withLock { $0.removeValue(forKey: Self.key(appId, providerId))?.openReason != nil }
    }
}
