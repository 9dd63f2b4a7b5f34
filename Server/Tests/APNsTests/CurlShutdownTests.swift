import CurlHTTP
import Foundation
import ServerSupport
import Testing

/// `shutdown()` answers every transfer it ends, including one submitted a moment before it
/// that the loop thread had not picked up yet: a caller waiting for that answer (the webhook
/// dispatcher waits for every post of a round) would otherwise wait forever and its job stay
/// leased.
@Suite struct CurlShutdownTests {
    @Test func aSendRightBeforeShutdownIsAlwaysAnswered() async throws {
        let rounds = 300
        let answered = Locked(0)
        for round in 0..<rounds {
            let client = HTTP2Client(configuration: HTTP2Client.Configuration(), name: "curl-shutdown-\(round % 10)")
            // Port 9 (discard) on loopback: nothing listens, so no answer but the shutdown's.
            client.send(OutboundRequest(url: "http://127.0.0.1:9/never", timeoutMilliseconds: 60_000)) { result in
                if case .failure = result { answered.withLock { $0 += 1 } }
            }
            client.shutdown()
        }
        // Answers come from each client's loop thread as it stops; wait while they arrive.
        var last = -1
        var lastChange = Date()
        while answered.withLock({ $0 }) < rounds {
            let now = answered.withLock { $0 }
            if now != last {
                last = now
                lastChange = Date()
            } else if Date().timeIntervalSince(lastChange) > 10 {
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(answered.withLock { $0 } == rounds, "every send before shutdown() is answered")
    }
}
