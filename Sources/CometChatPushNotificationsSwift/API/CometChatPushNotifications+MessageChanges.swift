import Foundation

/// Edits, deletions and reads of the user's conversations, from their background pushes (the
/// fast path) and from the changes feed (the catch-up, the guarantee): `Contract/WIRE-CONTRACT.md`
/// §2 and §4.
extension CometChatPushNotifications {
    /// The one path that applies a change to the device's notifications.
    var changeApplier: MessageChangeApplier {
        MessageChangeApplier(center: platform.notificationCenter, ledger: messageChanges, logger: platform.logger)
    }

    /// An action push (`action: edited | deleted`) or a read push: applies it, then completes
    /// (rule 26: only once the work is done), holding background time meanwhile. Nothing is
    /// presented and no receipt is sent.
    func handleChangePush(_ change: MessageChange, completion: @escaping @Sendable (PNBackgroundFetchResult) -> Void) {
        let time = PNBackgroundTime(application: platform.application)
        let done = PNLocked(false)
        let finish: @Sendable (PNBackgroundFetchResult) -> Void = { [weak self, tracker] result in
            guard
                done.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            time.end()
            if let self { self.onCallbackQueue { completion(result) } } else { completion(result) }
            tracker.end()
        }
        tracker.begin()
        Task {
            await time.begin(name: "CometChat \(change.kind.rawValue) push") { finish(.failed) }
            let outcome = await applyChange(change)
            let badge = change.kind == .read ? readBadge(change) : nil
            platform.logger.log(
                .info,
                "A \(change.kind.rawValue) push changed \(outcome.notifications) notification(s)"
                    + "\(badge.map { " and set the badge to \($0)" } ?? "").")
            let changed = outcome.notifications > 0 || (outcome.isNew && change.kind != .read) || badge != nil
            finish(changed ? .newData : .noData)
        }
    }

    /// Applies one change and what follows it: a read's badge (with `enableBadgeCount` on); for
    /// an edit or a deletion not seen before, the delegate's `didEditMessage(_:)` or
    /// `didDeleteMessage(_:)`.
    @discardableResult
    func applyChange(_ change: MessageChange) async -> MessageChangeApplier.Outcome {
        let outcome = await changeApplier.apply(change)
        if outcome.isNew, change.kind != .read {
            let message = PNMessageChange(change, notificationChanged: outcome.notifications > 0)
            switch change.kind {
            case .edited: notifyDelegate { $0.pnDidEditMessage(message) }
            case .deleted: notifyDelegate { $0.pnDidDeleteMessage(message) }
            case .read: break
            }
        }
        if let badge = readBadge(change) {
            let application = platform.application
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                onCallbackQueue {
                    application.setBadgeCount(badge)
                    continuation.resume()
                }
            }
        }
        return outcome
    }

    /// The badge a read sets: its unread count, with `enableBadgeCount` on.
    private func readBadge(_ change: MessageChange) -> Int? {
        guard change.kind == .read, configuration?.enableBadgeCount == true else { return nil }
        return change.unreadCount
    }

    // MARK: The catch-up

    /// Catches up on the changes feed, once the calls made so far are applied, when a self-hosted
    /// service and a session are set and the app is not in the background: at launch (the session
    /// adopted at `initialize`), at a login, and on each return to the foreground. A catch-up
    /// under way runs once more instead of twice at once.
    func scheduleCatchUp() {
        let catchUp = self.catchUp
        tracker.begin()
        Task { [weak self, tracker] in
            defer { tracker.end() }
            await catchUp.run { [weak self] in await self?.catchUpContext() }
        }
    }

    /// What the catch-up needs now, or `nil` when it has nothing to do.
    private func catchUpContext() async -> ChangesCatchUp.Context? {
        await afterQueuedWork()
        let applied = lifecycle.state
        guard isSelfHosted, let api = applied.api, let session = applied.session else { return nil }
        guard platform.application.applicationState() != .background else {
            platform.logger.log(.debug, "The catch-up waits until the app comes to the foreground.")
            return nil
        }
        let lifecycle = self.lifecycle
        return ChangesCatchUp.Context(
            api: api, session: session,
            isCurrent: { lifecycle.state.session == session },
            apply: { [weak self] change in await self?.applyChange(change) },
            resync: { [weak self] horizon in
                guard let self else { return }
                let removed = await self.changeApplier.removeUnverifiable(before: horizon)
                self.platform.logger.log(.info, "The resync removed \(removed) notification(s) the feed can no longer vouch for.")
            },
            finished: { [weak self] in _ = await self?.changeApplier.removeDeletedMessages() },
            sessionRejected: { await lifecycle.sessionRejected(session) })
    }
}
