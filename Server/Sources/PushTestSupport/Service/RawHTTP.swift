import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tiny blocking HTTP/1.1 client over a TCP socket to 127.0.0.1, for tests: sends
/// exactly the bytes asked for (so malformed requests are possible) and reads to EOF.
public enum RawHTTP {
    /// An answer: from the socket, or from the handler in process (``Harness/handle(_:_:headers:body:)``).
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The headers, names in lower case (the last of a name wins).
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// An answer with these parts.
        public init(status: Int, headers: [String: String], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }

        /// The envelope's `data` object.
        public var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
        /// The envelope's `data` array.
        public var dataArray: [[String: Any]] { json["data"] as? [[String: Any]] ?? [] }
        /// The error envelope's `code`.
        public var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    /// Why no answer came.
    public enum Failure: Error, Sendable {
        case connect, noResponse
    }

    /// Sends a well-formed request.
    public static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Response {
        try await offThePool { try requestSync(port: port, method, path, headers: headers, body: body) }
    }

    /// JSON convenience.
    public static func json(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], _ body: Any? = nil
    ) async throws -> Response {
        let (headers, data) = try jsonRequest(headers: headers, body)
        return try await request(port: port, method, path, headers: headers, body: data)
    }

    /// The headers and body of a JSON request: `body` serialized (when given) with its
    /// `Content-Type`, and `Accept: application/json`.
    public static func jsonRequest(headers: [String: String], _ body: Any?) throws -> ([String: String], Data?) {
        var allHeaders = headers
        var data: Data?
        if let body {
            data = try JSONSerialization.data(withJSONObject: body)
            allHeaders["Content-Type"] = "application/json"
        }
        allHeaders["Accept"] = "application/json"
        return (allHeaders, data)
    }

    /// Sends raw bytes; nil when the server closed without an answer.
    public static func send(port: Int, bytes: Data, timeout: Int = 10) async throws -> Response? {
        try await offThePool { try sendSync(port: port, bytes: bytes, timeout: timeout) }
    }

    /// Sends a well-formed request, blocking the calling thread.
    public static func requestSync(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            head += "\(name): \(value)\r\n"
        }
        if let body {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        guard let response = try sendSync(port: port, bytes: Data(head.utf8) + (body ?? Data())) else { throw Failure.noResponse }
        return response
    }

    /// Sends raw bytes, blocking the calling thread; nil when the server closed without an answer.
    public static func sendSync(port: Int, bytes: Data, timeout: Int = 10) throws -> Response? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure.connect }
        var offset = 0
        let buffer = [UInt8](bytes)
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { break }
            offset += written
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return parse(received)
    }

    /// An HTTP/1.1 answer's status, headers and body; nil when `data` has no complete head.
    public static func parse(_ data: Data) -> Response? {
        guard let separator = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<separator.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data(data[separator.upperBound...]))
    }
}

extension RawHTTP {
    /// Sends chat message `key` from alice to the development seed's `dev-user` (every token of
    /// hers) through the admin send API, with `Idempotency-Key` `<keyPrefix>-<key>` so a resend
    /// is accepted once; the status, or nil when no answer came.
    public static func sendDevChat(port: Int, adminKey: String, keyPrefix: String, key: Int) async -> Int? {
        let body: [String: Any] = [
            "type": "chat", "recipients": [["uid": "dev-user"]],
            "message": ["id": "m\(key)", "sender": ["uid": "alice"], "receiver": ["uid": "dev-user"], "text": "Message \(key)"],
        ]
        return try? await json(
            port: port, "POST", "/notifications/push/v1/send",
            headers: ["apikey": adminKey, "appid": "dev-app", "Idempotency-Key": "\(keyPrefix)-\(key)"], body
        ).status
    }
}
