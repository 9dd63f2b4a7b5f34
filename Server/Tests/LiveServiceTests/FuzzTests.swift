import Foundation
import PushTestSupport
import Testing

/// Malformed requests (bounded in count and time, 127.0.0.1 only): every answer is a
/// client error in the envelope, nothing is a 5xx, and the service keeps running.
@Suite struct FuzzTests {
    static let paths = [
        "/notifications/push/v1/tokens", "/users/bob/conversation/delivered", "/groups/g1/conversation/delivered", "/messages",
        "/messages/m1/thread", "/campaigns/push-notifications/a1/delivered", "/campaigns/push-notifications/a1/clicked", "/calls/s1",
        "/notifications/push/v1/send", "/notifications/push/v1/providers/apns", "/notifications/push/v1/providers/fcm", "/apps", "/users",
        "/users/bob/auth_tokens", "/notifications/push/v1/tokens/abc",
    ]
    /// Real routes with the auth they need (client or admin) and the body that fits them.
    static let routes: [(String, String, Bool, Int)] = [
        ("POST", "/notifications/push/v1/tokens", false, 0), ("POST", "/users/bob/conversation/delivered", false, 1),
        ("POST", "/groups/g1/conversation/delivered", false, 1), ("POST", "/messages", false, 2), ("POST", "/messages/m1/thread", false, 2),
        ("PUT", "/calls/s1", false, 3), ("POST", "/notifications/push/v1/send", true, 4),
        ("POST", "/notifications/push/v1/providers/apns", true, 5), ("POST", "/apps", true, 6), ("POST", "/users", true, 7),
    ]
    static let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "FOO", "G\u{1}ET"]
    static let validBodies = [
        #"{"fcmToken":"abcd","platform":"apns_ios_device","providerId":"apns-1","timezone":"UTC"}"#,
        #"{"messageId":"m1"}"#,
        #"{"receiver":"bob","receiverType":"user","category":"message","type":"text","data":{"text":"hi"}}"#,
        #"{"status":"rejected"}"#,
        #"{"type":"chat","recipients":[{"uid":"bob","badge":1}],"message":{"id":"1","sender":{"uid":"a"},"receiver":{"uid":"bob"},"text":"x"}}"#,
        #"{"providerId":"p","keyId":"k","teamId":"t","bundleId":"b","p8Key":"-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----"}"#,
        #"{"appId":"fuzz-app","webhookUrl":"http://127.0.0.1:9/x"}"#,
        #"{"uid":"someone","withAuthToken":true}"#,
    ]

    static func mutate(_ text: String, _ rng: inout SeededGenerator) -> Data {
        var bytes = [UInt8](text.utf8)
        switch Int.random(in: 0..<9, using: &rng) {
        case 0:  // flip bytes
            for _ in 0..<Int.random(in: 1...6, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            }
        case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))  // truncate
        case 2: bytes = (0..<Int.random(in: 0...512, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }  // noise
        case 3: bytes = Array(String(repeating: "[", count: Int.random(in: 30...5_000, using: &rng)).utf8)  // deep nesting
        case 4: bytes = Array(text.replacingOccurrences(of: "\"bob\"", with: "\"" + String(repeating: "b", count: 5_000) + "\"").utf8)
        case 5: bytes = Array(text.replacingOccurrences(of: "\"x\"", with: "12").replacingOccurrences(of: "\"hi\"", with: "null").utf8)
        case 6: bytes = Array(text.replacingOccurrences(of: "a", with: "\u{0}\u{7f}\u{202e}é").utf8)
        case 7: bytes = Array("{\"a\":\(String(repeating: "1", count: 400))e99999}".utf8)
        default: break  // valid as is
        }
        return Data(bytes)
    }

    @Test func malformedRequestsGetOnlyClientErrors() async throws {
        let harness = try await Harness.start(transport: .socket) { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let session = try await harness.makeUser("bob")
        var rng = SeededGenerator(seed: 0x5EED_0007)
        // Bounded in count, and in time only by an outer limit that a working service never
        // meets: each request waits for its answer (up to 10 s), so a slow machine takes longer
        // but sends them all, and a service that stops answering ends the loop at once.
        let total = 1_000
        let limit = Date().addingTimeInterval(600)
        var statuses: [Int: Int] = [:]
        var sent = 0
        while sent < total, Date() < limit {
            sent += 1
            let onRoute = Int.random(in: 0..<10, using: &rng) < 7
            let route = Self.routes.randomElement(using: &rng)!
            let method = onRoute ? route.0 : Self.methods.randomElement(using: &rng)!
            var path = onRoute ? route.1 : Self.paths.randomElement(using: &rng)!
            let bodyText = onRoute ? Self.validBodies[route.3] : Self.validBodies.randomElement(using: &rng)!
            switch Int.random(in: 0..<(onRoute ? 12 : 6), using: &rng) {
            case 0: path += "/" + String(repeating: "%2e%2E/", count: Int.random(in: 1...20, using: &rng))
            case 1: path += "?uid=" + String(repeating: "%00%ff", count: Int.random(in: 1...50, using: &rng))
            case 2: path = String(path.shuffled(using: &rng)).replacingOccurrences(of: " ", with: "")
            default: break
            }
            var headers: [String] = []
            let auth = onRoute && Int.random(in: 0..<4, using: &rng) > 0 ? (route.2 ? 4 : 3) : Int.random(in: 0..<6, using: &rng)
            if auth != 0 { headers.append("appid: " + (auth == 1 ? "app1\u{7f}" : "app1")) }
            if auth >= 2, auth != 4 { headers.append("authToken: " + (auth == 2 ? "x" : session.authToken)) }
            if auth == 4 { headers.append("apikey: " + Harness.adminKey) }
            if auth == 5 { headers.append("apikey: " + String(repeating: "k", count: 3_000)) }
            if Bool.random(using: &rng) {
                headers.append("Content-Type: " + ["application/json", "text/plain", "\u{1}", ""].randomElement(using: &rng)!)
            }
            if Int.random(in: 0..<20, using: &rng) == 0 { headers.append("X-Huge: " + String(repeating: "h", count: 40_000)) }
            if Int.random(in: 0..<25, using: &rng) == 0 { headers.append("Content-Length: 99999999") }
            let body = Self.mutate(bodyText, &rng)
            var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".utf8)
            for header in headers { request += Data((header + "\r\n").utf8) }
            if !headers.contains(where: { $0.hasPrefix("Content-Length") }) { request += Data("Content-Length: \(body.count)\r\n".utf8) }
            request += Data("\r\n".utf8) + body
            let response = try await RawHTTP.send(port: harness.port, bytes: request)
            let status = response?.status ?? 0
            statuses[status, default: 0] += 1
            if let response, method != "HEAD", status >= 400, status < 500,
                response.headers["content-type"]?.hasPrefix("application/json") == true
            {
                #expect(response.errorCode != nil, "4xx without the error envelope for \(method) \(path)")
            }
            #expect(status < 500, "\(method) \(path) got \(status)")
            if status >= 500 || status == 0 { break }
        }
        print("fuzz: \(sent) requests, statuses \(statuses.sorted { $0.key < $1.key })")
        // Every answer was a 4xx (or a 200 for mutations that stayed valid), and the service still answers.
        #expect(sent == total, "\(sent) of \(total) requests sent")
        #expect(statuses.keys.allSatisfy { (200..<300).contains($0) || (400..<500).contains($0) }, "\(statuses)")
        #expect((statuses.filter { (400..<500).contains($0.key) }.values.reduce(0, +)) > sent / 2, "\(statuses)")
        #expect(try await RawHTTP.json(port: harness.port, "GET", "/health").status == 200)
    }
}
