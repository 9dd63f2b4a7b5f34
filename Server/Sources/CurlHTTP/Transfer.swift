import CCurl

/// The state of one request in flight: its easy handle, header list, body and what has
/// been received so far.
///
/// `@unchecked Sendable`: created by the submitting thread, then touched only by the
/// client's loop thread (libcurl calls the write, read and header callbacks on it).
final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    /// The client's `maxResponseBytes`.
    var responseLimit = Int.max
    let completion: @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// Set when the response body passed the client's `maxResponseBytes` (the transfer was aborted).
    var tooLarge = false
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// How much of the request body libcurl has read (`readBody`).
    var bodyRead = 0

    init(request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
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
