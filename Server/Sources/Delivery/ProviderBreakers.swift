#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import APNs
import PushCore
import ServerSupport
import Synchronization

/// A circuit breaker per provider, consulted before any token is deleted, that no client can
/// trip.
///
/// A wrong bundle id, environment or key shows up at APNs as `BadDeviceToken`,
/// `DeviceTokenNotForTopic` or `BadTopic` for *every* token of *every* user; a user controls
/// only their own tokens. So the answers count differently:
/// - answers that prove the *provider* wrong (`InvalidProviderToken`,
///   `BadEnvironmentKeyInToken`, `BadTopic`, `TopicDisallowed`, `MissingTopic`, other 403s)
///   open the breaker while the provider is not healthy, as they always did;
/// - per-token refusals (`BadDeviceToken`, `DeviceTokenNotForTopic`, `Unregistered`/410) count
///   towards opening it only when the token delivered before, or when the refused tokens
///   belong to at least ``Settings/minimumUsers`` distinct users who are most of the users
///   among the recent answers: one user's made-up tokens never open it, however many.
///
/// A provider that has not delivered since it was created or updated is *unknown*, not
/// unhealthy: a per-token refusal keeps the token and its job waits (``Verdict/wait(_:)``),
/// and the breaker stays closed (except `Unregistered`, which APNs gives only for a token of the
/// provider's own topic: that token is dead). Once the provider delivered (the store keeps when: a restart
/// does not make it unknown again), a refused token that never delivered is dead, and one that
/// delivered before is dead only while the provider is healthy (a 200 among its last `window`
/// answers, or within `healthyWithin`).
///
/// While open the provider is *misconfigured*: its jobs wait instead of being sent or failed, no
/// token is deleted, and one waiting job is let through as a probe on a back-off schedule,
/// preferably one whose token delivered before and of another user than the last probe. A 200
/// (a probe that succeeds) or ``reset(appId:providerId:)`` (the provider was updated) closes it.
public final class ProviderBreakers: Sendable {
    /// Tuning (command-line flags `--breaker-window` and `--breaker-healthy-within`).
    public struct Settings: Sendable {
        /// How many recent answers are kept per provider (default 50).
        public var window = 50
        /// A 200 this recent keeps the provider healthy (default 600 s).
        public var healthyWithin: TimeInterval = 600
        /// When probes are let through once open: the first after `probe.baseDelay`, the n-th
        /// after `probe.delay(attempt: n)` (default 1 s doubling to 300 s, exact).
        public var probe = RetryPolicy.exact(from: 1, upTo: 300)
        /// Distinct users whose tokens must be refused before refusals of tokens that never
        /// delivered count towards opening (default 5); they must also be most of the users
        /// among the recent answers.
        public var minimumUsers = 5

        /// Defaults.
        public init() {}
    }

    /// What an answer says about the provider.
    public enum Answer: Sendable, Equatable {
        /// Accepted (200).
        case accepted
        /// An answer only a wrong provider configuration gives (the reason).
        case provider(String)
        /// A refusal of the token (the reason): a dead token, or every token when the provider
        /// is set up for another app or environment.
        case token(APNsReason)
        /// Anything else (transport errors, 429, 5xx, other 4xx).
        case other
    }

    /// What to do with a job whose token was refused.
    public enum Verdict: Sendable, Equatable {
        /// The token is dead: fail the job and delete the token.
        case dead
        /// Keep the token; the job waits (retried later, never failed) for this reason.
        case wait(String)
    }

    /// A change of state, to log and count.
    public enum Transition: Sendable, Equatable {
        /// The provider is now misconfigured, for this reason.
        case opened(reason: String)
        /// The provider answers again.
        case closed
        /// The provider delivered for the first time since it was created or updated: the jobs
        /// that waited for that may go now.
        case known
    }

    /// The state shown to operators (`circuitBreaker` in the provider health).
    public enum Status: String, Sendable {
        /// Sending; refused tokens are dead.
        case closed
        /// Misconfigured: jobs wait, no token is deleted.
        case open
        /// Not delivered since created or updated: refused tokens are kept, their jobs wait.
        case unknown
    }

