import Foundation
import CometChatPushNotificationsSwift

/// What the Notification Service Extension does, from its overridable properties.
public struct PNExtensionOptions: Sendable, Equatable {
    /// Replace Markdown with plain text in the title and body.
    public var stripsMarkdown: Bool
    /// Attach the sender's avatar or the campaign image.
    public var attachesMedia: Bool
    /// The largest attachment downloaded, in bytes (default 50 MB, iOS's limit for video); each
    /// type is then held to its own limit (``PNMediaType/maxBytes``: images 10 MB, audio 5 MB).
    public var maxAttachmentBytes: Int
    /// Set the badge from the payload's `unreadMessageCount`. Default `true`; off when the app's
    /// `enableBadgeCount` is off (read from the configuration the app saved in the App Group).
    public var setsBadge: Bool = true
    /// How long the engine may work before it delivers what it has. iOS gives an extension
    /// about 30 s (rule 15); the rest is a margin.
    public var timeBudget: TimeInterval

    /// Creates options; the defaults are the guide's.
    public init(
        stripsMarkdown: Bool = true, attachesMedia: Bool = true,
        maxAttachmentBytes: Int = PNMediaType.largestMaxBytes, timeBudget: TimeInterval = 25
    ) {
        self.stripsMarkdown = stripsMarkdown
        self.attachesMedia = attachesMedia
        self.maxAttachmentBytes = maxAttachmentBytes
        self.timeBudget = timeBudget
    }
}

/// What the extension's engine works with: the shared session and App Group storage (when the
/// app set them up), downloads, files, time and logs.
public struct PNExtensionEnvironment: Sendable {
    /// Sends receipts with the session the app shared; `nil` when there is none.
    public var client: PNChatClient?
    /// The receipt ledger's directory in the App Group's container; `nil` without an App
    /// Group (then the app sends the receipts).
    public var receiptDirectory: URL?
    /// Downloads attachments to disk.
    public var downloader: PNMediaDownloading
    /// Where attachments are written.
    public var temporaryDirectory: URL
    /// Time.
    public var clock: PNClock
    /// Log lines.
    public var logger: PNLogger

    /// Creates an environment.
    public init(
        client: PNChatClient?, receiptDirectory: URL?, downloader: PNMediaDownloading,
        temporaryDirectory: URL, clock: PNClock, logger: PNLogger
    ) {
        self.client = client
        self.receiptDirectory = receiptDirectory
        self.downloader = downloader
        self.temporaryDirectory = temporaryDirectory
        self.clock = clock
        self.logger = logger
    }
}
