#if canImport(UIKit) && canImport(UserNotifications) && canImport(Intents)
import Foundation
@preconcurrency import UserNotifications
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The base class of your Notification Service Extension. Subclass it and change nothing else:
///
/// ```swift
/// import CometChatPushNotificationsChat
///
/// class NotificationService: CometChatNotificationServiceExtension {}
/// ```
///
/// For each chat or campaign push it sends the delivered receipt (once across the app and the
/// extension), replaces Markdown with plain text, attaches the sender's avatar or the campaign
/// image (a communication notification with the Communication Notifications capability), sets
/// the badge from `unreadMessageCount`, then calls ``finalizeContent(_:)``. A private push (its
/// payload encrypted in `enc`, from a service in private mode) is decrypted first with the key
/// the app keeps in the App Group's keychain access group, and its placeholder replaced by the
/// same content a standard push would show; if it cannot be opened the placeholder stays. At
/// `serviceExtensionTimeWillExpire` it delivers the best content so far; if anything fails the
/// original content is shown.
///
/// The App Group comes from the Info.plist key `CometChatExtensionGroupID`, or override
/// ``extensionGroupID``. It must match `PNConfiguration.extensionGroupID`.
@objc(PNNotificationServiceExtension)
open class CometChatNotificationServiceExtension: UNNotificationServiceExtension {
    /// The Info.plist key that names the App Group.
    public static let groupIDInfoPlistKey = "CometChatExtensionGroupID"

    /// The App Group shared with the app; by default the Info.plist's `CometChatExtensionGroupID`.
    @objc
    open var extensionGroupID: String? {
        Bundle.main.object(forInfoDictionaryKey: Self.groupIDInfoPlistKey) as? String
    }

    /// Replace Markdown with plain text. Default `true`.
    @objc
    open var stripsMarkdown: Bool { true }

    /// Attach the sender's avatar or the campaign image. Default `true`.
    @objc
    open var attachesMedia: Bool { true }

    /// Changes the content last, after receipts, media and Markdown. Returns `content` by default.
    @objc(finalizeContent:)
    open func finalizeContent(_ content: UNMutableNotificationContent) -> UNMutableNotificationContent { content }

    private lazy var handler: PNNotificationServiceHandler = {
        let handler = PNNotificationServiceHandler()
        handler.extensionGroupID = extensionGroupID
        handler.stripsMarkdown = stripsMarkdown
        handler.attachesMedia = attachesMedia
        handler.finalizeContent = { [weak self] in self?.finalizeContent($0) ?? $0 }
        return handler
    }()

    /// Starts the engine for `request`.
    open override func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        handler.didReceive(request, withContentHandler: contentHandler)
    }

    /// Delivers the best content so far.
    open override func serviceExtensionTimeWillExpire() {
        handler.serviceExtensionTimeWillExpire()
    }
}

/// Does the work of ``CometChatNotificationServiceExtension`` for an extension class that cannot
/// subclass it. Objective-C cannot subclass a Swift class, so an Objective-C Notification Service
/// Extension subclasses `UNNotificationServiceExtension`, creates a handler for each request,
/// and forwards `didReceiveNotificationRequest:withContentHandler:` and
/// `serviceExtensionTimeWillExpire` to it (<doc:NotificationServiceExtension> shows the code).
///
/// Set its properties before `didReceive`; they mean what the base class's overrides mean.
@objc(PNNotificationServiceHandler) @objcMembers
public final class PNNotificationServiceHandler: NSObject {
    /// The App Group shared with the app; by default the Info.plist's `CometChatExtensionGroupID`.
    public var extensionGroupID: String? =
        Bundle.main.object(forInfoDictionaryKey: CometChatNotificationServiceExtension.groupIDInfoPlistKey) as? String
    /// Replace Markdown with plain text. Default `true`.
    public var stripsMarkdown = true
    /// Attach the sender's avatar or the campaign image. Default `true`.
    public var attachesMedia = true
    /// Changes the content last, after receipts, media and Markdown. `nil` (the default) keeps it.
    public var finalizeContent: ((UNMutableNotificationContent) -> UNMutableNotificationContent)?

    /// One engine per request still running, so overlapping requests each deliver their own
    /// content when time runs out.
    private let running = PNLocked<[UUID: (engine: PNNotificationServiceEngine, delivery: ExtensionDelivery)]>([:])