    struct Entry {
        let answer: Answer
        let uid: String
        /// A per-token refusal that counts towards opening (the token delivered before).
        let tokenDelivered: Bool
    }

    struct State {
        var recent: [Entry] = []
        /// The provider's last delivery: from the store when the state was made, then each 200.
        var lastAccepted: Date?
        var openReason: String?
        var nextProbe = Date.distantPast
        /// Probes let through since the breaker opened.
        var probes = 0
        var lastProbeUid: String?
    }

    private let settings: Settings
    private let lastDelivery: @Sendable (_ appId: String, _ providerId: String) -> Date?
    private let states = Mutex<[Key: State]>([:])

    /// Creates breakers.
    /// - Parameter lastDelivery: when the provider last delivered, from the store (nil: never
    ///   since created or updated); read once per provider, when its first answer comes.
    public init(settings: Settings = Settings(), lastDelivery: @escaping @Sendable (String, String) -> Date? = { _, _ in nil }) {
        self.settings = settings
        self.lastDelivery = lastDelivery
    }

    /// A provider: the dictionary key of its state (two strings, no concatenation per answer).
    struct Key: Hashable {
        let appId: String
        let providerId: String
    }

    static func key(_ appId: String, _ providerId: String) -> Key { Key(appId: appId, providerId: providerId) }

    /// Makes the provider's state the first time it is needed, with its last delivery read
    /// from the store outside the lock (other providers' answers do not wait for the read).
    private func ensureState(_ appId: String, _ providerId: String) {
        let key = Self.key(appId, providerId)
        guard states.withLock({ $0[key] == nil }) else { return }
        let last = lastDelivery(appId, providerId)
        states.withLock { states in
            if states[key] == nil { states[key] = State(lastAccepted: last) }
        }
    }

    /// The provider's state (made by ``ensureState(_:_:)`` before the lock was taken).
    private func state(_ states: [Key: State], _ appId: String, _ providerId: String) -> State {
        states[Self.key(appId, providerId)] ?? State()
    }

    /// Records an answer to a push to `uid`'s token; `tokenDelivered` says whether that token
    /// delivered before. Returns the transition it caused, if any.
    @discardableResult
    public func record(
        _ answer: Answer, uid: String, tokenDelivered: Bool = false, appId: String, providerId: String, at now: Date
    ) -> Transition? {
        ensureState(appId, providerId)
        let entry = Entry(answer: answer, uid: uid, tokenDelivered: tokenDelivered)
        // The state is changed where it is stored: copying it out would copy its window of
        // answers on every answer, under the lock every send and answer takes.
        return states.withLock { states in record(entry, at: now, in: &states[Self.key(appId, providerId), default: State()]) }
    }

    private func record(_ entry: Entry, at now: Date, in state: inout State) -> Transition? {
        state.recent.append(entry)
        if state.recent.count > settings.window { state.recent.removeFirst(state.recent.count - settings.window) }
        if entry.answer == .accepted {
            let first = state.lastAccepted == nil
            state.lastAccepted = now
            guard state.openReason != nil else { return first ? .known : nil }
            state.openReason = nil
            state.probes = 0
            state.lastProbeUid = nil
            return .closed
        }
        guard state.openReason == nil, !healthy(state, now: now) else { return nil }
        guard let reason = openingReason(state) else { return nil }
        state.openReason = reason
        state.probes = 0
        state.nextProbe = now.addingTimeInterval(settings.probe.delay(attempt: 1))
        return .opened(reason: reason)
    }

