import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``PNHTTPTransport`` on `URLSession`.
struct URLSessionTransport: PNHTTPTransport {
    /// How long one request may take, in seconds.
    var timeout: TimeInterval = 30

    func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    continuation.resume(throwing: PNTransportError(error.localizedDescription))
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: PNTransportError("No response."))
                }
            }.resume()
        }
        guard let http = response as? HTTPURLResponse else { throw PNTransportError("Not an HTTP response.") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return PNHTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}
