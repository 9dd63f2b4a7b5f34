import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The repository's root, found from this file's path.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Loads every JSON file of a `Contract/` folder.
func contractFixtures(_ folder: String) throws -> [(name: String, json: [String: Any])] {
    let directory = repositoryRoot.appendingPathComponent("Contract").appendingPathComponent(folder)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
    return try names.map { name in
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (name, json)
    }
}

/// The configuration most scenarios use.
func testConfig(
    providerId: String? = "apns-provider", autoRegisterTokens: Bool = true, authToken: String? = nil,
    extensionGroupID: String? = nil, enableBadgeCount: Bool = true
) -> PNConfiguration {
    PNConfiguration(
        appId: "app1", region: "us", providerId: providerId, extensionGroupID: extensionGroupID,
        enableBadgeCount: enableBadgeCount, autoRegisterTokens: autoRegisterTokens, authToken: authToken)
}

/// Waits for a completion-style call.
func awaitResult<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

extension SimulatedDevice {
    /// Launches the app with `config` and `delegate`, as the guide's AppDelegate does, and settles.
    @discardableResult
    func launchAndSettle(_ config: PNConfiguration = testConfig(), delegate: RecordingDelegate? = nil) async -> SimulatedApp {
        let app = launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config)
        }
        #expect(await settle())
        return app
    }

    /// Register requests the service received, as (platform, token, authToken).
    var registerRequests: [(platform: String, token: String, authToken: String)] {
        service.requests(.registerToken).map { ($0.json["platform"] ?? "", $0.json["fcmToken"] ?? "", $0.headers["authToken"] ?? "") }
    }
}

extension Data {
    /// The bytes as the SDK sends a token.
    var hex: String { PNHex.string(self) }
}
