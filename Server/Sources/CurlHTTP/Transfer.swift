import CCurl
import ServerSupport

/// The state of one request in flight: its easy handle, header list, body and what has
/// been received so far.
///
/// `@unchecked Sendable`: created by the submitting thread, then touched only by the
/// client's loop thread (libcurl calls the write, read and header callbacks on it).
final class Transfer: @unchecked Sendable {
    let request: OutboundRequest
    /// The client's `maxResponseBytes`.
    var responseLimit = Int.max
    let completion: @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// Set when the response body passed the client's `maxResponseBytes` (the transfer was aborted).
    var tooLarge = false
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// How much of the request body libcurl has read (`readBody`).
    var bodyRead = 0
    /// Whether the URL is `https` (set when a request with a destination policy is screened;
    /// until then plain http's stricter rule applies).
    var secure = false
    /// Why the destination policy refused a connection of this transfer (the first refusal).
    var refusal: DestinationPolicy.Refusal?

    init(request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, HTTPTransportError>) -> Void) {
        self.request = request
        self.completion = completion
    }

    /// Appends received body bytes; false (abort the transfer) past `limit` bytes.
    func receiveBody(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Bool {
        guard body.count + bytes.count <= limit else {
            tooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Copies the next part of the request body into libcurl's `buffer`; 0 once all of it was read.
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let body = request.body, bodyRead < body.count else { return 0 }
        let count = min(buffer.count, body.count - bodyRead)
        body.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[bodyRead..<(bodyRead + count)]))
        }
        bodyRead += count
        return count
    }

    /// libcurl's open-socket callback: the socket for `address` when the request's policy
    /// allows it (or it has none), else `CURL_SOCKET_BAD` (libcurl then tries the next address
    /// or fails with `CURLE_COULDNT_CONNECT`), remembering why.
    func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if let policy = request.destinationPolicy {
            guard let ip = IPAddress(socketAddress: ccurl_sockaddr_bytes(address), length: Int(address.pointee.addrlen)) else {
                refusal = refusal ?? DestinationPolicy.Refusal("address family \(address.pointee.family) is not IPv4 or IPv6")
                return ccurl_socket_bad()
            }
            if let refused = policy.refusal(of: ip, secure: secure) {
                refusal = refusal ?? refused
                return ccurl_socket_bad()
            }
        }
        return ccurl_open_socket(address)
    }

    /// libcurl's pre-request callback: whether the request may be sent on a connection (new or
    /// reused) whose peer is `primaryIP` (a proxy's address when there is one).
    func mayUseConnection(primaryIP: String?) -> Bool {
        guard let policy = request.destinationPolicy else { return true }
        guard let text = primaryIP, let ip = IPAddress(text) else {
            refusal = refusal ?? DestinationPolicy.Refusal("the connection's peer address is unknown")
            return false
        }
        if let refused = policy.refusal(of: ip, secure: secure) {
            refusal = refusal ?? refused
            return false
        }
        return true
    }

    /// Frees the C resources the easy handle pointed at; call after it left the multi handle.
    func release() {
        if let list = headerList { curl_slist_free_all(list) }
        headerList = nil
    }

    /// Records one raw header line (`name: value\r\n`); status lines reset the set, so only
    /// the final response's headers are kept.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            if line.starts(with: "HTTP/".utf8) { headers.removeAll(keepingCapacity: true) }
            return
        }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, line[end - 1] == 13 || line[end - 1] == 10 || line[end - 1] == 32 { end -= 1 }
        headers[name] = String(decoding: line[start..<end], as: UTF8.self)
    }
}