    /// Creates a handler with the defaults above.
    public override init() { super.init() }

    /// Starts an engine for `request`; `contentHandler` is called once.
    @objc(didReceiveNotificationRequest:withContentHandler:)
    public func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let original = request.content
        let finalize = finalizeContent
        let delivery = ExtensionDelivery(original: original, handler: contentHandler) { finalize?($0) ?? $0 }
        let sdk = CometChatPushNotifications(platform: .appExtension)
        let engine = PNNotificationServiceEngine.forExtension(
            sdk: sdk, appGroupID: extensionGroupID, payload: original.userInfo, title: original.title,
            body: original.body, options: PNExtensionOptions(stripsMarkdown: stripsMarkdown, attachesMedia: attachesMedia))
        let key = UUID()
        running.withLock { $0[key] = (engine, delivery) }
        let running = self.running
        engine.start { changes in
            withExtendedLifetime(sdk) { delivery.deliver(changes) }
            running.withLock { _ = $0.removeValue(forKey: key) }
        }
    }

    /// Time is up: every running request hands over what it has, now, on this thread, without
    /// the communication-notification work (iOS ignores content that comes later, rule 30).
    public func serviceExtensionTimeWillExpire() {
        let all = running.withLock { running -> [(engine: PNNotificationServiceEngine, delivery: ExtensionDelivery)] in
            defer { running.removeAll() }
            return Array(running.values)
        }
        for (engine, delivery) in all {
            delivery.expiring()
            engine.expire()
        }
    }
}

/// Calls the content handler once, on the engine's thread, with the engine's changes applied.
private final class ExtensionDelivery: @unchecked Sendable {
    // @unchecked: the content and the handler are used once (`done`); `quick` is behind a lock.
    private let original: UNNotificationContent
    private let handler: (UNNotificationContent) -> Void
    private let finalize: (UNMutableNotificationContent) -> UNMutableNotificationContent
    private let done = PNLocked(false)
    private let quick = PNLocked(false)

    /// Time is up: the next delivery skips the communication-notification update.
    func expiring() { quick.withLock { $0 = true } }

    init(
        original: UNNotificationContent, handler: @escaping (UNNotificationContent) -> Void,
        finalize: @escaping (UNMutableNotificationContent) -> UNMutableNotificationContent
    ) {
        self.original = original
        self.handler = handler
        self.finalize = finalize
    }

    func deliver(_ changes: PNExtensionContent) {
        let first = done.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        handler(apply(changes) ?? original)
    }

    /// The original content with the changes, or `nil` when it cannot be built.
    private func apply(_ changes: PNExtensionContent) -> UNNotificationContent? {
        guard var content = original.mutableCopy() as? UNMutableNotificationContent else { return nil }
        if let title = changes.title { content.title = title }
        if let body = changes.body { content.body = body }
        // A private push opened: the standard payload replaces the placeholder's everywhere.
        if let data = changes.decryptedPayload, let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            content.userInfo = payload
            if let subtitle = changes.subtitle { content.subtitle = subtitle }
            if let thread = changes.threadIdentifier { content.threadIdentifier = thread }
            if let category = changes.categoryIdentifier { content.categoryIdentifier = category }
        }
        if let badge = changes.badge { content.badge = NSNumber(value: badge) }
        var communication = false
        if !quick.current, let sender = changes.sender, sender.avatar != nil,
            let updated = try? CommunicationNotification.update(content, sender: sender),
            let mutable = updated.mutableCopy() as? UNMutableNotificationContent
        {
            content = mutable
            communication = true
        }
        if communication, let file = changes.attachment, file.fileURL != changes.sender?.avatar?.fileURL {
            // The communication notification shows the avatar, not this attachment.
            try? FileManager.default.removeItem(at: file.fileURL)
        } else if !communication, let file = changes.attachment {
            do {
                // iOS moves the file into its own store.
                content.attachments = [
                    try UNNotificationAttachment(
                        identifier: file.identifier, url: file.fileURL,
                        options: [UNNotificationAttachmentOptionsTypeHintKey: file.mediaType.uniformTypeIdentifier])
                ]
            } catch {
                // Nobody else deletes it: one leaked file per push otherwise.
                try? FileManager.default.removeItem(at: file.fileURL)
            }
        }
        return finalize(content)
    }
}
#endif
