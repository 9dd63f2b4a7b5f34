import Foundation

/// Quiet when already reading (issue 31, `docs/design/hold-while-active.md`): tells a
/// self-hosted service which conversation the app shows (`PUT /notifications/push/v1/activity`,
/// wire contract §2), so that it holds that conversation's chat pushes to the user's other
/// devices while the user reads it here.
///
/// It keeps the service in step with what the SDK wants it to hold (``Target``), one pass at a
/// time; a trigger during a pass runs one more pass right after it.
///
/// - A change is sent once: the conversation as the service names it, with ``seconds`` of
///   activity, or `null` when there is none any more (nothing when nothing was reported).
///   Asking for what the service already holds sends nothing.
/// - While a conversation is shown, a timer on the injected clock reports it again every
///   ``refreshInterval``, before it ends by itself on the service.
/// - When the session changes, the old session's conversation is cleared with the old auth
///   token, if the service still takes it, before anything is reported for the new one.
/// - Failures: no answer or a 5xx is retried with ``PNRetryPolicy/activity``; then, or for any
///   other error, the failure is logged and the service's state counts as unknown, so the next
///   pass (the next change, return to the foreground or refresh) sends what is wanted then.
///   `AUTH_ERR_AUTH_TOKEN_NOT_FOUND` for the current session ends it, as for any call.
actor ActivityReporter {
    /// What the service should hold from this device now.
    struct Target: Sendable {
        var api: ClientAPI
        var session: PNSession
        /// The conversation as chat pushes name it, or `nil` for none.
        var conversationId: String?
        /// Whether the app is in the background (a pass then holds background time).
        var inBackground: Bool
    }

    /// How long a report lasts on the service, in seconds.
    static let seconds = 120
    /// How often a conversation still shown is reported again, in seconds: well before
    /// ``seconds`` end.
    static let refreshInterval: Double = 90

    /// What the SDK wants the service to hold now; `nil` without a self-hosted service or a session.
    private let wanted: @Sendable () async -> Target?
    /// The service rejected the auth token of the current session: the session ends.
    private let sessionRejected: @Sendable (PNSession) async -> Void
    private let clock: PNClock
    private let logger: PNLogger
    private let tracker: WorkTracker
    private let application: PNApplication

    /// What the service holds from this device, as far as this process knows.
    private struct Reported {
        var api: ClientAPI
        var session: PNSession
        /// The conversation reported; `nil` when a report failed, and the service may hold
        /// anything (it is then sent again, even a `null`).
        var conversationId: String?

        func isFor(_ target: Target) -> Bool { api.baseURL == target.api.baseURL && session == target.session }
    }
    /// `nil`: nothing, for any session.
    private var reported: Reported?
    private var running = false
    private var again = false
    /// The timer asked for a refresh of the conversation reported.
    private var refreshDue = false
    /// The refresh timer, and what it refreshes.
    private var timer: (task: Task<Void, Never>, key: String)?
    /// Bumped by every trigger that is not a refresh: a report retried meanwhile is stopped, and
    /// the next pass sends what is wanted then.
    private nonisolated let changes = PNLocked(0)
    /// The process ended: nothing more is sent.
    private nonisolated let stopped = PNLocked(false)

    init(
        clock: PNClock, logger: PNLogger, tracker: WorkTracker, application: PNApplication,
        wanted: @escaping @Sendable () async -> Target?, sessionRejected: @escaping @Sendable (PNSession) async -> Void
    ) {
        self.clock = clock
        self.logger = logger
        self.tracker = tracker
        self.application = application
        self.wanted = wanted
        self.sessionRejected = sessionRejected
    }

    /// Something the target depends on changed (the conversation shown, the app's state, the
    /// session): a pass runs soon, without the caller waiting for it.
    nonisolated func trigger() {
        changes.withLock { $0 += 1 }
        start(refresh: false)
    }

    /// The process is gone (the simulator killed the app): nothing more is sent, and the timer
    /// stops.
    nonisolated func stop() {
        stopped.withLock { $0 = true }
        tracker.begin()
        Task { [tracker] in
            defer { tracker.end() }
            await self.stopTimer()
        }
    }

    private nonisolated func start(refresh: Bool) {
        tracker.begin()
        Task { [tracker] in
            defer { tracker.end() }
            await self.update(refresh: refresh)
        }
    }

    private func update(refresh: Bool) async {
        if refresh { refreshDue = true }
        guard !running else {
            again = true
            return
        }
        running = true
        defer { running = false }
        repeat {
            again = false
            await pass()
        } while again
    }

    private func pass() async {
        guard !stopped.current else { return }
        let target = await wanted()
        guard !stopped.current else { return }
        // In the background, a pass that sends holds background time until it is done.
        let inBackground = target?.inBackground ?? (application.applicationState() == .background)
        let time = inBackground ? PNBackgroundTime(application: application) : nil
        var holding = false
        defer { time?.end() }

        // The old session's (or service's) report goes first, with the old auth token.
        if let old = reported, target.map({ !old.isFor($0) }) ?? true {
            reported = nil
            logger.log(.info, "The session changed: the conversation reported for the previous one is cleared.")
            await hold(time, &holding)
            _ = await send(nil, api: old.api, session: old.session, current: false)
        }
        guard let target else {
            stopTimer()
            return
        }
        let due = refreshDue
        refreshDue = false
        let needed: Bool
        if let reported {
            // A conversation reported: send a change, or the same again when the timer asks;
            // after a failure (nil), whatever is wanted, even none.
            needed =
                reported.conversationId == nil || reported.conversationId != target.conversationId
                || (due && target.conversationId != nil)
        } else {
            needed = target.conversationId != nil
        }
        if needed {
            await hold(time, &holding)
            let sent = await send(target.conversationId, api: target.api, session: target.session, current: true)
            reported =
                sent
                ? target.conversationId.map { Reported(api: target.api, session: target.session, conversationId: $0) }
                : Reported(api: target.api, session: target.session, conversationId: nil)
        }
        if let conversationId = target.conversationId {
            startTimer(key: "\(target.api.baseURL.absoluteString) \(target.session.storageKey) \(conversationId)")
        } else {
            stopTimer()
        }
    }

    /// Begins `time` (background time, in the background) before the pass's first request.
    private func hold(_ time: PNBackgroundTime?, _ holding: inout Bool) async {
        guard let time, !holding else { return }
        holding = true
        await time.begin(name: "CometChat activity") {}
    }

    /// Sends one report; whether the service took it.
    private func send(_ conversationId: String?, api: ClientAPI, session: PNSession, current: Bool) async -> Bool {
        let what = conversationId.map { "the conversation \($0)" } ?? "no conversation"
        let generation = changes.current
        // The process ended, or (for the current session) what is wanted changed: the next pass
        // sends what is wanted then.
        var dropped = false
        let outcome = await PNRetryPolicy.activity.run(isolation: self, on: clock) { () async -> PNRetryStep<PNResult<Data>> in
            guard !stopped.current, !current || changes.current == generation else {
                dropped = true
                return .finished(.failure(PNError(code: .networkError, message: "Not sent: it is no longer wanted.")))
            }
            let body: [String: Any] =
                conversationId.map { ["conversationId": $0, "seconds": Self.seconds] } ?? ["conversationId": NSNull()]
            let result = await api.call("PUT", ActivityWire.path, json: body, authToken: session.authToken)
            if case .failure(let error) = result, error.isRetryable {
                logger.log(.warning, "Reporting \(what) shown did not work: \(error.description)")
                return .retry(result)
            }
            return .finished(result)
        }
        switch outcome.value {
        case .success:
            logger.log(.debug, "Reported \(what) shown, for \(conversationId == nil ? "now" : "\(Self.seconds) s").")
            return true
        case .failure where dropped:
            return false
        case .failure(let error):
            logger.log(.warning, "The service was not told of \(what) shown: \(error.description)")
            if current, error.endsSession {
                logger.log(.warning, "The service rejected the auth token: the session ends.")
                await sessionRejected(session)
            }
            return false
        }
    }

    /// Runs the refresh timer for `key` (a conversation of a session), unless it runs already.
    private func startTimer(key: String) {
        guard timer?.key != key, !stopped.current else { return }
        stopTimer()
        let clock = self.clock
        tracker.begin()
        // Pending work while it runs, like the ring timer: whoever waits for the SDK to settle
        // sees its sleep begun, not yet to come.
        let task = Task { [weak self, tracker] in
            defer { tracker.end() }
            while !Task.isCancelled {
                do { try await clock.sleep(timerSeconds: Self.refreshInterval) } catch { return }
                guard let self, !Task.isCancelled else { return }
                self.start(refresh: true)
            }
        }
        timer = (task, key)
    }

    private func stopTimer() {
        timer?.task.cancel()
        timer = nil
    }
}

/// The activity route of a self-hosted service (wire contract §2).
enum ActivityWire {
    static let path = "/notifications/push/v1/activity"

    /// The conversation as chat pushes name it (`alice_user_bob`, the two uids sorted;
    /// `group_team`), or `nil` when it cannot be named: a user conversation without the
    /// session's own uid, or an id the service would refuse (not printable ASCII, a space or a
    /// `/`, over 300 characters).
    static func conversationId(_ conversation: PNActiveConversation, ownUID: String?) -> String? {
        let id: String
        switch conversation {
        case .group(let guid):
            id = "group_" + guid
        case .user(let uid):
            guard let ownUID else { return nil }
            let pair = [ownUID, uid].sorted()
            id = pair[0] + "_user_" + pair[1]
        }
        let usable = id.unicodeScalars.count <= 300 && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "/" }
        return usable ? id : nil
    }
}

extension PNRetryPolicy {
    /// The conversation shown: 2 s, doubling up to 8 s, each scaled by 0.5–1, three attempts in
    /// all; the next change, return to the foreground or refresh tries again.
    static let activity = PNRetryPolicy(firstDelay: 2, maxDelay: 8, jitter: 0.5...1, maxAttempts: 3)
}
