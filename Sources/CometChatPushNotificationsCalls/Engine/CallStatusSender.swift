import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension CallEngine {
    /// `PUT /calls/{sessionId}` with `{"status": …}` (Contract/WIRE-CONTRACT.md §2), retried twice when the
    /// service did not answer.
    func sendStatus(_ status: String, sessionId: String, completion: (@Sendable (PNResult<Void>) -> Void)?) {
        guard let sdk else {
            completion?(.failure(PNError(code: .notInitialised, message: "The SDK instance is gone.")))
            return
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        let path = "/calls/" + (sessionId.addingPercentEncoding(withAllowedCharacters: allowed) ?? sessionId)
        let clock = self.clock
        let logger = self.logger
        let queue = callbackQueue
        sdk.beginWork()
        Task { [weak sdk] in
            var result: PNResult<Data> = .failure(PNError(code: .notInitialised, message: "The SDK instance is gone."))
            for attempt in 0..<3 {
                guard let sdk else { break }
                result = await sdk.sendClientRequest("PUT", path, json: ["status": status])
                guard case .failure(let error) = result, error.code == .networkError, attempt < 2 else { break }
                do { try await clock.sleep(seconds: Double(2 << attempt)) } catch { break }
            }
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
