import APNs
import Delivery
import Foundation
import PushCore
import ServerSupport
import PushMocks
import PushTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A misbehaving APNs, injected at the mock: for each fault every job is delivered, none is
/// sent more than twice, reconnects back off, and the metrics show what happened. Each fault runs
/// on both APNs transports (libcurl and the HTTP/2 client of our own).
@Suite struct FaultTests {
    static let tokens = (0..<20).map { String(format: "%04x", 0xfa00 + $0) }

    /// Sends one job per token and checks what the issue asks of every fault.
    static func deliverAll(_ harness: DeliveryHarness) async throws {
        for token in tokens { try harness.register(token) }
        let jobs = try tokens.map { try harness.enqueue($0) }
        harness.engine.start()
        let counts = try await harness.drain()
        // Nothing lost
        #expect(counts.delivered == tokens.count && counts.failed == 0 && counts.pending == 0)
        let log = harness.mock.log(kind: "apns")
        let accepted = Set(log.filter { $0["status"] as? Int == 200 }.compactMap { $0["apns_id"] as? String })
        #expect(accepted == Set(jobs.map { $0.id.lowercased() }))
        // No job sent more than twice
        var sends: [String: Int] = [:]
        for entry in log { if let id = entry["apns_id"] as? String { sends[id, default: 0] += 1 } }
        let over = Set(sends.filter { $0.value > 2 }.keys)
        #expect(
            over.isEmpty,
            "sent more than twice: \(log.filter { over.contains($0["apns_id"] as? String ?? "") }.map { entry in entry.filter { $0.key != "body" && $0.key != "jwt" } })"
        )
    }

    static func retried(_ harness: DeliveryHarness) -> Int {
        harness.engine.metrics.prometheusText(queue: nil).split(separator: "\n")
            .filter { $0.hasPrefix("push_retried_total{") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test(arguments: ["close", "goaway", "goaway_reason"], APNsTransport.allCases)
    func aConnectionLostMidStreamLosesNothing(fault: String, transport: APNsTransport) async throws {
        // Given APNs drops the connection (or sends GOAWAY) under one request while others are open
        let harness = try await DeliveryHarness.start(latencyMilliseconds: 50, transport: transport)
        try harness.mock.script([Self.tokens[5]: [["fault": fault], ["status": 200]]])
        try await Self.deliverAll(harness)
        #expect(harness.mock.log(kind: "apns").contains { $0["fault"] as? String == fault }, "the fault happened")
        if transport == .native && fault != "close" {
            // The client of our own sends the streams a GOAWAY left unprocessed again by itself,
            // on a new connection: the request under the fault reached the mock twice
            let sends = harness.mock.log(kind: "apns").filter { $0["token"] as? String == Self.tokens[5] }
            #expect(sends.count == 2)
        } else {
            // The retries show in the metrics
            #expect(Self.retried(harness) >= 1)
            #expect(harness.engine.metrics.prometheusText(queue: nil).contains("push_retried_total{reason=\"network\"}"))
        }
    }

    @Test(arguments: APNsTransport.allCases)
    func aStreamNeverAnsweredEndsAtTheRequestDeadline(transport: APNsTransport) async throws {
        // Given APNs accepts a request and never answers it
        let harness = try await DeliveryHarness.start(requestTimeoutMilliseconds: 1_500, transport: transport)
        try harness.mock.script([Self.tokens[3]: [["fault": "hang"], ["status": 200]]])
        let started = Date()
        try await Self.deliverAll(harness)
        // Then the per-request deadline ended it and the job was sent again
        #expect(Date().timeIntervalSince(started) >= 1.5)
        #expect(harness.mock.log(kind: "apns").filter { $0["token"] as? String == Self.tokens[3] }.count == 2)
        #expect(Self.retried(harness) >= 1)
    }

    @Test(arguments: [(429, "TooManyRequests"), (503, "ServiceUnavailable")], APNsTransport.allCases)
    func retryAfterIsHonoured(answer: (Int, String), transport: APNsTransport) async throws {
        let (status, reason) = answer
        // Given APNs answers one request with a status and retry-after: 1
        let harness = try await DeliveryHarness.start(transport: transport)
        try harness.mock.script([Self.tokens[0]: [["status": status, "reason": reason, "retry_after": 1], ["status": 200]]])
        try await Self.deliverAll(harness)
        // Then it was sent again no sooner than a second later
        let times = harness.mock.log(kind: "apns").filter { $0["token"] as? String == Self.tokens[0] }.compactMap { $0["t"] as? Double }
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= 0.95) }
        #expect(harness.engine.metrics.prometheusText(queue: nil).contains("push_retried_total{reason=\"\(reason)\"} 1"))
    }

    @Test(arguments: APNsTransport.allCases)
    func aFailingTLSHandshakeIsRetriedWithBackOff(transport: APNsTransport) async throws {
        // Given every connection to APNs fails its TLS handshake for two seconds
        let proxy = Locked<FaultProxy?>(nil)
        let harness = try await DeliveryHarness.start(
            retry: RetryPolicy(maxAttempts: 20, baseDelay: 0.05, maxDelay: 1),
            apnsURL: { mock in
                let made = try FaultProxy(targetPort: mock.port, mode: .reset)
                proxy.withLock { $0 = made }
                return made.baseURL
            }, transport: transport)
        let fault = try #require(proxy.withLock { $0 })
        for token in Self.tokens { try harness.register(token) }
        for token in Self.tokens { try harness.enqueue(token) }
        let started = Date()
        harness.engine.start()
        let deadline = started.addingTimeInterval(2)
        while Date() < deadline, fault.accepted < 1_000 { try await Task.sleep(for: .milliseconds(50)) }
        // Then the client reconnected with back-off, not in a tight loop. The bound follows the
        // time that really passed (a loaded machine overshoots the 2 s): each of the 4
        // connections' loops, with up to 2 connections each, backs off from 50 ms doubling to
        // 5 s, so at most 8 tries in the first 6.4 s and one per 5 s after that. A tight loop
        // makes hundreds a second.
        let attempts = fault.accepted
        let elapsed = Date().timeIntervalSince(started)
        let bound = 4 * 2 * (8 + Int(elapsed / 5))
        #expect(
            attempts >= 2 && attempts <= bound,
            "\(attempts) connection attempts in \(String(format: "%.1f", elapsed)) s (at most \(bound))")
        #expect(try harness.store.pushJobCounts().failed == 0)
        // And once the handshake works again every job is delivered
        try fault.set(.forward)
        let counts = try await harness.drain()
        #expect(counts.delivered == Self.tokens.count && counts.failed == 0)
        #expect(Self.retried(harness) >= 1)
    }

    @Test(.enabled(if: isReleaseBuild, "30 s of refused connections: release builds only"), arguments: APNsTransport.allCases)
    func refusedConnectionsForThirtySecondsLoseNothing(transport: APNsTransport) async throws {
        // Given APNs refuses every connection for 30 s
        let proxy = Locked<FaultProxy?>(nil)
        let harness = try await DeliveryHarness.start(
            retry: RetryPolicy(maxAttempts: 30, baseDelay: 0.5, maxDelay: 5),
            apnsURL: { mock in
                let made = try FaultProxy(targetPort: mock.port, mode: .refuse)
                proxy.withLock { $0 = made }
                return made.baseURL
            }, transport: transport)
        let fault = try #require(proxy.withLock { $0 })
        for token in Self.tokens { try harness.register(token) }
        for token in Self.tokens { try harness.enqueue(token) }
        harness.engine.start()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        // Then the jobs retried with back-off (a handful of attempts each, not thousands)
        let retries = Self.retried(harness)
        #expect(retries >= Self.tokens.count && retries <= Self.tokens.count * 15, "\(retries) retries in 30 s")
        #expect(try harness.store.pushJobCounts().failed == 0)
        // And once APNs listens again every job is delivered
        try fault.set(.forward)
        let listening = Date()
        let counts = try await harness.drain()
        print(
            "refusedConnections: \(retries) retries in 30 s; delivered \(counts.delivered) of \(Self.tokens.count)"
                + String(format: " %.1f s after the proxy listened again", Date().timeIntervalSince(listening))
                + "; the proxy accepted \(fault.accepted) connections")
        #expect(counts.delivered == Self.tokens.count && counts.failed == 0, "\(counts)")
    }

    @Test func theRefusingProxyKeepsItsPortForItself() async throws {
        // Given a proxy that refuses connections
        let fault = try FaultProxy(targetPort: 9, mode: .refuse)
        _ = await eventually(timeout: 10) { !Self.connects(to: fault.port) }
        #expect(!Self.connects(to: fault.port), "the proxy still listens")
        // Then no other socket can take its port meanwhile: a server of another test given
        // the free port by bind(0) stopped the proxy from listening again (EADDRINUSE), and
        // CI saw refusedConnectionsForThirtySecondsLoseNothing's jobs wait past its drain
        #expect(Self.binds(port: fault.port) == EADDRINUSE)
        // And it listens again when asked to
        try fault.set(.forward)
        _ = await eventually(timeout: 10) { Self.connects(to: fault.port) }
        #expect(Self.connects(to: fault.port))
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func connects(to port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = Self.loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Binds a plain socket (no SO_REUSEADDR, as a client's) to 127.0.0.1:`port`: 0, or the errno.
    static func binds(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = Self.loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? 0 : errno
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        return address
    }
}

/// Whether this is a release build: the heavy scenarios run only there (CI runs both).
let isReleaseBuild: Bool = {
    #if DEBUG
    return false
    #else
    return true
    #endif
}()
