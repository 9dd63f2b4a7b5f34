import Foundation
import PushCore
import PushTestSupport
import ServerSupport
import Testing

/// Rate limits per auth token and request size limits, with the error envelope.
@Suite struct LimitsTests {
    @Test func sessionsAreRateLimitedOneByOne() async throws {
        let harness = try await Harness.start {
            $0.rateLimitPerMinute = 1  // refills one request a minute: slow machines cannot refill mid-test
            $0.rateLimitBurst = 5
        }
        try await harness.makeApp()
        let alice = try await harness.makeUser("alice")
        let bob = try await harness.makeUser("bob")
        var statuses: [RawHTTP.Response] = []
        for _ in 0..<7 {
            statuses.append(try await harness.client("POST", "/users/bob/conversation/delivered", session: alice, ["messageId": "m"]))
        }
        #expect(statuses.prefix(5).allSatisfy { $0.status == 200 })
        #expect(statuses.last?.status == 429)
        #expect(statuses.last?.errorCode == "ERR_TOO_MANY_REQUESTS")
        // Another session is not affected.
        #expect(try await harness.client("POST", "/users/alice/conversation/delivered", session: bob, ["messageId": "m"]).status == 200)
    }

    /// Over a socket: the HTTP layer answers these before any handler runs.
    @Test func oversizedBodiesAndHeadersAreRefused() async throws {
        let harness = try await Harness.start { $0.maxBodyBytes = 4_096 }
        try await harness.makeApp()
        let alice = try await harness.makeUser("alice")
        let big = Data(("{\"fcmToken\":\"" + String(repeating: "a", count: 5_000) + "\",\"platform\":\"fcm_ios\"}").utf8)
        let response = try await RawHTTP.request(
            port: harness.port, "POST", "/notifications/push/v1/tokens", headers: ["appid": "app1", "authToken": alice.authToken], body: big
        )
        #expect(response.status == 413)
        #expect(response.errorCode == "ERR_PAYLOAD_TOO_LARGE")
        let headers = try await RawHTTP.request(
            port: harness.port, "GET", "/health", headers: ["X-Big": String(repeating: "x", count: 64_000)])
        #expect(headers.status == 431)
        let nested = Data((String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000)).utf8)
        let deep = try await RawHTTP.request(
            port: harness.port, "POST", "/messages", headers: ["appid": "app1", "authToken": alice.authToken], body: nested)
        #expect(deep.status == 400)
        #expect(try await RawHTTP.json(port: harness.port, "GET", "/health").status == 200)
    }
}

/// Nothing secret reaches the log.
@Suite struct LogTests {
    @Test func logLinesCarryNoSecrets() async throws {
        let log = RecordingLogHandler()
        let harness = try await Harness.start(configure: { $0.logLevel = .debug }, logs: log)
        try await harness.makeApp()
        let alice = try await harness.makeUser("alice")
        try await harness.register("0123456789abcdef0123", platform: "apns_ios_device", session: alice)
        _ = try await harness.admin("DELETE", "/users/alice/auth_tokens/\(alice.authToken)", appId: "app1")
        _ = try await harness.admin("DELETE", "/notifications/push/v1/tokens/0123456789abcdef0123", appId: "app1")
        let text = log.lines.joined(separator: "\n")
        #expect(text.contains("POST /users"), "the log is captured")
        for secret in [alice.authToken, Harness.adminKey, "TUlHVEFnRUFNQk1HQnlxR1NNNDlB", "0123456789abcdef0123", "whsec_"] {
            #expect(!text.contains(secret), "log contains \(secret.prefix(12))")
        }
    }

    /// Every request has its access line (`METHOD /path status Nms client=…`) at info, except the
    /// probes polled every few seconds (`/healthz`, `/health`, `/metrics`), at debug; a change
    /// made through the API is an info line of its own.
    @Test func accessLinesAreInfoAndProbesAreDebug() async throws {
        let log = RecordingLogHandler()
        let harness = try await Harness.start(configure: { $0.logLevel = .debug }, logs: log)
        try await harness.makeApp()
        for path in ["/healthz", "/health", "/metrics", "/openapi.json"] {
            _ = try await harness.request("GET", path)
        }
        func level(of line: String) -> [LogLevel] { log.records.filter { $0.message.hasPrefix(line) }.map(\.level) }
        #expect(level(of: "POST /apps 200 ") == [.info])
        #expect(level(of: "GET /openapi.json 200 ") == [.info])
        for probe in ["GET /healthz 200 ", "GET /health 200 ", "GET /metrics 200 "] { #expect(level(of: probe) == [.debug], "\(probe)") }
        #expect(level(of: "app created app=app1") == [.info])
        let line = try #require(log.records.first { $0.message.hasPrefix("POST /apps 200 ") })
        #expect(line.message.wholeMatch(of: /POST \/apps 200 \d+ms client=127\.0\.0\.1/) != nil, "\(line.message)")
    }
}
