import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension CallEngine {
    /// `PUT /calls/{sessionId}` with `{"status": …}` (Contract/WIRE-CONTRACT.md §2), sent twice more when
    /// the service did not answer (``PNRetryPolicy/callStatus``).
    func sendStatus(_ status: String, sessionId: String, completion: (@Sendable (PNResult<Void>) -> Void)?) {
        guard let sdk else {
            completion?(.failure(PNError(code: .notInitialised, message: "The SDK instance is gone.")))
            return
        }
        let path = "/calls/" + PNPercentEncoding.pathSegment(sessionId)
        let clock = self.clock
        let logger = self.logger
        let queue = callbackQueue
        sdk.beginWork()
        Task { [weak sdk] in
            let sent = await PNRetryPolicy.callStatus.run(on: clock, retryingIf: { $0.code == .networkError }) {
                () async -> PNResult<Data> in
                guard let sdk else { return .failure(PNError(code: .notInitialised, message: "The SDK instance is gone.")) }
                return await sdk.sendClientRequest("PUT", path, json: ["status": status])
            }
            let result = sent.value
            if case .failure(let error) = result {
                logger.log(.warning, "Could not send call status \(status) for \(sessionId): \(error.description)")
            }
            let outcome = result.map { _ in () }
            let owner = sdk
            if let completion {
                owner?.beginWork()
                queue.async {
                    completion(outcome)
                    owner?.endWork()
                }
            }
            owner?.endWork()
        }
    }
}

extension PNRetryPolicy {
    /// A call status the service did not answer (no answer, 502, 503, 504; not a 500 or a 4xx):
    /// sent again 2 s and then 4 s later, three attempts in all.
    static let callStatus = PNRetryPolicy(firstDelay: 2, maxDelay: 4, maxAttempts: 3)
}
