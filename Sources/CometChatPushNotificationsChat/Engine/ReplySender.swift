import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Sends a quick reply as a text message (Contract/WIRE-CONTRACT.md §2), retrying transport failures and
/// 5xx answers with doubling delays inside the background time iOS grants (rule 22).
struct ReplySender: Sendable {
    let client: PNChatClient
    let clock: PNClock
    let logger: PNLogger
    /// How long the reply may take, from the moment it arrives. iOS grants about 30 s of
    /// background time; the rest is left for reporting a failure.
    var budget: TimeInterval = 25

    /// Sends `text` to the conversation of `info`. Fails without a request when the text is
    /// blank or the push names no receiver.
    func send(_ text: String, to info: CometChatNotificationInfo) async -> PNResult<Void> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            return .failure(PNError(code: .serverError, message: "The reply is blank; nothing was sent."))
        }
        guard let request = ChatRequests.reply(text, to: info, echoPushId: client.isSelfHosted) else {
            return .failure(PNError(code: .serverError, message: "The notification names no conversation to reply to."))
        }
        let deadline = clock.now().addingTimeInterval(budget)
        let outcome = await PNRetryPolicy.chatRequest.run(on: clock, until: deadline) {
            await client.send(request.method, request.path, json: request.json)
        }
        let attempts = outcome.attempts
        switch outcome.value {
        case .success:
            logger.log(.info, "Sent a quick reply (\(attempts) attempt(s)).")
            return .success(())
        case .failure(let error):
            logger.log(.warning, "A quick reply was not sent after \(attempts) attempt(s): \(error.code.name) \(error.message)")
            return .failure(error)
        }
    }
}