    /// Why the recent answers prove the provider wrong, or nil: most of them count against it.
    private func openingReason(_ state: State) -> String? {
        // Refusals of tokens that never delivered count only when many users' tokens are
        // refused, and most of the users answered lately: one user's tokens never do.
        let known = state.lastAccepted != nil
        let refusedUsers = Set(state.recent.compactMap { if case .token = $0.answer { $0.uid } else { nil } })
        let users = Set(state.recent.map(\.uid))
        let acrossUsers = known && refusedUsers.count >= settings.minimumUsers && refusedUsers.count * 2 > users.count
        var reasons: [String: Int] = [:]
        for entry in state.recent {
            switch entry.answer {
            case .provider(let reason):
                reasons[reason, default: 0] += 1
            case .token(let reason) where known && (entry.tokenDelivered || acrossUsers):
                reasons[reason.rawValue, default: 0] += 1
            default:
                break
            }
        }
        let counted = reasons.values.reduce(0, +)
        guard counted > 0, counted * 2 >= state.recent.count else { return nil }
        let top = reasons.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!
        var reason = "\(top.key) for \(counted) of its last \(state.recent.count) answers and no 200"
        if acrossUsers { reason += ", refused for \(refusedUsers.count) users" }
        return reason
    }

    private func healthy(_ state: State, now: Date) -> Bool {
        if state.recent.contains(where: { $0.answer == .accepted }) { return true }
        if let last = state.lastAccepted, now.timeIntervalSince(last) <= settings.healthyWithin { return true }
        return false
    }

    /// What to do with a job whose token the provider refused (call after ``record(_:uid:tokenDelivered:appId:providerId:at:)``).
    public func verdict(tokenDelivered: Bool, appId: String, providerId: String, reason: APNsReason, at now: Date) -> Verdict {
        ensureState(appId, providerId)
        return states.withLock { states in
            let state = state(states, appId, providerId)
            if let open = state.openReason { return .wait("\(JobOutcome.waitingPrefix): \(open)") }
            // APNs says Unregistered (410) only for a token of the provider's own topic and
            // environment: an answer that proves the provider right, about a dead token.
            guard state.lastAccepted != nil || reason == .unregistered else {
                return .wait(
                    "\(JobOutcome.waitingPrefix)? \(reason) from a provider that has not delivered since it was set up; the token is kept")
            }
            if !tokenDelivered || healthy(state, now: now) { return .dead }
            return .wait("\(JobOutcome.waitingPrefix)? \(reason) for a token that delivered before, and no recent 200")
        }
    }

    /// Whether a job of the provider may be sent now: always while closed; while open, one
    /// probe per back-off step, preferably a job whose token delivered before (`tokenDelivered`
    /// is asked only then) for another user than the last probe's; any job once the probe has
    /// waited a whole step for one. When not, the job waits until the returned date.
    public func admit(
        appId: String, providerId: String, uid: String, tokenDelivered: () -> Bool, at now: Date
    ) -> (admitted: Bool, waitUntil: Date, reason: String?) {
        states.withLock { states in
            guard var state = states[Self.key(appId, providerId)], let reason = state.openReason else { return (true, now, nil) }
            guard now >= state.nextProbe else { return (false, state.nextProbe, reason) }
            let preferred = uid != state.lastProbeUid && tokenDelivered()
            let overdue = now >= state.nextProbe.addingTimeInterval(settings.probe.delay(attempt: state.probes + 1))
            guard preferred || overdue else { return (false, now.addingTimeInterval(settings.probe.baseDelay), reason) }
            state.probes += 1
            state.nextProbe = now.addingTimeInterval(settings.probe.delay(attempt: state.probes + 1))
            state.lastProbeUid = uid
            states[Self.key(appId, providerId)] = state
            return (true, state.nextProbe, reason)
        }
    }

    /// The breaker's state for operators.
    public func status(appId: String, providerId: String) -> Status {
        ensureState(appId, providerId)
        return states.withLock { states in
            let state = state(states, appId, providerId)
            if state.openReason != nil { return .open }
            return state.lastAccepted == nil ? .unknown : .closed
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
                return (key.appId, key.providerId, reason)
            }.sorted { ($0.appId, $0.providerId) < ($1.appId, $1.providerId) }
        }
    }

    /// Forgets what the provider answered (it was updated, which also clears its last
    /// delivery in the store): closes its breaker; the provider is unknown until it delivers.
    /// Returns whether it was open.
    @discardableResult
    public func reset(appId: String, providerId: String) -> Bool {
        states.withLock { states in
            let wasOpen = states[Self.key(appId, providerId)]?.openReason != nil
            states[Self.key(appId, providerId)] = State()
            return wasOpen
        }
    }
}
