import APNs
import CurlHTTP
import Foundation
import PushCrypto
import PushMocks
import PushTestSupport
import ServerSupport
import Testing

/// The APNs client against the mock APNs, on both transports (libcurl and the HTTP/2 client of
/// our own): every test runs once per transport.
@Suite(.serialized) struct APNsClientTests {
    let mock: MockPushServer

    init() throws {
        mock = try MockPushServer()
    }

    /// A client of this suite's mock on `transport`.
    func makeClient(_ transport: APNsTransport) throws -> APNsClient {
        try Self.client(of: mock.baseURL, credentials: mock.credentials, timeoutMilliseconds: 5_000, transport: transport)
    }

    /// A client of the mock APNs at `baseURL`, signing with the test key and trusting its CA.
    static func client(
        of baseURL: String, credentials: TestCredentials, timeoutMilliseconds: Int, transport: APNsTransport = .curl
    ) throws -> APNsClient {
        let client = APNsClient(
            environment: .custom(baseURL: baseURL),
            tokens: try APNsTokenProvider(
                key: PrivateKey(pem: credentials.apnsPrivateKeyPEM), keyId: MockPushServer.keyId,
                teamId: MockPushServer.teamId),
            http: HTTP2Client.Configuration(caFile: credentials.caFile), timeoutMilliseconds: timeoutMilliseconds,
            transport: transport)
        #expect(client.transport == transport)
        return client
    }

    func alert(_ token: String, payload: String = #"{"aps":{"alert":"hi"}}"#) -> APNsNotification {
        APNsNotification(
            deviceToken: token, bundleId: "com.example.app", pushType: .alert, priority: 10,
            expiration: 1_800_000_000, collapseId: "conv-1", apnsId: UUID().uuidString.lowercased(),
            payload: Array(payload.utf8))
    }

    @Test(arguments: APNsTransport.allCases)
    func alertPushIsAcceptedWithTheRightHeaders(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        // When an alert push is sent
        let notification = alert("aa01")
        let response = await client.send(notification)

        // Then the mock (which checks the JWT against the test key) accepted it
        #expect(response == .answered(APNsAnswer(status: 200, apnsId: notification.apnsId)))
        let entry = try #require(mock.log(kind: "apns").first)
        #expect(entry["topic"] as? String == "com.example.app")
        #expect(entry["push_type"] as? String == "alert")
        #expect(entry["priority"] as? String == "10")
        #expect(entry["expiration"] as? String == "1800000000")
        #expect(entry["collapse_id"] as? String == "conv-1")
        #expect(entry["body"] as? String == #"{"aps":{"alert":"hi"}}"#)
    }

