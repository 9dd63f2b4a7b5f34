import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// One quick reply on its way: background time, the send with retries, the failure report,
/// and the completion handler iOS waits for (rule 22), called exactly once.
struct QuickReply: Sendable {
    let sdk: CometChatPushNotifications
    let text: String
    let info: CometChatNotificationInfo
    let completion: @Sendable () -> Void

    func start() {
        let platform = sdk.runtimePlatform
        let sender = ReplySender(
            client: AppSessionClient(sdk: sdk), clock: platform.clock,
            logger: platform.logger)
        let done = PNLocked(false)
        let work = PNLocked<Task<Void, Never>?>(nil)
        let finish: @Sendable () -> Void = { [sdk, completion] in
            let first = done.withLock { finished -> Bool in
                defer { finished = true }
                return !finished
            }
            guard first else { return }
            completion()
            sdk.endWork()
        }
        // The background task ends exactly once: when the reply is done, or synchronously inside
        // the expiration handler (rule 27: iOS kills an app whose handler returns first).
        let time = PNBackgroundTime(application: platform.application)
        sdk.beginWork()
        let task = Task { [self] in
            await time.begin(name: "CometChat quick reply") { work.withLock { $0 }?.cancel() }
            let result = await sender.send(text, to: info)
            if case .failure(let error) = result { await reportFailure(error) }
            time.end()
            finish()
        }
        work.withLock { $0 = task }
    }

    /// Tells the delegate and shows a local notification: a reply is never lost silently.
    private func reportFailure(_ error: PNError) async {
        let platform = sdk.runtimePlatform
        sdk.beginWork()
        platform.callbackQueue.async { [sdk, text, info] in
            if let delegate = sdk.delegate as? CometChatPushNotificationsChatDelegate {
                delegate.pnDidFailToSendReply(text, info, error)
            }
            sdk.endWork()
        }
        let to = info.receiverType == .group ? (info.receiverName ?? info.receiverId) : (info.senderName ?? info.senderUid)
        let request = PNLocalNotificationRequest(
            identifier: "cometchat-reply-failed-\(info.messageId ?? UUID().uuidString)",
            title: "Reply not sent",
            body: "Your reply\(to.map { " to \($0)" } ?? "") was not sent: “\(text)”. Open the app to try again.",
            threadIdentifier: info.conversationId,
            userInfo: ["cometchatReplyFailed": "true"])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            platform.notificationCenter.add(request) { _ in continuation.resume() }
        }
    }
}
