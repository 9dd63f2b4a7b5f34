import APNs
import Foundation
import PushMocks
import ServerSupport
import Testing

/// A healthy APNs under load: 10,000 pushes, 400 in flight at a time, over one client, against
/// the native mock (nghttp2, 50 ms answers). Every push is answered, none fails and none
/// reaches APNs twice. This failed (8-79 transport failures a run, some of them pushes the
/// mock had taken) while the mock let nghttp2's rapid-reset guard close a connection every
/// ~1,000 streams: libcurl 7.88 resets every finished stream.
@Suite struct APNsClientLoadTests {
    @Test(arguments: APNsTransport.allCases)
    func tenThousandPushesAreAllAnsweredOnce(transport: APNsTransport) async throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let mock = try NativeMockAPNs(binaryDirectory: directory, latencyMilliseconds: 50)
        defer { mock.stop() }
        let client = try APNsClientTests.client(
            of: mock.baseURL, credentials: mock.credentials, timeoutMilliseconds: 15_000, transport: transport)
        let failures = Locked<[String]>([])
        let ids = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<400 {
                group.addTask {
                    for index in 0..<25 {
                        let notification = APNsNotification(
                            deviceToken: String(format: "%064x", worker * 100 + index), bundleId: "com.example.app",
                            pushType: .alert, priority: 10, apnsId: UUID().uuidString.lowercased(),
                            payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
                        ids.withLock { $0.append(notification.apnsId ?? "") }
                        let response = await client.send(notification)
                        if case .answered(let answer) = response, answer.status == 200 { continue }
                        failures.withLock { $0.append("\(response)") }
                    }
                }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed.count) failed, first: \(failed.prefix(3))")
        let answered = mock.answered()
        let distinct = Set(answered)
        let sent = Set(ids.withLock { $0 })
        #expect(answered.count == distinct.count, "\(answered.count - distinct.count) pushes reached the mock twice")
        let allAnswered = distinct == sent
        #expect(allAnswered, "\(sent.subtracting(distinct).count) pushes never answered")
    }
}
