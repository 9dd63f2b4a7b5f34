import Foundation

/// The catch-up: asks a self-hosted service for the edits, deletions and reads since this
/// device's last sync (`GET /notifications/push/v1/changes`, wire contract §2) and applies them
/// as their pushes would have been. iOS throttles background pushes and never delivers one to
/// an app the user force-quit, so the pushes are the fast path and this is the guarantee.
///
/// - One catch-up at a time; a trigger during one runs one more right after it.
/// - Pages while the answer `hasMore` (at most ``maxPages`` pages a run), storing the cursor
///   after each page's changes were applied, per user (a uid, or an auth-token fingerprint), in
///   plain storage. Without a cursor it asks without `since`: the service answers the cursor of
///   now, where this installation starts.
/// - `truncated: true` (changes after the cursor were purged) is a full resync: the
///   notifications the feed can no longer vouch for go (see ``Context/resync``).
/// - Failures: no answer or a 5xx is retried with ``PNRetryPolicy/changesFeed`` while the same
///   session lasts; `AUTH_ERR_AUTH_TOKEN_NOT_FOUND` ends the session (a logout, as for a token
///   registration); anything else ends this run, and the next trigger tries again.
actor ChangesCatchUp {
    /// What one run needs from the SDK.
    struct Context: Sendable {
        var api: ClientAPI
        var session: PNSession
        /// Whether `session` is still the SDK's session.
        var isCurrent: @Sendable () -> Bool
        /// Applies one change, as its push would be.
        var apply: @Sendable (MessageChange) async -> Void
        /// The feed lost track: removes the notifications of messages sent before `horizon`
        /// (the first change the service still has, or now), whose edits and deletions may be
        /// among those purged.
        var resync: @Sendable (_ horizon: Date) async -> Void
        /// Runs once the feed is read to its end: removes what tombstones say is deleted.
        var finished: @Sendable () async -> Void
        /// The service rejected the auth token: the session ends.
        var sessionRejected: @Sendable () async -> Void
    }

    /// Pages read in one run at most (with 200 a page, 10,000 changes); the rest waits for the
    /// next trigger.
    static let maxPages = 50
    private static let key = "com.cometchat.push.changesCursors"

    private let store: PNKeyValueStore
    private let clock: PNClock
    private let logger: PNLogger
    private var running = false
    private var again = false

    init(store: PNKeyValueStore, clock: PNClock, logger: PNLogger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// The stored cursor of a user (``PNSession/storageKey``).
    nonisolated func cursor(for user: String) -> String? { cursors[user] }

    private nonisolated var cursors: [String: String] {
        guard let data = store.data(forKey: Self.key) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }

    private func save(_ cursor: String, for user: String) {
        var all = cursors
        all[user] = cursor
        store.set(try? JSONEncoder().encode(all), forKey: Self.key)
    }

    /// Runs a catch-up with the context `makeContext` gives (`nil`: nothing to do), or, when
    /// one is running, makes it run once more when it ends.
    func run(_ makeContext: @Sendable () async -> Context?) async {
        guard !running else {
            again = true
            return
        }
        running = true
        defer { running = false }
        repeat {
            again = false
            guard let context = await makeContext() else { return }
            await pass(context)
        } while again
    }

    private func pass(_ context: Context) async {
        let user = context.session.storageKey
        var cursor = cursor(for: user)
        var applied = 0
        for _ in 0..<Self.maxPages {
            let path = ChangesWire.request(since: cursor)
            let outcome = await PNRetryPolicy.changesFeed.run(isolation: self, on: clock) {
                () async -> PNRetryStep<PNResult<Data>> in
                guard context.isCurrent(), !Task.isCancelled else {
                    return .finished(.failure(.notLoggedIn("The session changed during the catch-up.")))
                }
                let result = await context.api.call("GET", path, json: nil, authToken: context.session.authToken)
                if case .failure(let error) = result, error.isRetryable {
                    logger.log(.warning, "The changes feed did not answer: \(error.description)")
                    return .retry(result)
                }
                return .finished(result)
            }
            guard !outcome.interrupted, context.isCurrent() else { return }
            let data: Data
            switch outcome.value {
            case .success(let body): data = body
            case .failure(let error):
                if error.endsSession {
                    logger.log(.warning, "The changes feed rejected the auth token: the session ends.")
                    await context.sessionRejected()
                } else {
                    logger.log(.warning, "The catch-up stopped: \(error.description)")
                }
                return
            }
            guard let page = ChangesWire.page(data) else {
                logger.log(.warning, "The changes feed's answer holds no page; the catch-up stopped.")
                return
            }
            if page.truncated {
                let horizon = page.changes.compactMap(\.at).min() ?? clock.now()
                logger.log(.info, "The changes feed lost track of this device (changes were purged): a full resync.")
                await context.resync(horizon)
            }
            for change in page.changes { await context.apply(change) }
            applied += page.changes.count
            cursor = page.cursor
            save(page.cursor, for: user)
            guard page.hasMore else { break }
        }
        await context.finished()
        logger.log(.info, "Caught up: \(applied) change(s) applied.")
    }
}

extension PNRetryPolicy {
    /// The changes feed: 2 s, doubling up to 60 s, each scaled by 0.5–1, four attempts in all;
    /// the next launch or return to the foreground tries again.
    static let changesFeed = PNRetryPolicy(firstDelay: 2, maxDelay: 60, jitter: 0.5...1, maxAttempts: 4)
}
