import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

@Suite("Configuration and initialize")
struct ConfigurationTests {
    @Test("Defaults are the guide's")
    func defaults() {
        let config = PNConfiguration(appId: "a", region: "us")
        #expect(config.providerId == nil)
        #expect(config.extensionGroupID == nil)
        #expect(config.enableBadgeCount)
        #expect(config.showInAppNotifications)
        #expect(config.requestNotificationPermission)
        #expect(config.autoRegisterTokens)
        #expect(config.tokenRegistrar == .auto)
        #expect(config.authToken == nil)
        #expect(config.clientHost == nil)
        #expect(config.callKit == CallKitBranding())
        #expect(config.callKit.includeInRecents && config.callKit.supportsVideo)
        #expect(config.requestCallPermissions)
        #expect(config.pushKitOwnership == .sdk)
        #expect(config.callKitAvailability == .automatic)
        #expect(config.missedCallNotifications)
    }

    @Test("The builder sets every option")
    func builder() {
        let config = PNConfiguration.builder(appId: "a", region: "eu")
            .providerId("p").extensionGroupID("group.x").enableBadgeCount(false).showInAppNotifications(false)
            .requestNotificationPermission(false).autoRegisterTokens(false).tokenRegistrar(.chat).authToken("t")
            .overrideClientHost("127.0.0.1:9000")
            .callKit(name: "Acme", iconTemplateImageName: "Icon", ringtone: "ring.caf", includeInRecents: false, supportsVideo: false)
            .requestCallPermissions(false).pushKitOwnership(.app).callKitAvailability(.unavailable)
            .missedCallNotifications(false)
            .build()
        #expect(config.appId == "a" && config.region == "eu" && config.providerId == "p")
        #expect(config.extensionGroupID == "group.x")
        #expect(!config.enableBadgeCount && !config.showInAppNotifications && !config.requestNotificationPermission)
        #expect(!config.autoRegisterTokens && config.tokenRegistrar == .chat && config.authToken == "t")
        #expect(config.clientHost == "127.0.0.1:9000")
        #expect(
            config.callKit
                == CallKitBranding(
                    name: "Acme", iconTemplateImageName: "Icon", ringtone: "ring.caf", includeInRecents: false, supportsVideo: false))
        #expect(!config.requestCallPermissions && config.pushKitOwnership == .app)
        #expect(config.callKitAvailability == .unavailable)
        #expect(config.toBuilder().providerId("q").build().providerId == "q")
        #expect(config.toBuilder().build().callKitAvailability == .unavailable)
        #expect(!config.missedCallNotifications && !config.toBuilder().build().missedCallNotifications)
    }

    @Test("Base URL: the default host, a bare host, a full URL")
    func baseURL() {
        #expect(
            ClientAPI.baseURL(appId: "ABC1", region: "US", clientHost: nil)?.absoluteString == "https://abc1.apiclient-us.cometchat.io/v3.0"
        )
        #expect(ClientAPI.baseURL(appId: "a", region: "eu", clientHost: "push.example.com")?.absoluteString == "https://push.example.com")
        #expect(
            ClientAPI.baseURL(appId: "a", region: "eu", clientHost: "http://127.0.0.1:8080/")?.absoluteString == "http://127.0.0.1:8080")
        #expect(
            ClientAPI.baseURL(appId: "a", region: "eu", clientHost: "https://api.example.com/v3")?.absoluteString
                == "https://api.example.com/v3")
    }

    @Test("Wire values of the token platforms")
    func platforms() {
        #expect(CometChatPushTokenPlatform.apns.wireValue == "apns_ios_device")
        #expect(CometChatPushTokenPlatform.voip.wireValue == "apns_ios_voip")
        #expect(CometChatPushTokenPlatform.fcm.wireValue == "fcm_ios")
        #expect(CometChatPushTokenPlatform.allCases.map(\.rawName) == ["apns", "fcm", "voip"])
        #expect(CometChatPushTokenPlatform(wireValue: "fcm_ios") == .fcm)
        #expect(
            PNError.Code.allCases.map(\.name) == [
                "notInitialised", "notLoggedIn", "providerRequired", "productNotInstalled", "serverError", "networkError",
                "notSupported",
            ])
        let error = PNError(code: .serverError, message: "m", serverCode: "ERR_X")
        let nsError = (error as any Error) as NSError
        #expect(nsError.domain == PNError.domain && nsError.code == PNError.Code.serverError.rawValue)
        #expect(
            PNRingReadiness.allCases.map(\.name) == [
                "ready", "notificationsOff", "providerMissing", "backgroundModeMissing", "voipEntitlementMissing", "microphoneDenied",
                "privatePushWithoutExtension",
            ])
    }

    @Test(
        "A blank appId or region: initialize reports it and every call answers notInitialised",
        arguments: [("", "us"), ("  ", "us"), ("app", ""), ("app", " \n")])
    func blankConfiguration(appId: String, region: String) async {
        let device = SimulatedDevice()
        let delegate = RecordingDelegate()
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(PNConfiguration(appId: appId, region: region, providerId: "p"), delegate: delegate)
        #expect(device.service.requests.isEmpty)
        let diagnostics = app.sdk.getDiagnostics()
        #expect(diagnostics["initialised"] as? Bool == false)
        #expect((diagnostics["configurationError"] as? String)?.contains("blank") == true)
        #expect(device.logger.all.contains { $0.hasPrefix("error:") && $0.contains("blank") })

        let register: PNResult<[CometChatPushTokenPlatform]> = await awaitResult { app.sdk.registerTokens(completion: $0) }
        let unregister: PNResult<Void> = await awaitResult { app.sdk.unregisterTokens(completion: $0) }
        let verify: PNResult<[CometChatPushTokenPlatform]> = await awaitResult { app.sdk.verifyPushSetup(completion: $0) }
        let ready: PNResult<PNRingReadiness> = await awaitResult { app.sdk.ensureRingReady($0) }
        let token: PNResult<String> = await awaitResult { app.sdk.registerDeviceToken(SimulatedDevice.token(3), completion: $0) }
        for code in [register.errorCode, unregister.errorCode, verify.errorCode, ready.errorCode, token.errorCode] {
            #expect(code == .notInitialised)
        }
        #expect(device.service.requests.isEmpty)
    }

    @Test("A token handed over while nobody is logged in completes with notLoggedIn and stays cached")
    func tokenCompletionNotLoggedIn() async {
        let device = SimulatedDevice(apns: .silent)
        let app = await device.launchAndSettle()
        let result: PNResult<String> = await awaitResult { app.sdk.registerDeviceToken(SimulatedDevice.token(4), completion: $0) }
        #expect(result.errorCode == .notLoggedIn)
        app.sdk.setSession(uid: "u", authToken: "t")
        #expect(await device.settle())
        #expect(device.registerRequests.map(\.token) == [SimulatedDevice.token(4).hex])
    }

    @Test("The configuration minus the auth token is saved for launches started by a push")
    func savedConfiguration() async throws {
        let device = SimulatedDevice()
        await device.launchAndSettle(testConfig(authToken: "secret-config-token"))
        let saved = try #require(TokenStore(store: device.defaults.store(suite: SimulatedDefaults.standardSuite)).savedConfiguration)
        #expect(saved.appId == "app1" && saved.providerId == "apns-provider")
        #expect(!device.defaults.contains("secret-config-token"))
    }

    @Test("With an App Group, the extension's copy of the configuration is the app's")
    func savedConfigurationInTheAppGroup() async throws {
        let device = SimulatedDevice()
        let app = await device.launchAndSettle(testConfig(extensionGroupID: "group.example", enableBadgeCount: false))
        let own = try #require(TokenStore(store: device.defaults.store(suite: SimulatedDefaults.standardSuite)).savedConfiguration)
        let shared = try #require(TokenStore(store: device.defaults.store(suite: "group.example")).savedConfiguration)
        #expect(shared == own)
        #expect(shared.extensionGroupID == "group.example")
        #expect(app.sdk.sharedBadgeSetting(appGroupID: "group.example") == false)
    }

    @Test("Diagnostics and the products see the session the lifecycle applied, not the one it refused")
    func diagnosticsFollowTheLifecycle() async {
        let device = SimulatedDevice()
        device.service.fail(.registerToken, with: [.status(401, code: "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")])
        let app = await device.launchAndSettle(testConfig(authToken: "stale-config-token"))
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == false, "the service rejected the auth token")
        // The configuration still names the refused auth token: looking again adopts nothing
        app.sdk.refreshSession()
        #expect(await device.settle())
        let diagnostics = app.sdk.getDiagnostics()
        #expect(diagnostics["loggedIn"] as? Bool == false)
        #expect(diagnostics["sessionSource"] == nil)
        #expect(app.sdk.currentUID == nil)
        let request = await app.sdk.sendClientRequest("GET", "/notifications/push/v1/preferences", json: nil)
        if case .failure(let error) = request { #expect(error.code == .notLoggedIn) } else { Issue.record("sent") }
        // A real login shows at once
        app.sdk.setSession(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        #expect(app.sdk.getDiagnostics()["sessionSource"] as? String == "app")
        #expect(app.sdk.getDiagnostics()["uid"] as? String == "alice")
        #expect(app.sdk.currentUID == "alice")
    }
}

extension Result where Failure == PNError {
    var errorCode: PNError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
