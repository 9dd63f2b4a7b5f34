import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// What happened to one receipt.
public enum PNReceiptOutcome: Sendable, Equatable {
    /// Sent now by this process.
    case sent
    /// Already sent, by this process or the other one.
    case alreadySent
    /// The other process is sending it.
    case heldElsewhere
    /// The push does not call for this receipt (not a chat message, no message id, …).
    case notApplicable
    /// Sending failed; the claim was released.
    case failed(PNError.Code)
}

/// Sends delivered and clicked receipts once per push, across threads and across the app and
/// its extension, through ``PNReceiptLedger``.
struct ReceiptSender: Sendable {
    let ledger: PNReceiptLedger
    let client: PNChatClient
    let clock: PNClock
    let logger: PNLogger
    /// Who sees the push, as delivered receipts to a self-hosted service say: `app` or
    /// `extension`.
    var deliveredBy = "app"

    /// Marks a chat message delivered (with its push id and ``deliveredBy`` against a
    /// self-hosted service).
    func messageDelivered(_ info: CometChatNotificationInfo, deadline: Date) async -> PNReceiptOutcome {
        guard let request = ChatRequests.delivered(info, deliveredBy: client.isSelfHosted ? deliveredBy : nil),
            let id = info.messageId
        else { return .notApplicable }
        return await send(request, kind: .messageDelivered, id: id, deadline: deadline)
    }

    /// Sends the opened call of a self-hosted service's push, once per push id.
    func opened(_ info: CometChatNotificationInfo, deadline: Date) async -> PNReceiptOutcome {
        guard client.isSelfHosted, let request = ChatRequests.opened(info), let id = info.pushId else {
            return .notApplicable
        }
        return await send(request, kind: .pushOpened, id: id, deadline: deadline)
    }

    /// Marks a campaign push delivered (`clicked: false`) or opened.
    func campaign(_ info: CometChatNotificationInfo, clicked: Bool, deadline: Date) async -> PNReceiptOutcome {
        guard let request = ChatRequests.campaign(info, clicked: clicked),
            let id = ChatRequests.campaignReceiptId(info)
        else { return .notApplicable }
        return await send(request, kind: clicked ? .campaignClicked : .campaignDelivered, id: id, deadline: deadline)
    }

    /// The delivered receipt a push calls for: a chat message's, or a campaign's.
    func delivered(_ info: CometChatNotificationInfo, deadline: Date) async -> PNReceiptOutcome {
        switch info.kind {
        case .chat: return await messageDelivered(info, deadline: deadline)
        case .campaign: return await campaign(info, clicked: false, deadline: deadline)
        case .call, .other: return .notApplicable
        }
    }

    private func send(_ request: ChatRequest, kind: PNReceiptLedger.Kind, id: String, deadline: Date) async -> PNReceiptOutcome {
        let generation: Int
        switch ledger.claim(kind, id: id) {
        case .alreadySent: return .alreadySent
        case .heldElsewhere: return .heldElsewhere
        case .granted(let granted): generation = granted
        }
        let outcome = await PNRetryPolicy.chatRequest.run(on: clock, until: deadline) {
            await client.send(request.method, request.path, json: request.json)
        }
        let attempts = outcome.attempts
        switch outcome.value {
        case .success:
            ledger.markSent(kind, id: id, generation: generation)
            logger.log(.debug, "Sent the \(kind.rawValue) receipt (\(attempts) attempt(s)).")
            return .sent
        case .failure(let error):
            ledger.release(kind, id: id, generation: generation)
            logger.log(
                .warning,
                "The \(kind.rawValue) receipt was not sent after \(attempts) attempt(s): "
                    + "\(error.code.name) \(error.message)")
            return .failed(error.code)
        }
    }
}
