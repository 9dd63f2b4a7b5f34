import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift

/// A small deterministic generator (SplitMix64), so a failing input can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Payload fuzzing")
struct PayloadFuzzTests {
    static let keys = [
        "type", "source", "sender", "senderUid", "senderName", "senderAvatar", "receiver", "receiverName",
        "receiverAvatar", "receiverType", "conversationId", "title", "body", "tag", "messageId", "parentId",
        "sentAt", "message", "payload", "unreadMessageCount", "callAction", "sessionId", "callType",
        "campaignId", "announcementId", "id", "aps", "custom", "alert", "uid", "guid", "name",
    ]

    /// A random value of any JSON type, strings that look like numbers or JSON, huge and odd text, deep nesting.
    static func value(_ rng: inout SeededGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<14, using: &rng) {
        case 0: return Int.random(in: Int.min...Int.max, using: &rng)
        case 1: return Double.random(in: -1e300...1e300, using: &rng)
        case 2: return [Double.nan, .infinity, -.infinity, 0.5, -0.0][Int.random(in: 0..<5, using: &rng)]
        case 3: return Bool.random(using: &rng)
        case 4: return NSNull()
        case 5: return String(Int.random(in: -100...1_000_000, using: &rng))
        case 6: return String(repeating: "x", count: [0, 1, 300, 5_000][Int.random(in: 0..<4, using: &rng)])
        case 7:
            return String(
                decoding: (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, as: UTF8.self)
        case 8:
            return ["{", "{\"id\":", "{\"unreadMessageCount\":\"-1\"}", "[]", "{}", "\u{0}", "group_", "_user_", " 7 ", "1e400"][
                Int.random(in: 0..<10, using: &rng)]
        case 9: return "{" + String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600) + "}"
        case 10: return Data((0..<Int.random(in: 0...32, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 11 where depth < 24: return dictionary(&rng, depth: depth + 1)
        case 12 where depth < 24: return (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) }
        default: return keys[Int.random(in: 0..<keys.count, using: &rng)]
        }
    }

    static func dictionary(_ rng: inout SeededGenerator, depth: Int) -> [String: Any] {
        var out: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...8, using: &rng) {
            out[keys[Int.random(in: 0..<keys.count, using: &rng)]] = value(&rng, depth: depth)
        }
        return out
    }

    /// A fixture with some keys removed, retyped or replaced.
    static func mutate(_ payload: [String: Any], _ rng: inout SeededGenerator) -> [AnyHashable: Any] {
        var out: [AnyHashable: Any] = [:]
        for (key, value) in payload { out[key] = value }
        for _ in 0..<Int.random(in: 1...5, using: &rng) {
            let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: out[key] = nil
            case 1: out[key] = Self.value(&rng, depth: 20)
            case 2: out[AnyHashable(Int.random(in: 0...9, using: &rng))] = Self.value(&rng, depth: 20)
            default: out[key] = (out[key]).map { "\($0)" }
            }
        }
        return out
    }

    @Test("5,000 random and mutated payloads: nothing crashes, and every answer is well-formed")
    func fuzz() throws {
        var rng = SeededGenerator(seed: 0xC0FFEE)
        let fixtures = try contractPayloadNames().map(contractPayload)
        let policy = PNForegroundPolicy(showInAppNotifications: true, enableBadgeCount: true, activeConversation: .group("team"))
        var kinds: [CometChatNotificationKind: Int] = [:]
        for index in 0..<5_000 {
            let payload: Any =
                index.isMultiple(of: 2)
                ? Self.dictionary(&rng, depth: 0)
                : Self.mutate(fixtures[index % fixtures.count], &rng)
            let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
            let decision = policy.decide(info)
            _ = CometChatPushNotifications.isCampaignNotification(userInfo: info.rawPayload)
            kinds[info.kind, default: 0] += 1
            #expect((info.unreadMessageCount ?? 0) >= 0)
            #expect(decision.badge == nil || decision.badge == info.unreadMessageCount)
            #expect(info.kind != .call || decision.options.isEmpty)
            #expect(info.senderUid.map { !$0.isEmpty && $0 == $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? true)
        }
        #expect(kinds.count == 4, "the mutated fixtures keep every kind represented: \(kinds)")
    }

    @Test("A megabyte of text in every field, and JSON nested past the parser's limits")
    func hugeValues() throws {
        let huge = String(repeating: "\u{1F600} 7", count: 350_000)
        var payload: [String: Any] = [:]
        for key in Self.keys { payload[key] = huge }
        payload["message"] = "{" + String(repeating: "\"a\":{", count: 100_000) + "}"
        let info = try #require(CometChatPushNotifications.parseNotificationInfo(from: payload))
        #expect(info.unreadMessageCount == nil && info.messageId?.count == huge.count)
    }

    @Test("Non-dictionary and dictionary-ish junk at the top level never crashes")
    func topLevelJunk() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<500 {
            _ = CometChatPushNotifications.parseNotificationInfo(from: Self.value(&rng, depth: 0))
        }
    }
}
