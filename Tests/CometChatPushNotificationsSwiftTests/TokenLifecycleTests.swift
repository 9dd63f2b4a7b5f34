import Foundation
import Testing
@testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

@Suite("Token lifecycle")
struct TokenLifecycleTests {
    let device = SimulatedDevice()
    let delegate = RecordingDelegate()
    var token1: String { SimulatedDevice.token(1).hex }

    @Test("A token that arrives before initialize is cached and registered at login, once")
    func tokenBeforeInitialize() async {
        // Given: the token arrives before initialize (iOS may call didRegister early)
        let app = device.launch { sdk in
            sdk.registerDeviceToken(SimulatedDevice.token(1))
            sdk.delegate = delegate
            sdk.initialize(config: testConfig())
        }
        #expect(await device.settle())
        #expect(device.service.requests(.registerToken).isEmpty, "nobody is logged in yet")

        // When: the user logs in to the Chat SDK
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())

        // Then: registered once, with the contract's body
        #expect(device.registerRequests.map(\.platform) == ["apns_ios_device"])
        #expect(device.registerRequests.first?.token == token1)
        #expect(device.registerRequests.first?.authToken == "alice-token")
        #expect(device.service.requests(.registerToken).first?.json["providerId"] == "apns-provider")
        #expect(device.service.requests(.registerToken).first?.json["timezone"] == "Europe/Berlin")
        #expect(delegate.events == [.registered(.apns)])
        #expect(device.service.contractViolations.isEmpty)
        #expect(app.remoteRegistrations == 1)
    }

    @Test("A token before login, then login: registered exactly once even when the token comes again")
    func tokenBeforeLoginThenLogin() async {
        let app = await device.launchAndSettle(delegate: delegate)
        #expect(device.service.requests.isEmpty)
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        // iOS hands the same token again on the next registration
        app.sdk.registerDeviceToken(SimulatedDevice.token(1))
        app.sdk.refreshSession()
        #expect(await device.settle())
        #expect(device.registerRequests.count == 1)
        #expect(device.service.registrations(authToken: "alice-token").map(\.token) == [token1])
    }

    @Test("Someone already logged in at initialize: the cached tokens are registered then")
    func loggedInAtInitialize() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")  // the Chat SDK restored its login
        await device.launchAndSettle(delegate: delegate)
        #expect(device.registerRequests.map(\.authToken) == ["alice-token"])
    }

    @Test("Rotation while logged in registers the new token")
    func rotationWhileLoggedIn() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        device.rotateAPNsToken(to: SimulatedDevice.token(9))
        #expect(await device.settle())
        #expect(device.registerRequests.map(\.token) == [token1, SimulatedDevice.token(9).hex])
        #expect(device.service.registrations(authToken: "alice-token").map(\.token).contains(SimulatedDevice.token(9).hex))
        #expect(delegate.events == [.registered(.apns), .registered(.apns)])
    }

    @Test("Rotation while logged out is registered at the next login")
    func rotationWhileLoggedOut() async {
        await device.launchAndSettle(delegate: delegate)
        device.rotateAPNsToken(to: SimulatedDevice.token(7))
        #expect(await device.settle())
        #expect(device.service.requests.isEmpty)
        device.logInToChatSDK(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        #expect(device.registerRequests.map(\.token) == [SimulatedDevice.token(7).hex])
    }

    @Test("Logout: unregister is awaited before the session ends, the badge clears, tokens stay for the next user")
    func logoutThenNextUser() async {
        let app = await device.launchAndSettle(delegate: delegate)
        app.sdk.setSession(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        app.application.setBadgeCount(4)
        #expect(device.service.registrations(authToken: "alice-token").count == 1)

        // When: the app logs out through the SDK
        let result: PNResult<Void> = await awaitResult { done in app.sdk.clearSession(completion: done) }

        // Then: DELETE went out with alice's session before the session ended
        #expect((try? result.get()) != nil)
        let deletes = device.service.requests(.unregisterTokens)
        #expect(deletes.map { $0.headers["authToken"] } == ["alice-token"])
        #expect(device.service.registrations(authToken: "alice-token").isEmpty)
        #expect(await device.settle())
        #expect(app.badge == 0)
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
        #expect((app.sdk.getDiagnostics()["tokens"] as? [String: String])?["apns"] != nil, "the token stays cached")

        // And: the next user gets the same token registered
        app.sdk.setSession(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        #expect(device.service.registrations(authToken: "bob-token").map(\.token) == [token1])
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("Logout with the Chat SDK: unregisterTokens before CometChat.logout, then the next user")
    func chatSDKLogoutFlow() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(delegate: delegate)
        let result: PNResult<Void> = await awaitResult { done in app.sdk.unregisterTokens(completion: done) }
        #expect((try? result.get()) != nil)
        device.logOutOfChatSDK()
        #expect(await device.settle())
        #expect(device.service.requests(.unregisterTokens).map { $0.headers["authToken"] } == ["alice-token"])
        device.logInToChatSDK(uid: "alice", authToken: "alice-token-2")
        #expect(await device.settle())
        #expect(device.service.registrations(authToken: "alice-token-2").map(\.token) == [token1])
    }

    @Test("A logout seen only in the Chat SDK (no unregisterTokens first) still unregisters the tokens")
    func chatSDKLogoutWithoutUnregister() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        #expect(device.service.registrations(authToken: "alice-token").count == 1)
        device.logOutOfChatSDK()
        #expect(await device.settle())
        #expect(device.service.requests(.unregisterTokens).map { $0.headers["authToken"] } == ["alice-token"])
        #expect(device.service.registrations(authToken: "alice-token").isEmpty)
    }

    @Test("A keychain access group the app is not entitled to reaches the diagnostics and the log")
    func keychainMissingEntitlement() async {
        device.keychain.removeEntitlement(accessGroup: "group.example")
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(testConfig(extensionGroupID: "group.example"), delegate: delegate)
        let error = app.sdk.getDiagnostics()["keychainError"] as? String
        #expect(error?.contains("-34018") == true)
        #expect(device.logger.all.contains { $0.contains("could not be saved to the keychain") })
        #expect(device.keychain.allItems["group.example"] == nil)
    }

    @Test("APNs and VoIP registrations say which APNs environment the token belongs to; FCM ones do not")
    func apnsEnvironmentSent() async {
        let sandbox = SimulatedDevice(apnsEnvironment: "sandbox")
        sandbox.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await sandbox.launchAndSettle(delegate: delegate)
        app.sdk.registerFCMToken("fcm-1")
        #expect(await sandbox.settle())
        let bodies = sandbox.service.requests(.registerToken).map { ($0.json["platform"] ?? "", $0.json["environment"]) }
        #expect(bodies.map(\.0) == ["apns_ios_device", "fcm_ios"])
        #expect(bodies.map(\.1) == ["sandbox", nil])
        #expect(sandbox.service.contractViolations.isEmpty)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("A network failure is retried with back-off, then registered")
    func networkFailureRetried() async {
        device.service.fail(.registerToken, with: [.network, .network])
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        #expect(device.registerRequests.count == 3)
        #expect(device.service.registrations(authToken: "alice-token").count == 1)
        #expect(delegate.events == [.failed(.apns, .networkError), .registered(.apns)], "one failure report, then success")
        let sleeps = device.clock.sleeps
        #expect(sleeps.count == 2)
        #expect(sleeps[0] >= 1 && sleeps[0] <= 2)
        #expect(sleeps[1] >= 2 && sleeps[1] <= 4, "exponential")
    }

    @Test("5xx answers are retried", arguments: [500, 502, 503, 504])
    func serverErrorsRetried(status: Int) async {
        device.service.fail(.registerToken, with: [.status(status, code: "ERR_OPERATION_FAILED")])
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        #expect(device.registerRequests.count == 2)
        #expect(delegate.events.last == .registered(.apns))
        let expected: PNError.Code = status == 500 ? .serverError : .networkError
        #expect(delegate.events.first == .failed(.apns, expected))
    }

    @Test("Back-off is capped and the retries stop when the user logs out")
    func backoffCappedAndStopsAtLogout() async {
        device.service.fail(.registerToken, with: Array(repeating: .network, count: 12))
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        #expect(device.clock.sleeps.allSatisfy { $0 <= 300 })
        #expect(device.clock.sleeps.suffix(3).allSatisfy { $0 >= 150 }, "reached the cap")
        #expect(device.registerRequests.count == 13)
    }

    @Test("Unregistration is tried three times in all, 1–2 s then 2–4 s apart, then fails")
    func unregistrationRetriedThreeTimes() async {
        // Given a registered user and a service that does not answer
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(delegate: delegate)
        device.service.fail(.unregisterTokens, with: [.network, .status(503, code: "ERR_UNAVAILABLE"), .network])
        let earlierSleeps = device.clock.sleeps.count

        // When the app unregisters
        let result: PNResult<Void> = await awaitResult { app.sdk.unregisterTokens(completion: $0) }

        // Then three attempts with back-off, and the last failure
        #expect(device.service.requests(.unregisterTokens).count == 3)
        if case .failure(let error) = result { #expect(error.code == .networkError) } else { Issue.record("succeeded") }
        let sleeps = Array(device.clock.sleeps.dropFirst(earlierSleeps))
        #expect(sleeps.count == 2)
        #expect(sleeps.first.map { $0 >= 1 && $0 <= 2 } == true)
        #expect(sleeps.last.map { $0 >= 2 && $0 <= 4 } == true)
    }

    @Test("Unregistration succeeds on its last attempt; a 4xx is not retried")
    func unregistrationRetryThenSuccess() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(delegate: delegate)
        device.service.fail(.unregisterTokens, with: [.network, .network])
        let retried: PNResult<Void> = await awaitResult { app.sdk.unregisterTokens(completion: $0) }
        #expect((try? retried.get()) != nil)
        #expect(device.service.requests(.unregisterTokens).count == 3)

        device.service.fail(.unregisterTokens, with: [.status(400, code: "ERR_BAD_REQUEST")])
        let rejected: PNResult<Void> = await awaitResult { app.sdk.unregisterTokens(completion: $0) }
        if case .failure(let error) = rejected { #expect(error.code == .serverError) } else { Issue.record("succeeded") }
        #expect(device.service.requests(.unregisterTokens).count == 4)
    }

    @Test("4xx answers are not retried", arguments: ["ERR_BAD_REQUEST", "ERR_PROVIDER_NOT_FOUND"])
    func clientErrorsNotRetried(code: String) async {
        device.service.fail(.registerToken, with: [.status(400, code: code)])
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        #expect(device.registerRequests.count == 1)
        #expect(delegate.events == [.failed(.apns, .serverError)])
        #expect(delegate.registrationErrors.first?.serverCode == code)
        #expect(device.clock.sleeps.isEmpty)
    }

    @Test("No providerId: providerRequired to the delegate and no request")
    func missingProvider() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(testConfig(providerId: nil), delegate: delegate)
        #expect(device.service.requests.isEmpty)
        #expect(delegate.events == [.failed(.apns, .providerRequired)])
        let readiness: PNResult<PNRingReadiness> = await awaitResult { app.sdk.ensureRingReady($0) }
        #expect((try? readiness.get()) == .providerMissing)
    }

    @Test("autoRegisterTokens false: nothing at initialize or login; a rotated token is still registered; no unregister at logout")
    func autoRegisterOff() async {
        // Given: a token cached by an earlier launch, and this launch's APNs answer not in yet
        await device.launchAndSettle(delegate: delegate)
        device.setAPNs(.silent)
        // The earlier launch ends first: logged in while it ran, it would register alice itself
        // (auto-registration on), racing the relaunch that ends it
        device.terminate()
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(testConfig(autoRegisterTokens: false), delegate: delegate)
        #expect(device.service.requests.isEmpty, "not at initialize")
        device.logInToChatSDK(uid: "bob", authToken: "bob-token")
        #expect(await device.settle())
        #expect(device.service.requests.isEmpty, "not at login")

        device.rotateAPNsToken(to: SimulatedDevice.token(5))
        #expect(await device.settle())
        #expect(device.registerRequests.map(\.authToken) == ["bob-token"], "a rotated token is registered")

        app.sdk.registerFCMToken("fcm-1")
        #expect(await device.settle())
        #expect(device.registerRequests.map(\.platform) == ["apns_ios_device", "fcm_ios"], "a delivered token is registered")

        let manual: PNResult<[CometChatPushTokenPlatform]> = await awaitResult { app.sdk.registerTokens(completion: $0) }
        #expect((try? manual.get()) == [.apns, .fcm])

        device.logOutOfChatSDK()
        app.sdk.setSession(uid: "carol", authToken: "carol-token")
        #expect(await device.settle())
        #expect(device.registerRequests.count == 2, "not at login")
        _ = await awaitResult { (done: @escaping @Sendable (PNResult<Void>) -> Void) in app.sdk.clearSession(completion: done) }
        #expect(device.service.requests(.unregisterTokens).isEmpty, "no unregistration at logout")
    }

    @Test("A rejected auth token ends the session")
    func authTokenRejected() async {
        device.service.fail(.registerToken, with: [.status(401, code: "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")])
        let app = device.launch { sdk in
            sdk.delegate = delegate
            sdk.initialize(config: testConfig())
            sdk.setSession(uid: "alice", authToken: "stale-token")
        }
        #expect(await device.settle())
        #expect(delegate.events == [.failed(.apns, .serverError)])
        #expect(app.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
        #expect(device.keychain.allItems.values.allSatisfy { !$0.values.contains { $0.contains("stale-token") } })
        #expect(device.registerRequests.count == 1, "not retried")

        // The next launch does not bring the stale session back
        await device.launchAndSettle(delegate: delegate)
        #expect(device.registerRequests.count == 1)
    }

    @Test("Relaunch restores tokens and the session from the keychain, never from plain storage")
    func relaunchRestores() async {
        let app = await device.launchAndSettle(testConfig(extensionGroupID: "group.test"), delegate: delegate)
        app.sdk.setSession(uid: "alice", authToken: "alice-secret-token")
        #expect(await device.settle())
        #expect(device.registerRequests.count == 1)

        // Kill, and relaunch without APNs answering this time
        device.setAPNs(.silent)
        let relaunched = await device.launchAndSettle(testConfig(extensionGroupID: "group.test"), delegate: delegate)
        #expect((relaunched.sdk.getDiagnostics()["tokens"] as? [String: String])?["apns"] != nil)
        #expect(relaunched.sdk.getDiagnostics()["loggedIn"] as? Bool == true)
        #expect(device.registerRequests.count == 1, "same token, same user, within a day: not sent again")
        #expect(!device.defaults.contains("alice-secret-token"))
        #expect(
            device.keychain.allItems["group.test"]?.values.contains { $0.contains("alice-secret-token") } == true,
            "shared with the extension through the App Group access group")
        // The saved configuration is in the App Group for the extension, without the auth token
        #expect(device.defaults.allValues["group.test"]?.isEmpty == false)
    }

    @Test("The same token for the same user is sent again after a day")
    func refreshAfterADay() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(delegate: delegate)
        device.clock.advance(by: 25 * 3600)
        await device.launchAndSettle(delegate: delegate)
        #expect(device.registerRequests.count == 2)
    }

    @Test("verifyPushSetup registers again even when already registered, and reports the platforms")
    func verifyPushSetup() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(delegate: delegate)
        app.sdk.registerFCMToken("fcm-token-abc")
        #expect(await device.settle())
        let result: PNResult<[CometChatPushTokenPlatform]> = await awaitResult { app.sdk.verifyPushSetup(completion: $0) }
        #expect((try? result.get()) == [.apns, .fcm])
        #expect(device.registerRequests.count == 4)
        #expect(device.registerRequests.map(\.platform).sorted() == ["apns_ios_device", "apns_ios_device", "fcm_ios", "fcm_ios"])
    }

    @Test("Diagnostics hold no whole token and no auth token")
    func diagnosticsRedacted() async {
        device.logInToChatSDK(uid: "alice", authToken: "alice-secret-auth")
        let app = await device.launchAndSettle(testConfig(authToken: "config-secret-auth"), delegate: delegate)
        app.sdk.registerFCMToken("fcm-token-that-is-long-enough-to-spot")
        #expect(await device.settle())
        let text = String(describing: app.sdk.getDiagnostics())
        #expect(!text.contains(token1))
        #expect(!text.contains(String(token1.prefix(16))))
        #expect(!text.contains("fcm-token-that-is-long-enough-to-spot"))
        #expect(!text.contains("alice-secret-auth"))
        #expect(!text.contains("config-secret-auth"))
        #expect(text.contains("apns") && text.contains("fcm"))
        #expect(device.logger.all.allSatisfy { !$0.contains(token1) && !$0.contains("alice-secret-auth") })
    }

    @Test("The configuration's authToken registers when no SDK is logged in")
    func configAuthToken() async {
        let app = await device.launchAndSettle(testConfig(authToken: "config-token"), delegate: delegate)
        #expect(device.registerRequests.map(\.authToken) == ["config-token"])
        #expect(app.sdk.getDiagnostics()["sessionSource"] as? String == "configuration")
    }

    @Test("tokenRegistrar picks whose session registers")
    func tokenRegistrar() async {
        device.logInToChatSDK(uid: "alice", authToken: "chat-token")
        device.logInToCallsSDK(uid: "alice", authToken: "calls-token")
        let config = PNConfiguration(appId: "app1", region: "us", providerId: "p", tokenRegistrar: .calls)
        await device.launchAndSettle(config, delegate: delegate)
        #expect(device.registerRequests.map(\.authToken) == ["calls-token"])

        let other = SimulatedDevice()
        other.logInToChatSDK(uid: "alice", authToken: "chat-token")
        other.logInToCallsSDK(uid: "alice", authToken: "calls-token")
        await other.launchAndSettle(PNConfiguration(appId: "app1", region: "us", providerId: "p"), delegate: RecordingDelegate())
        #expect(other.registerRequests.map(\.authToken) == ["chat-token"], ".auto prefers the Chat SDK")
    }

    @Test("Handing over a registration failure reaches the delegate and diagnostics")
    func registrationFailure() async {
        let failing = SimulatedDevice(apns: .fail("no valid aps-environment entitlement"))
        let app = await failing.launchAndSettle(delegate: delegate)
        #expect(delegate.events == [.failed(.apns, .serverError)])
        #expect((app.sdk.getDiagnostics()["apnsRegistrationFailure"] as? String)?.contains("aps-environment") == true)
    }

    @Test(
        "The SDK asks for permission and registers with APNs at launch, on every launch; requestNotificationPermission false does neither")
    func permissionPrompt() async {
        let app = await device.launchAndSettle(delegate: delegate)
        #expect(app.permissionPrompts == 1)
        #expect(app.remoteRegistrations == 1)
        // iOS hands the token only to a launch that registers: every launch must
        let again = await device.launchAndSettle(delegate: delegate)
        #expect(again.remoteRegistrations == 1)

        let quiet = SimulatedDevice()
        let config = PNConfiguration(appId: "a", region: "us", providerId: "p", requestNotificationPermission: false)
        let quietApp = await quiet.launchAndSettle(config, delegate: delegate)
        #expect(quietApp.permissionPrompts == 0)
        #expect(quietApp.remoteRegistrations == 0)
    }

    @Test("Denied notifications make ensureRingReady answer notificationsOff")
    func notificationsOff() async {
        let denied = SimulatedDevice(promptAnswer: .denied)
        let app = await denied.launchAndSettle(delegate: delegate)
        let readiness: PNResult<PNRingReadiness> = await awaitResult { app.sdk.ensureRingReady($0) }
        #expect((try? readiness.get()) == .notificationsOff)
        let ok = await device.launchAndSettle(delegate: delegate)
        let ready: PNResult<PNRingReadiness> = await awaitResult { ok.sdk.ensureRingReady($0) }
        #expect((try? ready.get()) == .ready)
        // An app that asks for permission itself (requestNotificationPermission: false) hears
        // the same: notifications are off whoever asked.
        let selfAsking = SimulatedDevice(permission: .denied)
        let config = PNConfiguration(appId: "a", region: "us", providerId: "p", requestNotificationPermission: false)
        let quiet = await selfAsking.launchAndSettle(config, delegate: delegate)
        let off: PNResult<PNRingReadiness> = await awaitResult { quiet.sdk.ensureRingReady($0) }
        #expect((try? off.get()) == .notificationsOff)
    }
}
