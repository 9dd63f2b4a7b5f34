import CurlHTTP
import Foundation
import HTTPServer
import PushTestSupport
import Testing

/// Request bodies through `HTTP2Client` arrive whole at every size: below, at and above
/// libcurl's 16 KB upload buffer (larger bodies go over several rounds), 24 at once, with the
/// client freeing each transfer's upload buffer after its body was sent. (On fast local
/// sockets an early free is not observable, so this checks the bodies, not that guard.)
struct CurlUploadTests {
    /// Pseudo-random bytes from the tests' seeded generator: each body differs, so a shifted or
    /// repeated chunk shows in its checksum. Cheap: SystemRandomNumberGenerator made a system
    /// call per byte, 3.6 million of them on a thread of the cooperative pool every run.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    @Test(arguments: [0, 1, 300, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 100_000])
    func bodiesArriveWhole(size: Int) async throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, maxBodyBytes: 1 << 20, threads: 4),
            tooLarge: .init(status: 413)
        ) { request in
            // Answer with the body's size and a checksum of it.
            let sum = request.body.reduce(UInt64(0)) { ($0 &* 31) &+ UInt64($1) }
            return .init(status: 200, body: Data("\(request.body.count) \(sum)".utf8))
        }
        defer { server.stop() }
        let client = HTTP2Client(configuration: HTTP2Client.Configuration(maxConnectionsPerHost: 4), name: "upload-test")
        defer { client.shutdown() }
        let bodies = (0..<24).map { Self.bytes(size, seed: UInt64($0 + 1)) }
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, body) in bodies.enumerated() {
                group.addTask {
                    let result = await client.send(
                        OutboundRequest(
                            url: "http://127.0.0.1:\(server.port)/upload", headers: [("Content-Type", "application/octet-stream")],
                            body: body, timeoutMilliseconds: 10_000))
                    let response = try result.get()
                    #expect(response.status == 200)
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            for try await (index, answer) in group {
                let body = bodies[index]
                let sum = body.reduce(UInt64(0)) { ($0 &* 31) &+ UInt64($1) }
                #expect(answer == "\(body.count) \(sum)", "body \(index) of \(size) bytes")
            }
        }
    }

    /// A response body larger than `maxResponseBytes` ends the request with an error instead
    /// of growing memory (webhook URLs are app-controlled); a body within it arrives whole.
    @Test func responseBodiesAreLimited() async throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, maxBodyBytes: 1 << 20, threads: 2), tooLarge: .init(status: 413)
        ) { request in
            .init(status: 200, body: Data(repeating: 120, count: request.path == "/big" ? 4 << 20 : 1000))
        }
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration()
        configuration.maxResponseBytes = 64 * 1024
        let client = HTTP2Client(configuration: configuration, name: "limit-test")
        defer { client.shutdown() }
        let small = await client.send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/small", timeoutMilliseconds: 10_000))
        #expect((try? small.get())?.body.count == 1000)
        let big = await client.send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/big", timeoutMilliseconds: 10_000))
        guard case .failure(let error) = big else {
            Issue.record("a 4 MB answer was accepted by a client limited to 64 KB")
            return
        }
        #expect(error.message.contains("larger than"))
        // The client still works afterwards.
        #expect(
            (try? await client.send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/small", timeoutMilliseconds: 10_000)).get())?
                .status == 200)
    }

    /// The upload-buffer release (libcurl 7.88 internals) is done on 7.88.x only.
    @Test func theUploadBufferReleaseIsLimitedToLibcurl788() {
        #expect(HTTP2Client.uploadBufferReleaseApplies(versionNumber: 0x07_58_01))
        #expect(!HTTP2Client.uploadBufferReleaseApplies(versionNumber: 0x08_05_00))
        #expect(!HTTP2Client.uploadBufferReleaseApplies(versionNumber: 0x07_4A_00))
        #expect(HTTP2Client.libcurlVersionNumber > 0)
    }
}
