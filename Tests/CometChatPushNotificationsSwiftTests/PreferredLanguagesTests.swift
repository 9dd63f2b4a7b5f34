import Foundation
import Testing
@testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// A configuration for a self-hosted service (`languages` is sent only with a `clientHost`).
private func selfHostedConfig(clientHost: String? = "https://push.example.com") -> PNConfiguration {
    PNConfiguration(appId: "app1", region: "us", providerId: "apns-provider", clientHost: clientHost)
}

@Suite("Preferred languages: the normaliser")
struct PreferredLanguagesNormaliserTests {
    @Test("iOS's tags are kept as they are, in order")
    func iOSTagsKept() {
        #expect(
            PreferredLanguages.normalised(["de-CH", "en-US", "zh-Hans-CN", "fr", "sr-Latn-RS"]) == [
                "de-CH", "en-US", "zh-Hans-CN", "fr", "sr-Latn-RS",
            ])
        #expect(PreferredLanguages.normalised([]) == [])
    }

    @Test("`_` becomes `-` before the tag is checked")
    func underscores() {
        #expect(PreferredLanguages.normalised(["de_CH", "en_US_POSIX", "zh_Hant"]) == ["de-CH", "en-US-POSIX", "zh-Hant"])
    }

    @Test("What is not a tag is dropped, and the rest keeps its order")
    func nonTagsDropped() {
        let input = [
            "", "e", "-", "en-", "-en", "en--US", "123", "1en", "toolongxx", "en-123456789", "en US", " en", "en.UTF-8", "en-US@rg=dezzzz",
            "é", "fr-é", "日本語", "de",
            "ab-12345678-12345678-12345678-12345",  // 35 characters: kept
            "ab-12345678-12345678-12345678-123456",  // 36 characters: dropped
            "abcdefgh", "en-x",
        ]
        #expect(PreferredLanguages.normalised(input) == ["de", "ab-12345678-12345678-12345678-12345", "abcdefgh", "en-x"])
    }

    @Test("Repeats are dropped ignoring case (also after `_` became `-`); the first spelling stays")
    func duplicates() {
        #expect(PreferredLanguages.normalised(["en-US", "EN-us", "en_US", "de", "en", "DE", "En"]) == ["en-US", "de", "en"])
    }

    @Test("At most 10 are kept, counted after dropping non-tags and repeats")
    func atMostTen() {
        let tags = (1...12).map { "en-x\($0)" }
        let input = ["x", "en-x1", "EN-X1"] + tags + ["de"]
        #expect(PreferredLanguages.normalised(input) == Array(tags.prefix(10)))
        #expect(PreferredLanguages.normalised(Array(tags.prefix(10))).count == 10)
    }

    @Test("isTag agrees with the contract's pattern and length on 20,000 generated strings")
    func agreesWithThePattern() throws {
        // Strings made of pieces of tags and of what breaks them, so that many are tags and many
        // miss by one character.
        let pieces = [
            "-", "-", "-", "-", "en", "de", "CH", "Hans", "x", "q", "1", "419", "a1b2c3d4", "abcdefgh", "9", "_", " ", "é", "\n", ".", "",
        ]
        var generator = LinearCongruential(seed: 30)
        var tags = 0
        for _ in 0..<20_000 {
            let count = Int(generator.next() % 12)
            let text = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            // `\z`, not `$`: ICU's `$` also matches before a final newline.
            let pattern = text.range(of: #"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*\z"#, options: .regularExpression) != nil
            let expected = pattern && text.count <= 35
            if expected { tags += 1 }
            #expect(PreferredLanguages.isTag(text) == expected, "\(text.debugDescription)")
        }
        #expect(tags > 500, "both answers are tried often (\(tags) tags)")
        #expect(!PreferredLanguages.isTag("en\n") && !PreferredLanguages.isTag("en-US\r\n"))
    }

    @Test("A registration record saved before `languages` existed still decodes, without languages")
    func oldRecordDecodes() throws {
        let saved = #"{"token":"ab","userKey":"uid:alice","providerId":"apns-provider","registeredAt":0,"encryptionKey":"k"}"#
        let record = try JSONDecoder().decode(RegistrationRecord.self, from: Data(saved.utf8))
        #expect(record.token == "ab" && record.encryptionKey == "k" && record.languages == nil)
        var withLanguages = record
        withLanguages.languages = ["de-CH", "de"]
        let again = try JSONDecoder().decode(RegistrationRecord.self, from: JSONEncoder().encode(withLanguages))
        #expect(again == withLanguages)
    }
}