    @Test(arguments: APNsTransport.allCases)
    func voipPushUsesTheVoipTopic(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        let response = await client.send(
            APNsNotification(
                deviceToken: "bb02", bundleId: "com.example.app", pushType: .voip, priority: 10,
                payload: Array(#"{"type":"call"}"#.utf8)))
        #expect(
            response == .answered(APNsAnswer(status: 200, apnsId: (mock.log(kind: "apns").first?["apns_id"] as? String) ?? ""))
                || {
                    if case .answered(let a) = response { return a.status == 200 } else { return false }
                }())
        let entry = try #require(mock.log(kind: "apns").first)
        #expect(entry["topic"] as? String == "com.example.app.voip")
        #expect(entry["push_type"] as? String == "voip")
        #expect(entry["expiration"] as? String == "0")
    }

    @Test(
        arguments: [
            (410, APNsReason.unregistered), (400, .badDeviceToken), (400, .deviceTokenNotForTopic),
            (413, .payloadTooLarge), (429, .tooManyRequests), (500, .internalServerError),
            (503, .serviceUnavailable), (400, .unknown("ReasonFromTheFuture")),
        ], APNsTransport.allCases)
    func errorAnswersAreReportedWithTheirReason(answer expected: (Int, APNsReason), transport: APNsTransport) async throws {
        let (status, reason) = expected
        let client = try makeClient(transport)
        try mock.script(["cc03": [["status": status, "reason": reason.rawValue, "timestamp": 1_700_000_000_000, "retry_after": 7]]])
        guard case .answered(let answer) = await client.send(alert("cc03")) else {
            Issue.record("no answer")
            return
        }
        #expect(answer.status == status)
        #expect(answer.reason == reason)
        #expect(answer.retryAfter == 7)
        #expect(answer.unregisteredAt == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test(arguments: APNsTransport.allCases)
    func expiredProviderTokenGetsANewJWTAndOneRetry(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        // Given APNs refuses the first token once
        try mock.script(["dd04": [["status": 403, "reason": "ExpiredProviderToken"], ["status": 200]]])

        // When a push is sent
        let response = await client.send(alert("dd04"))

        // Then it was retried once with a freshly signed token and delivered
        guard case .answered(let answer) = response else { Issue.record("no answer"); return }
        #expect(answer.status == 200)
        let jwts = mock.log(kind: "apns").compactMap { $0["jwt"] as? String }
        #expect(jwts.count == 2)
        #expect(jwts.first != jwts.last)
        #expect(client.tokens.tokensSigned == 2)
    }

    @Test(arguments: APNsTransport.allCases)
    func anExpiredTokenTwiceIsReportedNotRetriedForever(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        try mock.script(["ee05": [["status": 403, "reason": "ExpiredProviderToken"]]])
        guard case .answered(let answer) = await client.send(alert("ee05")) else { Issue.record("no answer"); return }
        #expect(answer.reason == .expiredProviderToken)
        #expect(mock.log(kind: "apns").count == 2)
    }

    @Test(arguments: APNsTransport.allCases)
    func oversizedPayloadsAreRefusedBeforeSending(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
        #expect(await client.send(alert("ff06", payload: big)) == .rejectedLocally(reason: .payloadTooLarge))
        // VoIP allows 5,120 bytes
        let voip = APNsNotification(deviceToken: "ff06", bundleId: "b", pushType: .voip, payload: Array(big.utf8))
        #expect(voip.localProblem == nil)
        #expect(mock.log(kind: "apns").isEmpty)
    }

    @Test(arguments: APNsTransport.allCases)
    func manyConcurrentPushesRespectTheStreamRules(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        // The mock allows one stream until the first authenticated request, then 1000.
        let results = await withTaskGroup(of: Int.self) { group in
            for i in 0..<300 {
                group.addTask {
                    let response = await client.send(alert(String(format: "%04x", i)))
                    if case .answered(let answer) = response { return answer.status }
                    return -1
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == 200 })
        #expect(mock.log(kind: "violation").isEmpty)
        #expect(mock.log(kind: "apns").count == 300)
    }

    @Test(arguments: APNsTransport.allCases)
    func aLostServerIsATransportFailureAndTheClientReconnects(transport: APNsTransport) async throws {
        let client = try makeClient(transport)
        // Given a connection that worked
        guard case .answered = await client.send(alert("ab01")) else { Issue.record("no answer"); return }

        // When the server goes away
        mock.stop()
        let failed = await client.send(alert("ab02"))
        if case .transportFailure = failed {} else { Issue.record("expected a transport failure, got \(failed)") }

        // Then after it comes back (restart returns once it listens) the client reconnects:
        // send until a push is answered, with a deadline
        try mock.restart()
        let deadline = ContinuousClock.now + .seconds(10)
        var delivered = false
        while !delivered, ContinuousClock.now < deadline {
            if case .answered(let answer) = await client.send(alert("ab03")), answer.status == 200 {
                delivered = true
            } else {
                await Task.yield()
            }
        }
        #expect(delivered)
    }

    /// TLS: the server's certificate must chain to a trusted CA (here the system store, which
    /// does not hold the mock's test CA) and name the host the client connects to (the mock's
    /// certificate names localhost, 127.0.0.1 and ::1; ::ffff:127.0.0.1 reaches the same socket
    /// under a name the certificate does not carry). Nothing reaches the mock either way.
    @Test(arguments: ["untrusted CA", "other name"], APNsTransport.allCases)
    func aServerCertificateThatDoesNotVerifyIsRefused(fault: String, transport: APNsTransport) async throws {
        let credentials = mock.credentials
        let untrusted = fault == "untrusted CA"
        let client = APNsClient(
            environment: .custom(baseURL: untrusted ? mock.baseURL : "https://[::ffff:127.0.0.1]:\(mock.port)"),
            tokens: try APNsTokenProvider(
                key: PrivateKey(pem: credentials.apnsPrivateKeyPEM), keyId: MockPushServer.keyId, teamId: MockPushServer.teamId),
            http: HTTP2Client.Configuration(caFile: untrusted ? nil : credentials.caFile), timeoutMilliseconds: 5_000,
            transport: transport)
        let response = await client.send(alert("ac01"))
        if case .transportFailure(let message) = response {
            // The certificate check refused it (not some other failure on the way)
            #expect(message.lowercased().contains("certificate"), "\(message)")
        } else {
            Issue.record("expected a transport failure, got \(response)")
        }
        #expect(mock.log(kind: "apns").isEmpty)
    }

    /// A host name (SNI and the certificate's DNS name) works as an address does.
    @Test(arguments: APNsTransport.allCases)
    func aHostNameInTheCertificateIsAccepted(transport: APNsTransport) async throws {
        let client = try Self.client(
            of: "https://localhost:\(mock.port)", credentials: mock.credentials, timeoutMilliseconds: 5_000, transport: transport)
        guard case .answered(let answer) = await client.send(alert("ac02")) else { Issue.record("no answer"); return }
        #expect(answer.status == 200)
    }

    /// The native transport pings a connection nothing arrived on for `pingIntervalMilliseconds`
    /// (keep-alive), and the connection stays in use. (libcurl pings busy connections only.)
    @Test func anIdleConnectionIsPinged() async throws {
        let credentials = mock.credentials
        var http = HTTP2Client.Configuration(caFile: credentials.caFile)
        http.pingIntervalMilliseconds = 200
        let client = APNsClient(
            environment: .custom(baseURL: mock.baseURL),
            tokens: try APNsTokenProvider(
                key: PrivateKey(pem: credentials.apnsPrivateKeyPEM), keyId: MockPushServer.keyId, teamId: MockPushServer.teamId),
            http: http, connections: 1, timeoutMilliseconds: 5_000, transport: .native)
        guard case .answered = await client.send(alert("ba01")) else { Issue.record("no answer"); return }
        // When the connection stays idle, the mock sees PINGs
        let pinged = await eventually(timeout: 10) { mock.log(kind: "ping").count >= 2 }
        #expect(pinged)
        // And the connection still carries pushes
        guard case .answered(let answer) = await client.send(alert("ba02")) else { Issue.record("no answer"); return }
        #expect(answer.status == 200 && client.connectionsUp == 1)
    }

    /// The resend this guards against: libcurl retries every transfer of a reused connection
    /// that failed with a receive error before any of its answer arrived, including pushes the
    /// server had read whole. (Streams refused by a GOAWAY: the next test.)
    @Test(arguments: ["close", "reset"], APNsTransport.allCases)
    func noPushIsResentBehindTheCallersBackWhenAConnectionFailsUnderLoad(fault: String, transport: APNsTransport) async throws {
        // Given APNs answering after 50 ms and a connection already open
        let slow = try MockPushServer(latencyMilliseconds: 50)
        let client = try Self.client(of: slow.baseURL, credentials: slow.credentials, timeoutMilliseconds: 5_000, transport: transport)
        guard case .answered = await client.send(alert("ad00")) else { Issue.record("no answer"); return }

        // When 20 pushes are in flight on it and the server fails the connection under the 6th
        let tokens = (1...20).map { String(format: "ad%02x", $0) }
        try slow.script([tokens[5]: [["fault": fault], ["status": 200]]])
        let notifications = tokens.map { alert($0) }
        let results = await withTaskGroup(of: APNsResponse.self) { group in
            for notification in notifications { group.addTask { await client.send(notification) } }
            return await group.reduce(into: []) { $0.append($1) }
        }

        // Then each push reached the server at most once: every resend is the caller's to make
        let sends = Dictionary(grouping: slow.log(kind: "apns").compactMap { $0["apns_id"] as? String }, by: { $0 })
        let resent = notifications.filter { (sends[$0.apnsId ?? ""]?.count ?? 0) > 1 }.map(\.deviceToken)
        #expect(resent.isEmpty, "sent more than once by the client alone: \(resent)")
        #expect(results.contains { if case .transportFailure = $0 { true } else { false } })
    }

    /// APNs sends GOAWAY naming the last stream it processed: the later ones were not
    /// processed and must be sent again at once. A connection that received GOAWAY stays
    /// counted against the loop's connection limit until its own streams end, and its last
    /// processed streams may wait for the request deadline (libcurl 7.88 does not notice the
    /// close under them); neither may hold back the refused pushes, nor the pushes sent next
    /// (the new connection's first request authenticates it, then the rest follow).
    @Test(arguments: APNsTransport.allCases)
    func pushesRefusedByAGoawayAndTheNextOnesDoNotWaitForTheDeadline(transport: APNsTransport) async throws {
        let slow = try MockPushServer(latencyMilliseconds: 50)
        let client = try Self.client(of: slow.baseURL, credentials: slow.credentials, timeoutMilliseconds: 4_000, transport: transport)
        for token in ["ae00", "ae01"] {
            guard case .answered = await client.send(alert(token)) else { Issue.record("no answer"); return }
        }

        // When 20 pushes are in flight on two connections and APNs sends GOAWAY under the 6th;
        // once the first failure is back, 6 more pushes are sent
        let tokens = (2...21).map { String(format: "ae%02x", $0) }
        try slow.script([tokens[5]: [["fault": "goaway_reason"], ["status": 200]]])
        let started = ContinuousClock.now
        let firstFailure = Locked<ContinuousClock.Instant?>(nil)
        let ended = Locked<[String: Duration]>([:])
        await withTaskGroup(of: Void.self) { group in
            for notification in tokens.map({ alert($0) }) {
                group.addTask {
                    let response = await client.send(notification)
                    let now = ContinuousClock.now
                    ended.withLock { $0[notification.deviceToken] = now - started }
                    if case .transportFailure = response { firstFailure.withLock { $0 = $0 ?? now } }
                }
            }
            group.addTask {
                // The first failure, or every push ended (the client of our own sends the pushes
                // the GOAWAY left unprocessed again by itself: none may fail)
                while firstFailure.withLock({ $0 }) == nil, ended.withLock({ $0.count }) < tokens.count,
                    ContinuousClock.now - started < .seconds(10)
                {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                await withTaskGroup(of: Void.self) { next in
                    for token in ["ae30", "ae31", "ae32", "ae33", "ae34", "ae35"] {
                        next.addTask {
                            let sentAt = ContinuousClock.now
                            let response = await client.send(self.alert(token))
                            let took = ContinuousClock.now - sentAt
                            ended.withLock { $0[token] = took }
                            if case .answered(let answer) = response, answer.status == 200 {
                            } else {
                                Issue.record("\(token) after the GOAWAY: \(response)")
                            }
                        }
                    }
                }
            }
        }

        // Then every push the mock never processed (after the named stream) failed long before
        // the 4 s deadline, for the caller to send again, and the next pushes were answered
        let processed = Set(slow.log(kind: "apns").compactMap { $0["token"] as? String })
        let times = ended.withLock { $0 }
        let refused = tokens.filter { !processed.contains($0) }
        let watched: [String] = refused + ["ae30", "ae31", "ae32", "ae33", "ae34", "ae35"]
        let late: [String] = watched.filter { (times[$0] ?? .seconds(99)) > .seconds(2) }
        let report: [String] = late.map { "\($0): \(times[$0] ?? .zero)" }
        #expect(late.isEmpty, "held until the deadline: \(report)")
    }
}
