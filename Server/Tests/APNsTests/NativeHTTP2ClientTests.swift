import APNs
import CurlHTTP
import Foundation
import NativeHTTP2
import PushCrypto
import PushMocks
import PushTestSupport
import ServerSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/2 client of our own on its own: origins, shutdown and deadlines against a server that
/// takes the TCP connection and never answers (a listening socket nobody accepts on), and a
/// connection gone dead under the APNs client (its PING unanswered).
@Suite struct NativeHTTP2ClientTests {
    /// A listening socket on 127.0.0.1 that never accepts: connections complete in the kernel
    /// and the TLS handshake never gets an answer.
    final class SilentServer {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
            guard bound == 0, listen(fd, 16) == 0, named == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        deinit { close(fd) }

        var baseURL: String { "https://127.0.0.1:\(port)" }
    }

    /// Sends `request` and returns its result with the time it took.
    static func send(
        _ client: NativeHTTP2Client, _ request: OutboundRequest
    ) async -> (Result<OutboundResponse, HTTPTransportError>, Duration) {
        // Timed where the client answers (its loop thread), not where this task resumes: on a
        // busy machine the resumption can wait for a thread of the shared pool.
        let started = ContinuousClock.now
        return await withCheckedContinuation { continuation in
            client.send(request) { result in continuation.resume(returning: (result, ContinuousClock.now - started)) }
        }
    }

    @Test(arguments: ["http://127.0.0.1:1", "https://", "https://host:0", "https://host:99999", "https://host/path", "ftp://x"])
    func baseURLsThatAreNotHTTPSOriginsAreRefused(_ url: String) {
        #expect(throws: NativeHTTP2Client.OriginError.self) { try NativeHTTP2Client(baseURL: url) }
    }

    @Test func aRequestForAnotherOriginFails() async throws {
        let client = try NativeHTTP2Client(baseURL: "https://127.0.0.1:9")
        defer { client.shutdown() }
        let (result, _) = await Self.send(client, OutboundRequest(url: "https://example.com/3/device/aa", body: [1]))
        guard case .failure(let error) = result else { Issue.record("answered: \(result)"); return }
        #expect(error.isConnectFailure && error.client == "h2" && error.code == 3, "\(error)")
        #expect(client.inFlight == 0)
    }

    @Test func aRequestWaitingForAConnectionEndsAtItsDeadline() async throws {
        // Given a server whose TLS handshake never answers
        let server = try SilentServer()
        let client = try NativeHTTP2Client(baseURL: server.baseURL)
        defer { client.shutdown() }
        // When a request with a 300 ms deadline is sent
        let (result, took) = await Self.send(
            client, OutboundRequest(url: server.baseURL + "/3/device/aa", body: [1], timeoutMilliseconds: 300))
        // Then it fails with the deadline's error, not before it and long before the connection
        // attempt's own 10 s limit
        guard case .failure(let error) = result else { Issue.record("answered: \(result)"); return }
        #expect(error.code == 28, "\(error)")
        #expect(took >= .milliseconds(300) && took < .seconds(5), "\(took)")
        #expect(client.inFlight == 0 && !client.isAnswering)
    }

    /// A connection that goes dead without a FIN or RST (every byte dropped) is noticed by its
    /// unanswered PING (after at least 5 s) and replaced by a new one.
    @Test func aConnectionWhosePingIsNotAnsweredIsReplaced() async throws {
        // Given a push answered through a proxy, on a client that pings after 300 ms of silence
        let mock = try MockPushServer()
        let proxy = try FaultProxy(targetPort: mock.port, mode: .forward)
        var http = HTTP2Client.Configuration(caFile: mock.credentials.caFile)
        http.pingIntervalMilliseconds = 300
        let client = APNsClient(
            environment: .custom(baseURL: proxy.baseURL),
            tokens: try APNsTokenProvider(
                key: PrivateKey(pem: mock.credentials.apnsPrivateKeyPEM), keyId: MockPushServer.keyId,
                teamId: MockPushServer.teamId),
            http: http, connections: 1, timeoutMilliseconds: 5_000, transport: .native)
        defer { client.shutdown() }
        let notification = APNsNotification(
            deviceToken: "dead01", bundleId: "com.example.app", pushType: .alert, payload: Array(#"{"aps":{}}"#.utf8))
        guard case .answered = await client.send(notification) else { Issue.record("no answer"); return }
        #expect(client.connectionsUp == 1)
        // When the connection goes silent
        try proxy.set(.stall)
        let started = ContinuousClock.now
        // Then the client gives it up once its PING stays unanswered (not before 5 s)
        let noticed = await eventually(timeout: 30) { client.connectionsUp == 0 }
        #expect(noticed)
        #expect(ContinuousClock.now - started >= .seconds(5))
        // And the next push goes out on a new connection
        try proxy.set(.forward)
        guard case .answered(let answer) = await client.send(notification) else { Issue.record("no answer"); return }
        #expect(answer.status == 200)
        #expect(proxy.accepted == 2)
    }

    @Test func shutdownFailsWhatIsInFlightAndWhatComesAfter() async throws {
        // Given requests waiting on a connection that never completes its handshake
        let server = try SilentServer()
        let client = try NativeHTTP2Client(baseURL: server.baseURL)
        let results = Locked<[Result<OutboundResponse, HTTPTransportError>]>([])
        for index in 0..<5 {
            client.send(OutboundRequest(url: server.baseURL + "/3/device/\(index)", body: [1], timeoutMilliseconds: 60_000)) {
                result in results.withLock { $0.append(result) }
            }
        }
        #expect(client.inFlight == 5)
        // When the client shuts down
        client.shutdown()
        // Then every request failed with "client stopped", at once (not at its 60 s deadline)
        let deadline = ContinuousClock.now + .seconds(10)
        while results.withLock({ $0.count }) < 5, ContinuousClock.now < deadline { await Task.yield() }
        let failed = results.withLock { $0 }.compactMap { result -> HTTPTransportError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(failed.count == 5 && failed.allSatisfy { $0.message == "client stopped" }, "\(failed)")
        #expect(client.inFlight == 0)
        // And a request sent afterwards fails at once
        let (after, _) = await Self.send(client, OutboundRequest(url: server.baseURL + "/3/device/late", body: [1]))
        if case .failure(let error) = after { #expect(error.message == "client stopped") } else { Issue.record("answered") }
    }
}
