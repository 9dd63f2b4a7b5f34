import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The `async` forms answer what their completion-handler forms answer, and keep the order calls
/// were made in. (That every form compiles where apps call it is CallForms.swift's job.)
@Suite("Async forms")
struct AsyncFormTests {
    @Test("Before initialize, every async form throws notInitialised and sends nothing")
    func beforeInitialize() async {
        let device = SimulatedDevice(permission: .authorized)
        let sdk = device.launch { _ in }.sdk
        var codes: [PNError.Code?] = []
        codes.append(await Self.code { try await sdk.registerTokens() })
        codes.append(await Self.code { try await sdk.unregisterTokens() })
        codes.append(await Self.code { try await sdk.verifyPushSetup() })
        codes.append(await Self.code { try await sdk.ensureRingReady() })
        codes.append(await Self.code { try await sdk.getPreferences() })
        codes.append(await Self.code { try await sdk.setConversationMutedAndWait(userId: "bob", until: nil) })
        codes.append(await Self.code { try await sdk.markConversationReadAndWait(userId: "bob") })
        #expect(codes == Array(repeating: .notInitialised, count: 7))
        // A token before initialize is cached, and its answer says so, as the completion's does.
        #expect(await Self.code { try await sdk.registerDeviceTokenAndWait(SimulatedDevice.token(1)) } == .notInitialised)
        #expect(await device.settle())
        #expect(device.service.requests.isEmpty)
    }

    @Test("Tokens: the async forms register, verify, unregister and end the session as the completion forms do")
    func tokens() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let app = device.launch { $0.initialize(config: testConfig()) }
        let sdk = app.sdk
        #expect(await device.settle())
        #expect(await Self.code { try await sdk.registerTokens() } == .notLoggedIn)

        sdk.setSession(uid: "alice", authToken: "alice-token")
        #expect(try await sdk.registerDeviceTokenAndWait(SimulatedDevice.token(1)) == SimulatedDevice.token(1).hex)
        #expect(try await sdk.registerTokens() == [.apns])
        #expect(try await sdk.verifyPushSetup() == [.apns])
        #expect(device.registerRequests.map(\.token) == [SimulatedDevice.token(1).hex, SimulatedDevice.token(1).hex])
        #expect(try await sdk.ensureRingReady() == .ready)
        #expect(await Self.code { try await sdk.registerFCMTokenAndWait("  ") } == .serverError)

        try await sdk.unregisterTokens()
        #expect(device.service.requests(.unregisterTokens).map { $0.headers["authToken"] } == ["alice-token"])
        try await sdk.clearSessionAndWait()
        #expect(await Self.code { try await sdk.registerTokens() } == .notLoggedIn)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("A call made before an awaited one is handled first, whichever form each has")
    func order() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let sdk = device.launch { $0.initialize(config: testConfig()) }.sdk
        // The plain calls queue their work at once; the awaited call's work queues behind them.
        sdk.setSession(uid: "alice", authToken: "alice-token")
        sdk.registerDeviceToken(SimulatedDevice.token(2))
        #expect(try await sdk.registerTokens() == [.apns])
        #expect(device.registerRequests.map(\.token) == [SimulatedDevice.token(2).hex])
    }

    @Test("Preferences and read state: the AndWait forms answer the preferences, or throw")
    func preferences() async throws {
        let device = SimulatedDevice(permission: .authorized)
        let selfHosted = PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: "https://push.example.com")
        let sdk = device.launch { $0.initialize(config: selfHosted) }.sdk
        sdk.setSession(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())

        let muted = try await sdk.setConversationMutedAndWait(userId: "bob", until: nil)
        #expect(muted.isMuted(userId: "bob"))
        try await sdk.setConversationMutedAndWait(groupId: "hikers", until: nil)
        try await sdk.setGroupNotificationLevelAndWait(.mentionsOnly, groupId: "climbers")
        let quiet = try await sdk.setQuietHoursAndWait(start: DateComponents(hour: 22), end: DateComponents(hour: 7), includeCalls: true)
        #expect(quiet.quietHours?.includeCalls == true)
        try await sdk.unmuteConversationAndWait(userId: "bob")
        try await sdk.unmuteConversationAndWait(groupId: "hikers")
        try await sdk.clearQuietHoursAndWait()
        let read = try await sdk.getPreferences()
        #expect(read.mutes.isEmpty && read.quietHours == nil && read.level(groupId: "climbers") == .mentionsOnly)
        try await sdk.markConversationReadAndWait(userId: "bob", unreadCount: 2)
        try await sdk.markConversationReadAndWait(groupId: "hikers")
        #expect(device.service.requests(.markRead).count == 2)
        #expect(await Self.code { try await sdk.setConversationMutedAndWait(userId: " ", until: nil) } == .serverError)
        #expect(device.service.contractViolations.isEmpty)

        // Without a self-hosted service: notSupported, and nothing sent.
        let hosted = SimulatedDevice(permission: .authorized)
        let other = hosted.launch { $0.initialize(config: testConfig()) }.sdk
        other.setSession(uid: "alice", authToken: "alice-token")
        #expect(await hosted.settle())
        hosted.service.clearRequests()
        #expect(await Self.code { try await other.getPreferences() } == .notSupported)
        #expect(await Self.code { try await other.clearQuietHoursAndWait() } == .notSupported)
        #expect(await Self.code { try await other.markConversationReadAndWait(userId: "bob", unreadCount: 1) } == .notSupported)
        #expect(hosted.service.requests.isEmpty)
    }

    /// The code of the `PNError` that `call` throws, or `nil` when it returns.
    static func code<T>(_ call: () async throws -> T) async -> PNError.Code? {
        do {
            _ = try await call()
            return nil
        } catch let error as PNError {
            return error.code
        } catch {
            Issue.record("not a PNError: \(error)")
            return nil
        }
    }
}
