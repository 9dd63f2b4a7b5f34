import Foundation

/// The client REST API of `Contract/WIRE-CONTRACT.md` §1–2: base URL, headers, bodies and the error
/// envelope. Stateless; the session and the transport come in.
struct ClientAPI: Sendable {
    let baseURL: URL
    let appId: String
    let transport: PNHTTPTransport

    /// `https://{appId}.apiclient-{region}.cometchat.io/v3.0`, or the `clientHost` override:
    /// a bare host becomes `https://{host}`; a full URL is used as it is (no version added).
    static func baseURL(appId: String, region: String, clientHost: String?) -> URL? {
        if let host = clientHost?.trimmingCharacters(in: .whitespacesAndNewlines), !host.isEmpty {
            var text = host
            while text.hasSuffix("/") { text.removeLast() }
            if !text.contains("://") { text = "https://" + text }
            guard let url = URL(string: text), url.host != nil else { return nil }
            return url
        }
        let app = appId.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let reg = region.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return URL(string: "https://\(app).apiclient-\(reg).cometchat.io/v3.0")
    }

    /// Sends one call and classifies the answer.
    func call(_ method: String, _ path: String, json body: [String: Any]?, authToken: String) async -> Result<Data, PNError> {
        var urlText = baseURL.absoluteString
        urlText += path.hasPrefix("/") ? path : "/" + path
        guard let url = URL(string: urlText) else {
            return .failure(PNError(code: .serverError, message: "Invalid request path \(path)."))
        }
        var bodyData: Data?
        if let body {
            guard JSONSerialization.isValidJSONObject(body),
                let data = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            else {
                return .failure(PNError(code: .serverError, message: "The request body is not valid JSON."))
            }
            bodyData = data
        }
        let request = PNHTTPRequest(
            method: method, url: url,
            headers: [
                "appid": appId, "authToken": authToken,
                "Content-Type": "application/json", "Accept": "application/json",
            ],
            body: bodyData)
        let response: PNHTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as PNTransportError {
            return .failure(PNError(code: .networkError, message: "No answer from the service: \(error.reason)"))
        } catch {
            return .failure(PNError(code: .networkError, message: "No answer from the service."))
        }
        return Self.classify(response).mapError { $0.redacting(authToken) }
    }

    /// 2xx is success; 502/503/504 are `networkError`; anything else is `serverError` with the
    /// envelope's code and message.
    static func classify(_ response: PNHTTPResponse) -> Result<Data, PNError> {
        if (200..<300).contains(response.status) { return .success(response.body) }
        var serverCode: String?
        var message = "The service answered HTTP \(response.status)."
        if let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let envelope = object["error"] as? [String: Any]
        {
            serverCode = envelope["code"] as? String
            if let text = envelope["message"] as? String, !text.isEmpty { message = text }
        }
        let code: PNError.Code = [502, 503, 504].contains(response.status) ? .networkError : .serverError
        return .failure(PNError(code: code, message: message, serverCode: serverCode, httpStatus: response.status))
    }
}

extension PNError {
    /// The same error with `secret` cut out of its message: services echo the auth token in
    /// messages (`The auth token … does not exist.`), and messages reach logs and delegates.
    func redacting(_ secret: String) -> PNError {
        guard !secret.isEmpty, message.contains(secret) else { return self }
        return PNError(
            code: code, message: message.replacingOccurrences(of: secret, with: "<auth token>"), serverCode: serverCode,
            httpStatus: httpStatus)
    }

    /// The service says the auth token is gone: the user is logged out.
    @_spi(PNProducts)
    public var endsSession: Bool { serverCode == "AUTH_ERR_AUTH_TOKEN_NOT_FOUND" }

    /// Worth trying again later: no answer, or a 5xx.
    @_spi(PNProducts)
    public var isRetryable: Bool {
        if endsSession { return false }
        if code == .networkError { return true }
        return code == .serverError && httpStatus >= 500
    }
}
