import Foundation

/// A file to attach to the notification, with the type found from its bytes.
public struct PNExtensionAttachment: Sendable, Equatable {
    /// The attachment's identifier.
    public var identifier: String
    /// The file; iOS moves it into its own store when the attachment is created.
    public var fileURL: URL
    /// The type sniffed from the file's first bytes.
    public var mediaType: PNMediaType

    /// Creates an attachment.
    public init(identifier: String, fileURL: URL, mediaType: PNMediaType) {
        self.identifier = identifier
        self.fileURL = fileURL
        self.mediaType = mediaType
    }
}

/// Who sent a chat message, for a communication notification (iOS 15+, an
/// `INSendMessageIntent` donation that shows the sender's avatar).
public struct PNMessageSender: Sendable, Equatable {
    /// The sender's uid.
    public var uid: String
    /// The sender's display name.
    public var name: String?
    /// The sender's avatar, downloaded and sniffed, if any.
    public var avatar: PNExtensionAttachment?
    /// The conversation id (the intent's `conversationIdentifier`).
    public var conversationId: String?
    /// The group's name, for group messages (the intent's `speakableGroupName`).
    public var groupName: String?

    /// Creates a sender.
    public init(uid: String, name: String?, avatar: PNExtensionAttachment?, conversationId: String?, groupName: String?) {
        self.uid = uid
        self.name = name
        self.avatar = avatar
        self.conversationId = conversationId
        self.groupName = groupName
    }
}

/// The changes the Notification Service Extension applies to the notification's content.
/// `nil` fields leave the original as it is.
public struct PNExtensionContent: Sendable, Equatable {
    /// The new title (Markdown stripped).
    public var title: String?
    /// The new body (Markdown stripped).
    public var body: String?
    /// The app icon badge, from `unreadMessageCount`.
    public var badge: Int?
    /// The avatar or campaign image, as a file.
    public var attachment: PNExtensionAttachment?
    /// The sender of a chat message, for a communication notification.
    public var sender: PNMessageSender?
    /// What happened to the delivered receipt.
    public var receipt: PNReceiptOutcome?
    /// A private push (issue 28) opened: the decrypted standard payload as JSON, the content's
    /// new `userInfo` (so a tap carries the real payload, never the placeholder).
    public var decryptedPayload: Data?
    /// A private push opened: the subtitle of its decrypted `aps.alert`, if any.
    public var subtitle: String?
    /// A private push opened: the decrypted `aps.thread-id` (the conversation), set on the
    /// device only.
    public var threadIdentifier: String?
    /// A private push opened: the decrypted `aps.category`.
    public var categoryIdentifier: String?
    /// A private push that could not be opened: why (the placeholder stays). Never key
    /// material or payload text.
    public var privatePushFailure: String?

    /// No changes.
    public init(
        title: String? = nil, body: String? = nil, badge: Int? = nil, attachment: PNExtensionAttachment? = nil,
        sender: PNMessageSender? = nil, receipt: PNReceiptOutcome? = nil
    ) {
        self.title = title
        self.body = body
        self.badge = badge
        self.attachment = attachment
        self.sender = sender
        self.receipt = receipt
    }

    /// Whether nothing changes.
    public var isEmpty: Bool { self == PNExtensionContent() }
}