/// A small deterministic generator for the generated strings.
private struct LinearCongruential {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}

@Suite("Preferred languages: token registration")
struct PreferredLanguagesRegistrationTests {
    let device = SimulatedDevice()
    var token1: String { SimulatedDevice.token(1).hex }

    /// The `languages` of every registration the service received, in order (`nil`: none sent).
    var sentLanguages: [[String]?] { device.service.requests(.registerToken).map(\.languages) }

    @Test("A self-hosted service gets the device's languages, normalised and in order, with every kind of token")
    func sentToASelfHostedService() async throws {
        device.preferredLanguages = ["de_CH", "de", "DE", "en", "x", "en-US"]
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(selfHostedConfig())
        app.sdk.registerFCMToken("fcm-1")
        #expect(await device.settle())
        let german = ["de-CH", "de", "en", "en-US"]
        #expect(device.service.requests(.registerToken).map { $0.json["platform"] } == ["apns_ios_device", "fcm_ios"])
        #expect(sentLanguages == [german, german])
        #expect(device.service.languages(token: token1) == german)
        #expect(device.service.languages(token: "fcm-1") == german)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("CometChat's hosted API (no clientHost, or a blank one) never gets languages", arguments: [nil, "  "] as [String?])
    func notSentWithoutClientHost(_ clientHost: String?) async throws {
        device.preferredLanguages = ["de-CH", "de", "en"]
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(selfHostedConfig(clientHost: clientHost))
        app.sdk.registerFCMToken("fcm-1")
        #expect(await device.settle())
        #expect(device.service.requests(.registerToken).count == 2)
        #expect(sentLanguages == [nil, nil])
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("No tag left: the field is left out")
    func nothingLeftIsLeftOut() async throws {
        device.preferredLanguages = ["", "x", "en.UTF-8"]
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(selfHostedConfig())
        #expect(device.service.requests(.registerToken).count == 1)
        #expect(sentLanguages == [nil])
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("A change of languages between launches registers again; an unchanged list does not")
    func changeBetweenLaunchesRegistersAgain() async throws {
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        await device.launchAndSettle(selfHostedConfig())
        #expect(sentLanguages == [["en-US", "en"]])

        // Relaunch, same languages: the token iOS hands again and the session adopted at
        // initialize send nothing.
        await device.launchAndSettle(selfHostedConfig())
        #expect(sentLanguages == [["en-US", "en"]], "nothing changed: not registered again")

        // The user switches the phone to German (iOS relaunches the app).
        device.preferredLanguages = ["de-CH", "de", "en"]
        await device.launchAndSettle(selfHostedConfig())
        #expect(sentLanguages == [["en-US", "en"], ["de-CH", "de", "en"]], "registered again, once")
        #expect(device.service.languages(token: token1) == ["de-CH", "de", "en"])

        await device.launchAndSettle(selfHostedConfig())
        #expect(sentLanguages.count == 2, "the German list, unchanged: not registered again")

        // Nothing usable left: registered once more without the field, which clears the list.
        device.preferredLanguages = []
        await device.launchAndSettle(selfHostedConfig())
        #expect(sentLanguages == [["en-US", "en"], ["de-CH", "de", "en"], nil])
        #expect(device.service.languages(token: token1) == nil)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test("A registration still retrying with the old languages is replaced by one with the new languages")
    func inFlightRegistrationIsReplaced() async throws {
        let device = SimulatedDevice(clock: SimulatedClock(autoAdvanceLimit: 0))
        device.service.fail(.registerToken, with: [.network])
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        let app = await device.launchAndSettle(selfHostedConfig())
        #expect(device.service.requests(.registerToken).map(\.languages) == [["en-US", "en"]])
        #expect(device.clock.suspendedSleepers >= 1, "the retry waits")

        // The languages change while the retry waits, and the same token comes again.
        device.preferredLanguages = ["de-CH", "de"]
        app.sdk.registerDeviceToken(SimulatedDevice.token(1))
        #expect(await device.settle())
        device.clock.advance(by: 600)
        #expect(await device.settle())
        #expect(device.service.requests(.registerToken).last?.languages == ["de-CH", "de"])
        #expect(device.service.languages(token: token1) == ["de-CH", "de"])
    }
}
