import Foundation
import PushTestSupport
import Testing

/// The API tests call the service in process (`Harness.handle`: the handler without a socket).
/// This suite sends the same requests over a live socket and in process, to one service, and
/// expects the same answers: status, body, and every header the handler set. A difference
/// means the in-process call builds a request the HTTP layer would not (a path or query
/// decoded otherwise, a header missing), and the API tests would prove less than they say.
@Suite struct InProcessCallTests {
    let harness: Harness
    let bob: Harness.TestSession

    init() async throws {
        harness = try await Harness.start { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        bob = try await harness.makeUser("bob")
        #expect(try await harness.register(String(repeating: "b0", count: 32), platform: "apns_ios_device", session: bob).status == 200)
        #expect(try await harness.register("fcm-bob-1", platform: "fcm_ios", session: bob).status == 200)
    }

    /// Headers the HTTP layer adds to every answer on the wire; the rest the handler set.
    static let transportHeaders: Set<String> = ["content-length", "date", "connection", "keep-alive"]

    /// Requests that change nothing (so both answers can be compared byte for byte), through
    /// routing, authentication, the path's and the query's decoding and the error envelope.
    static var requests: [(method: String, path: String, headers: [String: String], body: String?)] {
        let admin = ["apikey": Harness.adminKey, "appid": "app1"]
        return [
            ("GET", "/apps", ["apikey": Harness.adminKey], nil),
            ("GET", "/apps", [:], nil),
            ("GET", "/apps", ["apikey": "wrong"], nil),
            ("GET", "/users/bob", admin, nil),
            ("GET", "/users/b%6Fb", admin, nil),
            ("GET", "/users/%62%6f%62", admin, nil),
            ("GET", "/users/nobody", admin, nil),
            ("GET", "/notifications/push/v1/tokens?uid=bob", admin, nil),
            ("GET", "/notifications/push/v1/tokens?uid=b%6Fb&other=1", admin, nil),
            ("GET", "/notifications/push/v1/tokens?uid=", admin, nil),
            ("GET", "/notifications/push/v1/tokens?uid=no+body", admin, nil),
            ("GET", "/notifications/push/v1/tokens", admin, nil),
            ("GET", "/no/such/path", [:], nil),
            ("PATCH", "/apps/x", ["apikey": Harness.adminKey], nil),
            ("DELETE", "/apps", ["apikey": Harness.adminKey], nil),
            ("POST", "/users", admin, "{not json"),
            ("POST", "/users", admin, #"{"uid":"has space"}"#),
            ("POST", "/apps", ["apikey": Harness.adminKey, "Content-Type": "application/json"], #"{"appId":"app1"}"#),
            ("GET", "/openapi.json", [:], nil),
            ("GET", "/dashboard", [:], nil),
            ("GET", "/dashboard/assets/dashboard.js", [:], nil),
            ("GET", "/health", [:], nil),
            ("HEAD", "/health", [:], nil),
            ("HEAD", "/openapi.json", [:], nil),
        ]
    }

    @Test(arguments: 0..<Self.requests.count)
    func aRequestGetsTheSameAnswerInProcessAsOverTheSocket(_ index: Int) async throws {
        let request = Self.requests[index]
        let body = request.body.map { Data($0.utf8) }
        let live = try await RawHTTP.request(port: harness.port, request.method, request.path, headers: request.headers, body: body)
        let inProcess = try await harness.handle(request.method, request.path, headers: request.headers, body: body)
        let label = "\(request.method) \(request.path)"
        #expect(inProcess.status == live.status, "\(label)")
        #expect(
            inProcess.body == live.body,
            "\(label): in process \(String(decoding: inProcess.body.prefix(300), as: UTF8.self)); over the socket \(String(decoding: live.body.prefix(300), as: UTF8.self))"
        )
        #expect(
            inProcess.headers == live.headers.filter { !Self.transportHeaders.contains($0.key) },
            "\(label): in process \(inProcess.headers); over the socket \(live.headers)")
    }

    /// The client calls of the session, which the rate limiter counts (off here) and which read
    /// the session by its auth token.
    @Test func aClientCallGetsTheSameAnswer() async throws {
        let headers = ["appid": bob.appId, "authToken": bob.authToken]
        for path in ["/notifications/push/v1/preferences", "/notifications/push/v1/tokens"] {
            let live = try await RawHTTP.request(port: harness.port, "GET", path, headers: headers)
            let inProcess = try await harness.handle("GET", path, headers: headers)
            #expect(live.status == inProcess.status && live.body == inProcess.body, "GET \(path)")
        }
    }

    /// A body the HTTP layer refuses never reaches a handler: the in-process call throws instead
    /// of answering what the server never would.
    @Test func aBodyOverTheLimitNeedsTheSocket() async throws {
        let body = Data(repeating: UInt8(ascii: "a"), count: harness.app.configuration.maxBodyBytes + 1)
        await #expect(throws: Harness.NeedsSocket.self) {
            _ = try await harness.handle("POST", "/users", headers: ["apikey": Harness.adminKey, "appid": "app1"], body: body)
        }
        let live = try await RawHTTP.request(
            port: harness.port, "POST", "/users", headers: ["apikey": Harness.adminKey, "appid": "app1"], body: body)
        #expect(live.status == 413)
    }

    /// A harness started with `transport: .socket` sends its calls over HTTP: a body over the
    /// limit gets the HTTP layer's 413, where the in-process call would throw.
    @Test func aSocketHarnessCallsOverHTTP() async throws {
        let live = try await Harness.start(transport: .socket) { $0.maxBodyBytes = 1_024 }
        try await live.makeApp()
        let alice = try await live.makeUser("alice")
        #expect(try await live.register("aa11", platform: "apns_ios_device", session: alice).status == 200)
        let tokens = try await live.admin("GET", "/notifications/push/v1/tokens?uid=alice", appId: "app1")
        #expect((tokens.data["pushTokens"] as? [Any])?.count == 1)
        let big = try await live.admin("POST", "/users", appId: "app1", ["uid": "carol", "name": String(repeating: "c", count: 2_000)])
        #expect(big.status == 413)
    }
}
