import Foundation
import Testing
@testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

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
