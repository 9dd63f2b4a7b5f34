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
}
