#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

/// An app's urgency policy (issue 30, `docs/design/delivery-policy.md`): for each kind of push,
/// the `interruption-level` and `relevance-score` it carries. Only what the app set is kept;
/// every other kind uses ``defaultLevel(_:timeSensitive:)`` and ``defaultRelevance``.
public struct DeliveryPolicy: Sendable, Hashable {
    /// What a push is about, as the policy sees it (decided per recipient).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A 1:1 message.
        case direct
        /// A message whose `mentions` names the recipient (1:1 or group).
        case mention
        /// A group message that does not mention the recipient.
        case group
        /// A reaction (`category: reaction`).
        case reaction
        /// A group action (`category: action`), e.g. a member added.
        case action
        /// A ringing call (`callAction: initiated`) sent to an alert token (a user without a VoIP token).
        case call
    }

    /// An `aps.interruption-level` the policy may choose. `critical` needs Apple's entitlement
    /// and is never sent.
    public enum Level: String, Sendable, Hashable, CaseIterable {
        case passive
        case active
        case timeSensitive = "time-sensitive"
    }

    /// Whether the app has the Time Sensitive Notifications capability: without it a
    /// `time-sensitive` level is sent as `active`.
    public var timeSensitive: Bool
    /// The levels the app set, by kind.
    public var levels: [Kind: Level]
    /// The relevance scores (0 to 1) the app set, by kind.
    public var relevance: [Kind: Double]

    /// Creates a policy.
    public init(timeSensitive: Bool = false, levels: [Kind: Level] = [:], relevance: [Kind: Double] = [:]) {
        self.timeSensitive = timeSensitive
        self.levels = levels
        self.relevance = relevance
    }

    /// The policy of an app that set none.
    public static let standard = DeliveryPolicy()

    /// The level of a kind when the app set none: direct messages, mentions and calls
    /// `time-sensitive` with the capability (else `active`), group messages `active`, reactions
    /// and actions `passive`.
    public static func defaultLevel(_ kind: Kind, timeSensitive: Bool) -> Level {
        switch kind {
        case .direct, .mention, .call: return timeSensitive ? .timeSensitive : .active
        case .group: return .active
        case .reaction, .action: return .passive
        }
    }

    /// The relevance of a kind when the app set none: mentions and calls above direct messages,
    /// above group messages, above reactions and actions.
    public static let defaultRelevance: [Kind: Double] = [
        .call: 1, .mention: 0.9, .direct: 0.7, .group: 0.5, .reaction: 0.2, .action: 0.1,
    ]

    /// The level the policy gives a kind (before the capability check).
    public func level(_ kind: Kind) -> Level {
        levels[kind] ?? Self.defaultLevel(kind, timeSensitive: timeSensitive)
    }

    /// The relevance score the policy gives a kind.
    public func relevanceScore(_ kind: Kind) -> Double {
        relevance[kind] ?? Self.defaultRelevance[kind] ?? 0.5
    }

    /// Whether the app set nothing (stored as NULL).
    public var isStandard: Bool { self == .standard }

    /// The policy as JSON (keys sorted): `{"levels":{…},"relevance":{…},"timeSensitive":…}`.
    public var json: [String: Any] {
        [
            "timeSensitive": timeSensitive,
            "levels": Dictionary(uniqueKeysWithValues: levels.map { ($0.key.rawValue, $0.value.rawValue as Any) }),
            "relevance": Dictionary(uniqueKeysWithValues: relevance.map { ($0.key.rawValue, $0.value as Any) }),
        ]
    }

    /// The stored text of the policy (the `apps.delivery_policy` column); nil for ``standard``.
    public var storedText: String? {
        guard !isStandard, let data = try? JSONCodec.encodeData(json, sortedKeys: true) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The policy of a stored text. NULL, or text this version cannot read, is ``standard``;
    /// a kind or level a later version added is left out (its default applies).
    public init(storedText: String?) {
        self.init()
        guard let storedText, let value = try? JSONCodec.parse(Array(storedText.utf8)) as? [String: Any] else { return }
        timeSensitive = value["timeSensitive"] as? Bool ?? false
        for (key, raw) in value["levels"] as? [String: Any] ?? [:] {
            if let kind = Kind(rawValue: key), let text = raw as? String, let level = Level(rawValue: text) { levels[kind] = level }
        }
        for (key, raw) in value["relevance"] as? [String: Any] ?? [:] {
            guard let kind = Kind(rawValue: key) else { continue }
            let score: Double? = if let real = raw as? Double { real } else if let whole = raw as? Int { Double(whole) } else { nil }
            if let score, (0...1).contains(score) { relevance[kind] = score }
        }
    }
}
