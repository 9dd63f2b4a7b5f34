#if DEBUG
// Debug builds only: the failures are forced through an internal seam (`@testable`).
@testable import CurlHTTP
import Foundation
import ServerSupport
import Testing

/// A transfer libcurl refuses to start (`curl_multi_add_handle` fails, or `curl_easy_init`
/// returns NULL) is answered with an error at once and frees its in-flight slot: the caller
/// never hangs and the process does not crash.
@Suite struct CurlFailureTests {
    static func send(faults: HTTP2Client.Faults) async throws -> (Result<OutboundResponse, HTTPTransportError>?, inFlight: Int) {
        let client = HTTP2Client(configuration: HTTP2Client.Configuration(), name: "curl-failure", faults: faults)
        defer { client.shutdown() }
        let answer = Locked<Result<OutboundResponse, HTTPTransportError>?>(nil)
        client.send(OutboundRequest(url: "https://127.0.0.1:9/never", timeoutMilliseconds: 60_000)) { result in
            answer.withLock { $0 = result }
        }
        let deadline = Date().addingTimeInterval(10)
        while answer.withLock({ $0 }) == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return (answer.withLock { $0 }, client.inFlight)
    }

    @Test func aRefusedAddAnswersTheCallerAndFreesTheSlot() async throws {
        let (answer, inFlight) = try await Self.send(faults: HTTP2Client.Faults(addHandleFails: true))
        guard case .failure(let error)? = answer else {
            Issue.record("no answer: the caller would hang")
            return
        }
        #expect(error.message.contains("refused the transfer"))
        #expect(inFlight == 0)
    }

    @Test func aFailedEasyInitAnswersTheCallerWithoutCrashing() async throws {
        let (answer, inFlight) = try await Self.send(faults: HTTP2Client.Faults(easyInitFails: true))
        guard case .failure(let error)? = answer else {
            Issue.record("no answer")
            return
        }
        #expect(error.message.contains("could not create a handle"))
        #expect(inFlight == 0)
    }
}
#endif
