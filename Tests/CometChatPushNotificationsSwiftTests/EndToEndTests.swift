import Foundation
import Testing
import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The SDK's Core engine, on the simulated platform but with the real `URLSession` transport,
/// against a running push service (`Server/`). `Scripts/e2e.sh` starts the service with a
/// development seed and runs this suite. Without `PUSH_E2E_SEED` the suite is skipped; with it
/// set to a file that cannot be read or decoded, every test fails rather than skips.
enum EndToEnd {
    struct Seed: Decodable {
        var baseURL: String
        var appId: String
        var uid: String
        var authToken: String
        var providerId: String
    }

    /// Why the seed could not be used.
    struct SeedError: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether `PUSH_E2E_SEED` names a seed file.
    static let isConfigured = ProcessInfo.processInfo.environment["PUSH_E2E_SEED"] != nil

    /// The seed `PUSH_E2E_SEED` names, or why it cannot be used.
    static let seed: Result<Seed, SeedError> = {
        guard let path = ProcessInfo.processInfo.environment["PUSH_E2E_SEED"] else {
            return .failure(SeedError(description: "PUSH_E2E_SEED is not set"))
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return .success(try JSONDecoder().decode(Seed.self, from: data))
        } catch {
            return .failure(SeedError(description: "PUSH_E2E_SEED=\(path) is unusable: \(error)"))
        }
    }()

    static let adminKey = ProcessInfo.processInfo.environment["PUSH_E2E_ADMIN_KEY"] ?? ""

    /// The tokens the service holds for `uid`, through the admin API.
    static func serviceTokens(_ seed: Seed, uid: String) async throws -> [[String: Any]] {
        let url = try #require(URL(string: seed.baseURL + "/notifications/push/v1/tokens?uid=" + uid))
        let response = try await PNPlatform.live.transport.send(
            PNHTTPRequest(method: "GET", url: url, headers: ["apikey": adminKey, "appid": seed.appId, "Accept": "application/json"]))
        #expect(response.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let data = (json["data"] as? [String: Any]) ?? json
        return data["pushTokens"] as? [[String: Any]] ?? []
    }
}

@Suite("End to end with the push service", .enabled(if: EndToEnd.isConfigured, "needs Scripts/e2e.sh"), .serialized)
struct EndToEndTests {
    let seed: EndToEnd.Seed

    /// Fails every test when the seed is set but unusable.
    init() throws { seed = try EndToEnd.seed.get() }

    func config() -> PNConfiguration {
        PNConfiguration(appId: seed.appId, region: "us", providerId: seed.providerId, clientHost: seed.baseURL)
    }

    @Test("Login registers the tokens in the service; logout removes them; a token of the wrong kind is refused")
    func loginAndLogout() async throws {
        let device = SimulatedDevice(apns: .issue(SimulatedDevice.token(0x42)), transport: PNPlatform.live.transport)
        let delegate = RecordingDelegate()
        let app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config())
        }
        #expect(await device.settle())
        app.sdk.setSession(uid: seed.uid, authToken: seed.authToken)
        app.sdk.registerFCMToken("e2e-fcm-token-\(UUID().uuidString)")
        #expect(await device.settle(timeout: 20))
        // The seed's provider is an APNs provider: the APNs token registers, an FCM token is
        // refused with a clear 400 and not retried.
        #expect(delegate.events.count == 2)
        #expect(delegate.events.contains(.registered(.apns)))
        #expect(delegate.events.contains(.failed(.fcm, .serverError)))
        #expect(delegate.registrationErrors.map(\.serverCode) == ["ERR_BAD_REQUEST"])

        let tokens = try await EndToEnd.serviceTokens(seed, uid: seed.uid)
        let apnsHex = SimulatedDevice.token(0x42).hex
        #expect(tokens.contains { $0["pushToken"] as? String == apnsHex && $0["platform"] as? String == "apns_ios_device" })
        #expect(!tokens.contains { $0["platform"] as? String == "fcm_ios" })
        #expect(tokens.allSatisfy { ($0["providerId"] as? String) == seed.providerId })

        let logout: PNResult<Void> = await withCheckedContinuation { continuation in
            app.sdk.clearSession { continuation.resume(returning: $0) }
        }
        #expect((try? logout.get()) != nil)
        #expect(try await EndToEnd.serviceTokens(seed, uid: seed.uid).isEmpty)
    }

    @Test("An auth token the service does not know ends the session")
    func unknownAuthToken() async throws {
        let device = SimulatedDevice(apns: .issue(SimulatedDevice.token(0x51)), transport: PNPlatform.live.transport)
        let delegate = RecordingDelegate()
        let app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: config())
            sdk.setSession(uid: "nobody", authToken: "not-a-real-auth-token")
        }
        #expect(await device.settle(timeout: 20))
        // The first request the service answers with the auth error ends the session: the token
        // registration, or the catch-up on the changes feed that runs beside it (issue 27). A
        // registration that failed says why.
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
        #expect(delegate.registrationErrors.allSatisfy { $0.serverCode == "AUTH_ERR_AUTH_TOKEN_NOT_FOUND" })
        #expect(device.logger.all.contains { $0.contains("rejected the auth token") })
    }
}
