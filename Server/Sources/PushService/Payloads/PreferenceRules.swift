#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
// Time zones other than GMT need the ICU data of FoundationInternationalization (with
// FoundationEssentials alone, TimeZone(identifier: "Asia/Tokyo") is nil on Linux).
#if canImport(FoundationInternationalization)
import FoundationInternationalization
#endif
import PushStore

/// How a recipient's notification preferences change one push (Server/README.md,
/// "Preferences"): the send path asks ``decide(event:recipient:preferences:fallbackTimezone:now:)``
/// once per recipient and builds that recipient's jobs accordingly.
enum PreferenceRules {
    /// What happens to a recipient's push.
    enum Treatment: Equatable {
        /// Sent as built.
        case normal
        /// Not sent: recorded as skipped jobs with `rule`.
        case skipped(rule: String)
        /// A chat push delivered quietly (`interruption-level: passive`, no sound): `quiet-hours`.
        case quiet
        /// A call during quiet hours that include calls: a passive alert to alert tokens only;
        /// VoIP tokens are recorded as skipped (`quiet-hours-calls`).
        case quietCall

        /// The rule name recorded on the jobs, if any.
        var rule: String? {
            switch self {
            case .normal: return nil
            case .skipped(let rule): return rule
            case .quiet: return Rule.quietHours
            case .quietCall: return Rule.quietHoursCalls
            }
        }
    }

    /// The rule names in `push_jobs.rule` and the delivery log.
    enum Rule {
        static let muted = "muted"
        static let groupNone = "group-none"
        static let groupMentionsOnly = "group-mentions-only"
        static let quietHours = "quiet-hours"
        static let quietHoursCalls = "quiet-hours-calls"
    }

    /// The treatment of `event` for `recipient`. Mutes and group levels apply to chat pushes
    /// only (a call from a muted conversation still rings); quiet hours to chat pushes, and to
    /// calls when they include calls; campaigns are left alone.
    static func decide(
        event: SendRequest.Event, recipient: String, preferences: PushPreferences, fallbackTimezone: String?, now: Date
    ) -> Treatment {
        switch event {
        case .campaign:
            return .normal
        case .chat(let chat):
            let isGroup = chat.receiverType == "group"
            // 1:1: the conversation is muted as the sender; group: as the group.
            let conversation = isGroup ? chat.receiver.id : chat.sender.id
            if preferences.mutes.contains(where: {
                $0.receiverType == chat.receiverType && $0.receiver == conversation && $0.isActive(at: now)
            }) {
                return .skipped(rule: Rule.muted)
            }
            if isGroup, let level = preferences.groups.first(where: { $0.guid == chat.receiver.id })?.level {
                if level == "none" { return .skipped(rule: Rule.groupNone) }
                if level == "mentions" && !chat.mentions.contains(recipient) { return .skipped(rule: Rule.groupMentionsOnly) }
            }
            return isQuiet(preferences.quietHours, fallbackTimezone: fallbackTimezone, now: now) ? .quiet : .normal
        case .call:
            guard let quiet = preferences.quietHours, quiet.includeCalls,
                isQuiet(quiet, fallbackTimezone: fallbackTimezone, now: now)
            else { return .normal }
            return .quietCall
        }
    }

    /// Whether `now` falls in the quiet hours, read in their zone (explicit, else
    /// `fallbackTimezone`, the zone of the user's most recent registration; else UTC).
    static func isQuiet(_ quietHours: PushPreferences.QuietHours?, fallbackTimezone: String?, now: Date) -> Bool {
        guard let quietHours else { return false }
        guard let minute = minuteOfDay(now, timezone: quietHours.timezone ?? fallbackTimezone) else { return false }
        return quietHours.contains(minute: minute)
    }

    /// Minutes after midnight of `date` in the zone (UTC when the zone is nil or unknown).
    static func minuteOfDay(_ date: Date, timezone: String?) -> Int? {
        let zone = timezone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")
        guard let zone else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        guard let hour = parts.hour, let minute = parts.minute else { return nil }
        return hour * 60 + minute
    }

    /// Whether the id names a time zone this service knows.
    static func isKnownTimezone(_ identifier: String) -> Bool {
        TimeZone(identifier: identifier) != nil
    }

    /// The zone of the user's most recent token registration that sent one.
    static func registrationTimezone(_ tokens: [PushTokenRecord]) -> String? {
        tokens.last(where: { $0.timezone != nil })?.timezone
    }
}
