import Foundation

/// Applies edits, deletions and reads to the notifications on the device: the one path for the
/// action and read pushes and for the changes feed.
///
/// - A deletion removes the message's delivered notification (the one whose identifier is the
///   change's `notificationId`, else a chat notification with the message's `tag` in the
///   conversation) and leaves a tombstone (``MessageChangeLedger``).
/// - An edit, if that notification is still delivered, puts a local request with the same
///   identifier in its place (iOS replaces it, rule 33): the new title and text, no sound,
///   `passive`, the payload's other keys kept (a tap still opens the conversation), and
///   `action: edited` with `editedAt`. An edit older than the one shown is not applied. If the
///   notification is not delivered, nothing is shown.
/// - A read removes the conversation's notifications (the badge is the caller's).
///
/// Nothing is presented as a new message and no receipt is sent.
struct MessageChangeApplier: Sendable {
    let center: PNNotificationCenter
    let ledger: MessageChangeLedger
    let logger: PNLogger

    /// What applying one change did.
    struct Outcome: Equatable, Sendable {
        /// Notifications removed or replaced.
        var notifications = 0
        /// The change was not seen before (not already applied from a push or the feed): the
        /// app's delegate hears of it.
        var isNew = false
    }

    /// The `userInfo` key that marks a notification the SDK replaced for an edit, and its value.
    static let actionKey = "action"
    static let editedAction = "edited"

    func apply(_ change: MessageChange) async -> Outcome {
        switch change.kind {
        case .deleted:
            let isNew = ledger.recordDeletion(change)
            let removed = await removeDelivered { Self.shows(change, $0) }
            logger.log(.debug, "A deletion removed \(removed) notification(s)\(isNew ? "" : " (seen before)").")
            return Outcome(notifications: removed, isNew: isNew)
        case .edited:
            if let messageId = change.messageId, ledger.isDeleted(conversationId: change.conversationId, messageId: messageId) {
                logger.log(.debug, "An edit of a deleted message was not applied.")
                return Outcome()
            }
            let isNew = ledger.recordEdit(change)
            let replaced = await replaceDelivered(change)
            logger.log(.debug, "An edit replaced \(replaced) notification(s)\(isNew ? "" : " (seen before)").")
            return Outcome(notifications: replaced, isNew: isNew)
        case .read:
            let removed = await removeDelivered { ReadSyncPush.belongs($0, to: change.conversationId) }
            return Outcome(notifications: removed, isNew: true)
        }
    }

    /// Whether `info` is a chat message this device saw deleted.
    func isDeleted(_ info: CometChatNotificationInfo) -> Bool {
        guard info.kind == .chat, let messageId = info.messageId, let conversationId = info.conversationId else { return false }
        return ledger.isDeleted(conversationId: conversationId, messageId: messageId)
    }

    /// Removes the delivered notifications of deleted messages (pushes iOS showed after their
    /// deletion had overtaken them); returns how many.
    func removeDeletedMessages() async -> Int {
        let tombstones = ledger.tombstones
        guard !tombstones.isEmpty else { return 0 }
        return await removeDelivered { notification in
            tombstones.contains { entry in
                Self.shows(
                    MessageChange(
                        kind: .deleted, conversationId: entry.conversationId, messageId: entry.messageId,
                        notificationId: entry.notificationId), notification)
            }
        }
    }

    /// A full resync (the changes feed purged what this device had not read): removes the
    /// delivered chat notifications of messages sent before `horizon` (or that do not say when
    /// they were sent), whose edits and deletions may be among those lost; returns how many.
    func removeUnverifiable(before horizon: Date) async -> Int {
        await removeDelivered { notification in
            let fields = NotificationParser.parse(notification.userInfo)
            return fields.kind == .chat && (fields.sentAt.map { $0 < horizon } ?? true)
        }
    }

    /// Removes the delivered notifications `matches` picks; returns how many.
    func removeDelivered(_ matches: @escaping @Sendable (PNNotification) -> Bool) async -> Int {
        let identifiers = await delivered().filter(matches).map(\.identifier)
        if !identifiers.isEmpty { center.removeDeliveredNotifications(identifiers: identifiers) }
        return identifiers.count
    }

    /// Whether `notification` shows the message `change` is about: its identifier is the
    /// change's `notificationId`, or it is a chat notification with the message's `tag` in the
    /// conversation.
    static func shows(_ change: MessageChange, _ notification: PNNotification) -> Bool {
        if let id = change.notificationId, notification.identifier == id { return true }
        guard let messageId = change.messageId, ReadSyncPush.belongs(notification, to: change.conversationId) else { return false }
        let fields = NotificationParser.parse(notification.userInfo)
        return fields.kind == .chat && fields.messageId == messageId
    }

    /// Whether `notification` is one the SDK put in place of an edited message's.
    static func isEditReplacement(_ notification: PNNotification) -> Bool {
        PayloadReader.string(notification.userInfo[actionKey]) == editedAction
    }

    private func replaceDelivered(_ change: MessageChange) async -> Int {
        guard let body = change.body else {
            logger.log(.warning, "An edit without its new text was not applied.")
            return 0
        }
        var replaced = 0
        for notification in await delivered() where Self.shows(change, notification) {
            if let at = change.at, let shown = MessageChange.date(notification.userInfo["editedAt"]), shown >= at { continue }
            let request = Self.replacement(of: notification, change, body: body)
            let error = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
                center.add(request) { continuation.resume(returning: $0) }
            }
            if let error {
                logger.log(.warning, "An edited notification could not be replaced: \(error.localizedDescription)")
            } else {
                replaced += 1
            }
        }
        return replaced
    }

    /// The quiet local request that takes `notification`'s place with the edit's content.
    static func replacement(of notification: PNNotification, _ change: MessageChange, body: String) -> PNLocalNotificationRequest {
        var userInfo: [String: String] = [:]
        for case (let key as String, let value) in notification.userInfo where key != "aps" && key != "message" {
            if let text = value as? String {
                userInfo[key] = text
            } else if let number = value as? NSNumber {
                userInfo[key] = number.stringValue
            }
        }
        let fields = NotificationParser.parse(notification.userInfo)
        let title = change.title ?? fields.title ?? ""
        userInfo["title"] = title
        userInfo["body"] = body
        userInfo[actionKey] = editedAction
        userInfo["editedAt"] = change.at.map(MessageChange.milliseconds)
        return PNLocalNotificationRequest(
            identifier: notification.identifier, title: title, body: body,
            threadIdentifier: notification.threadIdentifier.isEmpty ? nil : notification.threadIdentifier,
            categoryIdentifier: notification.categoryIdentifier.isEmpty ? nil : notification.categoryIdentifier,
            userInfo: userInfo, playsSound: false, interruptionLevel: .passive)
    }

    private func delivered() async -> [PNNotification] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[PNNotification], Never>) in
            center.deliveredNotifications { continuation.resume(returning: $0) }
        }
    }
}
