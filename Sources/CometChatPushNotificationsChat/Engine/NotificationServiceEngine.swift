import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The Notification Service Extension's behaviour, without UserNotifications: it sends the
/// delivered receipt (chat message or campaign, once across the app and the extension), strips
/// Markdown, sets the badge from `unreadMessageCount`, and downloads the sender's avatar or the
/// campaign image to a file whose type is sniffed from its bytes.
///
/// Start it with ``start(_:)``; it completes once, with everything it managed before
/// ``PNExtensionOptions/timeBudget`` ran out, or with the best content so far when
/// ``expire()`` is called (`serviceExtensionTimeWillExpire`). A step that fails leaves its
/// part of the original content unchanged.
public final class PNNotificationServiceEngine: Sendable {
    private let info: CometChatNotificationInfo
    private let title: String?
    private let body: String?
    private let mediaURL: URL?
    private let options: PNExtensionOptions
    private let environment: PNExtensionEnvironment
    /// A private push: what opening it gave (the decrypted payload's content, or the failure).
    private let privatePush: PrivatePushContent?

    private struct State {
        var best = PNExtensionContent()
        var finished = false
        var completion: (@Sendable (PNExtensionContent) -> Void)?
        var task: Task<Void, Never>?
        var files: [URL] = []
    }
    private let state = PNLocked(State())

    /// Creates the engine for one notification.
    ///
    /// - Parameters:
    ///   - payload: the notification's `userInfo`.
    ///   - title: the content's title as it arrived.
    ///   - body: the content's body as it arrived.
    ///   - options: what to do (strip Markdown, attach media, the download limits).
    ///   - environment: the stores, downloader, clock and client the engine works with.
    public convenience init(
        payload: [AnyHashable: Any], title: String?, body: String?,
        options: PNExtensionOptions = PNExtensionOptions(), environment: PNExtensionEnvironment
    ) {
        self.init(payload: payload, title: title, body: body, options: options, environment: environment, privatePush: nil)
    }

    init(
        payload: [AnyHashable: Any], title: String?, body: String?, options: PNExtensionOptions,
        environment: PNExtensionEnvironment, privatePush: PrivatePushContent?
    ) {
        info = CometChatNotificationInfo(rawPayload: payload)
        self.title = title
        self.body = body
        self.options = options
        self.environment = environment
        self.privatePush = privatePush
        mediaURL = MediaURL.find(in: payload, info: info)
    }

    /// The changes made so far.
    public var bestContentSoFar: PNExtensionContent { state.withLock { $0.best } }

    /// Runs the engine; `completion` is called once, from any thread.
    public func start(_ completion: @escaping @Sendable (PNExtensionContent) -> Void) {
        state.withLock { $0.completion = completion }
        let task = Task { [self] in
            let content = await run()
            finish(content)
        }
        state.withLock { $0.task = task }
    }

    /// Time is up (`serviceExtensionTimeWillExpire`): completes now with the best content so
    /// far and cancels the work still running.
    public func expire() {
        let task = state.withLock { $0.task }
        task?.cancel()
        environment.logger.log(.warning, "The notification service extension ran out of time; delivering what it has.")
        finish(bestContentSoFar)
    }

    /// Runs every step and returns the changes, without completion handling (for tools and
    /// tests). Stops at the time budget.
    public func run() async -> PNExtensionContent {
        let deadline = environment.clock.now().addingTimeInterval(options.timeBudget)
        applyPrivatePush()
        applyText()
        if options.setsBadge, let count = info.unreadMessageCount { update { $0.badge = count } }
        async let receipt: Void = sendReceipt(deadline: deadline)
        async let media: Void = attachMedia(deadline: deadline)
        _ = await (receipt, media)
        return bestContentSoFar
    }

