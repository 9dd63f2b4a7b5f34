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
    public init(
        payload: [AnyHashable: Any], title: String?, body: String?,
        options: PNExtensionOptions = PNExtensionOptions(), environment: PNExtensionEnvironment
    ) {
        info = CometChatNotificationInfo(rawPayload: payload)
        self.title = title
        self.body = body
        self.options = options
        self.environment = environment
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
        guard options.stripsMarkdown else { return }
        let newTitle = title.map(PNMarkdownStripper.plainText)
        let newBody = body.map(PNMarkdownStripper.plainText)
        update {
            if newTitle != title { $0.title = newTitle }
            if newBody != body { $0.body = newBody }
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
