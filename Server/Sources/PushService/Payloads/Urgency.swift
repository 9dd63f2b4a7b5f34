import PushStore

/// How urgently one recipient's push interrupts them (issue 30, `docs/design/delivery-policy.md`):
/// the `aps.interruption-level` and `aps.relevance-score` of its alert, and why, for the trace.
///
/// The app's ``DeliveryPolicy`` gives a level and a relevance per kind of push; the recipient's
/// preferences still win: quiet hours make the push `passive` (``PreferenceRules``), and
/// mentions-only has already skipped a group message that does not mention them.
struct Urgency: Equatable {
    /// The `interruption-level`.
    var level: DeliveryPolicy.Level
    /// The `relevance-score` (0 to 1); nil leaves the key out (call updates).
    var relevance: Double?
    /// Why: the kind (`mention`, `direct`, …), `quiet-hours`, `quiet-hours-calls`, or the kind
    /// followed by ``noTimeSensitive`` when the policy asked for `time-sensitive` without the capability.
    var reason: String

    /// What the reason adds when a `time-sensitive` level went out as `active` (the app's
    /// `deliveryPolicy.timeSensitive` is false), e.g. `mention; time-sensitive not enabled`.
    static let noTimeSensitive = "; time-sensitive not enabled"

    /// The kind of a chat push for `recipient`: reactions and actions by their category; a
    /// message whose `mentions` names the recipient is a mention (in a group or 1:1), else a
    /// group or a direct message.
    static func kind(of chat: ChatEvent, recipient: String) -> DeliveryPolicy.Kind {
        switch chat.category {
        case .reaction: return .reaction
        case .action: return .action
        case .message:
            if chat.mentions.contains(recipient) { return .mention }
            return chat.receiverType == "group" ? .group : .direct
        }
    }

    /// The urgency of `event`'s alert push to `recipient`, or nil when it has none (campaigns,
    /// calls other than a ringing one outside quiet hours). VoIP pushes never get one.
    static func decide(
        event: SendRequest.Event, recipient: String, policy: DeliveryPolicy, treatment: PreferenceRules.Treatment
    ) -> Urgency? {
        switch event {
        case .campaign:
            return nil
        case .chat(let chat):
            var urgency = choose(kind(of: chat, recipient: recipient), policy)
            if treatment == .quiet {
                urgency.level = .passive
                urgency.reason = PreferenceRules.Rule.quietHours
            }
            return urgency
        case .call(let call):
            let ringing = call.callAction == "initiated"
            if treatment == .quietCall {
                return Urgency(
                    level: .passive, relevance: ringing ? policy.relevanceScore(.call) : nil, reason: PreferenceRules.Rule.quietHoursCalls)
            }
            return ringing ? choose(.call, policy) : nil
        }
    }

    /// The policy's level and relevance for `kind`; `time-sensitive` without the capability is `active`.
    static func choose(_ kind: DeliveryPolicy.Kind, _ policy: DeliveryPolicy) -> Urgency {
        let level = policy.level(kind)
        if level == .timeSensitive && !policy.timeSensitive {
            return Urgency(level: .active, relevance: policy.relevanceScore(kind), reason: kind.rawValue + noTimeSensitive)
        }
        return Urgency(level: level, relevance: policy.relevanceScore(kind), reason: kind.rawValue)
    }

    /// Puts the level and relevance into an alert's `aps`.
    func apply(to aps: inout [String: Any]) {
        aps["interruption-level"] = level.rawValue
        if let relevance { aps["relevance-score"] = relevance }
    }
}