    private func finish(_ content: PNExtensionContent) {
        let (completion, leftovers) = state.withLock { state -> ((@Sendable (PNExtensionContent) -> Void)?, [URL]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            defer { state.completion = nil }
            let kept = [content.attachment?.fileURL, content.sender?.avatar?.fileURL].compactMap { $0 }
            return (state.completion, state.files.filter { !kept.contains($0) })
        }
        for file in leftovers { try? FileManager.default.removeItem(at: file) }
        completion?(content)
    }

    private func update(_ change: (inout PNExtensionContent) -> Void) {
        state.withLock { if !$0.finished { change(&$0.best) } }
    }

    private func applyText() {
        // An opened private push replaces the placeholder's text whatever Markdown does.
        let replaces = privatePush?.opened == true
        guard options.stripsMarkdown || replaces else { return }
        let newTitle = options.stripsMarkdown ? title.map(PNMarkdownStripper.plainText) : title
        let newBody = options.stripsMarkdown ? body.map(PNMarkdownStripper.plainText) : body
        update {
            if newTitle != title || replaces { $0.title = newTitle }
            if newBody != body || replaces { $0.body = newBody }
        }
    }

    /// A private push: the decrypted payload and its `aps` go into the content; a failure is
    /// noted (the placeholder stays).
    private func applyPrivatePush() {
        guard let privatePush else { return }
        update {
            $0.decryptedPayload = privatePush.payloadJSON
            $0.subtitle = privatePush.subtitle
            $0.threadIdentifier = privatePush.threadIdentifier
            $0.categoryIdentifier = privatePush.categoryIdentifier
            $0.privatePushFailure = privatePush.failure
        }
    }

    private func sendReceipt(deadline: Date) async {
        guard info.kind == .chat || info.kind == .campaign else { return }
        guard let client = environment.client, let directory = environment.receiptDirectory else {
            environment.logger.log(.info, "No App Group session: the app sends this push's delivered receipt.")
            return
        }
        let clock = environment.clock
        let sender = ReceiptSender(
            ledger: PNReceiptLedger(directory: directory, now: { clock.now() }), client: client,
            clock: clock, logger: environment.logger, deliveredBy: "extension")
        let outcome = await sender.delivered(info, deadline: deadline)
        update { $0.receipt = outcome }
    }

    private func attachMedia(deadline: Date) async {
        guard options.attachesMedia, let url = mediaURL else { return }
        guard let attachment = await download(url, deadline: deadline) else { return }
        update { content in
            content.attachment = attachment
            if info.kind == .chat, let uid = info.senderUid {
                content.sender = PNMessageSender(
                    uid: uid, name: info.senderName, avatar: attachment.mediaType.isImage ? attachment : nil,
                    conversationId: info.conversationId,
                    groupName: info.receiverType == .group ? info.receiverName : nil)
            }
        }
    }

    /// Streams `url` to a file with the SDK's own loop (``PNMediaStreamer``), sniffs it, and renames it with the right extension.
    private func download(_ url: URL, deadline: Date) async -> PNExtensionAttachment? {
        let identifier = "cometchat-\(UUID().uuidString)"
        let partial = environment.temporaryDirectory.appendingPathComponent(identifier + ".part")
        state.withLock { $0.files.append(partial) }
        let file: PNDownloadedFile
        do {
            file = try await PNMediaStreamer(clock: environment.clock).download(
                url, from: environment.downloader, to: partial, maxBytes: options.maxAttachmentBytes, deadline: deadline)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            environment.logger.log(.warning, "The attachment was not downloaded: \(error)")
            return nil
        }
        guard let type = PNMediaType.sniff(fileAt: file.fileURL) else {
            try? FileManager.default.removeItem(at: file.fileURL)
            environment.logger.log(
                .warning,
                "The attachment is not a type iOS attaches (JPEG, PNG, GIF; AIFF, WAV, MP3, M4A; MPEG, MP4, AVI) "
                    + "(claimed \(file.claimedMIMEType ?? "nothing")); it was dropped.")
            return nil
        }
        guard file.byteCount <= type.maxBytes else {
            try? FileManager.default.removeItem(at: file.fileURL)
            environment.logger.log(
                .warning,
                "The attachment is \(type.rawValue) of \(file.byteCount) bytes, over iOS's \(type.maxBytes) for that type; it was dropped.")
            return nil
        }
        let final = environment.temporaryDirectory.appendingPathComponent(identifier + "." + type.fileExtension)
        do {
            try FileManager.default.moveItem(at: file.fileURL, to: final)
        } catch {
            try? FileManager.default.removeItem(at: file.fileURL)
            return nil
        }
        let late = state.withLock { state -> Bool in
            state.files.append(final)
            return state.finished
        }
        if late {
            try? FileManager.default.removeItem(at: final)
            return nil
        }
        return PNExtensionAttachment(identifier: identifier, fileURL: final, mediaType: type)
    }
}

/// What the extension takes from a private push (issue 28) besides its standard payload.
struct PrivatePushContent: Sendable {
    var opened: Bool
    var payloadJSON: Data?
    var subtitle: String?
    var threadIdentifier: String?
    var categoryIdentifier: String?
    var failure: String?

    /// The texts of the decrypted `aps.alert`, as iOS would have shown them from a standard push.
    static func alertTexts(_ payload: [AnyHashable: Any]) -> (title: String?, subtitle: String?, body: String?) {
        let alert = (payload["aps"] as? [AnyHashable: Any])?["alert"]
        if let text = alert as? String { return (nil, nil, text) }
        let object = alert as? [AnyHashable: Any]
        return (object?["title"] as? String, object?["subtitle"] as? String, object?["body"] as? String)
    }

    static func opened(_ payload: [AnyHashable: Any]) -> PrivatePushContent {
        let aps = payload["aps"] as? [AnyHashable: Any]
        var json: [String: Any] = [:]
        for (key, value) in payload { if let key = key as? String { json[key] = value } }
        return PrivatePushContent(
            opened: true,
            payloadJSON: JSONSerialization.isValidJSONObject(json) ? try? JSONSerialization.data(withJSONObject: json) : nil,
            subtitle: alertTexts(payload).subtitle, threadIdentifier: aps?["thread-id"] as? String,
            categoryIdentifier: aps?["category"] as? String, failure: nil)
    }
}
