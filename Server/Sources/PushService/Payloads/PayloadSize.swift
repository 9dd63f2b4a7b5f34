import APNs
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// Refuses, when a send is accepted, a push that APNs would refuse (``APNsLimits``): a payload
/// over its limit is a 400 naming the send's field that made it so big, never a job that fails
/// `PayloadTooLarge` later.
enum PayloadSize {
    /// The first of `jobs` that APNs would refuse, as the API error for the send; nil when all fit.
    static func check(_ jobs: [PushJob], event: SendRequest.Event, badge: Int?) -> APIError? {
        for job in jobs {
            guard let problem = JobFactory.apnsProblem(job) else { continue }
            let voip = job.headers.pushType == .voip
            guard problem == .payloadTooLarge else {
                // The service sets the other headers itself; this would be its own fault.
                return APIError.badRequest(
                    "APNs would refuse this push (\(problem)).", field: eventKey(event), problem: problem.rawValue)
            }
            let limit = APNsLimits.payloadLimit(voip: voip)
            let (field, size) = largestField(of: event, voip: voip, badge: badge, sealed: job.privatePush != nil)
            let kind = (voip ? "VoIP push" : (job.platform == .fcm ? "push (FCM to APNs)" : "push"))
            // A private push is measured sealed (clear part and `enc`), after the fitter removed
            // `message` and `custom` and shortened the text: still too large even so.
            let sealed = job.privatePush == nil ? "" : ", sealed,"
            let bytes = JobFactory.sentBytes(job)
            return APIError.badRequest(
                "The \(kind)\(sealed) would be \(bytes) bytes; APNs takes at most \(limit). Its largest part is \(field) "
                    + "(\(size) bytes): make it smaller.",
                field: field, problem: "makes the payload \(bytes) bytes, over APNs' limit of \(limit)")
        }
        return nil
    }

    /// The field of the send body that adds the most bytes to the event's payload (as built for
    /// a VoIP or an alert token), and how many: each candidate is left out in turn and the
    /// payloads compared, so a field that appears twice (a text in `body` and `aps.alert.body`)
    /// counts twice. Only called for a payload that is too large.
    /// For a `sealed` (private) push, the fields the fitter removes or shortens (`text`, `body`,
    /// `custom`, `message`) are not candidates: they were not what kept it too large.
    static func largestField(of event: SendRequest.Event, voip: Bool, badge: Int?, sealed: Bool = false) -> (field: String, bytes: Int) {
        let full = size(event, voip: voip, badge: badge)
        var best = (field: eventKey(event), bytes: 0)
        for (field, smaller) in candidates(event) where !(sealed && trimmedFields.contains(field)) {
            let bytes = full - size(smaller, voip: voip, badge: badge)
            if bytes > best.bytes { best = (field, bytes) }
        }
        return best
    }

    /// The send's fields whose bytes a private push's fitter removes or shortens.
    static let trimmedFields: Set<String> = [
        "message.text", "message.custom", "message.message", "campaign.body", "campaign.custom",
    ]

    private static func eventKey(_ event: SendRequest.Event) -> String {
        switch event {
        case .chat: return "message"
        case .call: return "call"
        case .campaign: return "campaign"
        }
    }

    private static func size(_ event: SendRequest.Event, voip: Bool, badge: Int?) -> Int {
        let payload: [String: Any]
        switch event {
        case .chat(let chat): payload = PayloadBuilder.chat(chat, badge: badge)
        case .call(let call): payload = PayloadBuilder.call(call, voip: voip, badge: badge)
        case .campaign(let campaign): payload = PayloadBuilder.campaign(campaign, badge: badge)
        }
        return JSON.encode(payload).count
    }

    /// The event without each field a sender controls the size of, by the field's name in the send body.
    private static func candidates(_ event: SendRequest.Event) -> [(String, SendRequest.Event)] {
        func parties(
            _ key: String, _ sender: Party, _ receiver: Party, _ rebuild: (Party, Party) -> SendRequest.Event
        )
            -> [(String, SendRequest.Event)]
        {
            var cut: [(String, SendRequest.Event)] = []
            for (name, isSender) in [("sender", true), ("receiver", false)] {
                let party = isSender ? sender : receiver
                var noName = party
                noName.name = ""
                var noAvatar = party
                noAvatar.avatar = nil
                cut.append(("\(key).\(name).name", isSender ? rebuild(noName, receiver) : rebuild(sender, noName)))
                cut.append(("\(key).\(name).avatar", isSender ? rebuild(noAvatar, receiver) : rebuild(sender, noAvatar)))
            }
            return cut
        }
        switch event {
        case .chat(let chat):
            func with(_ change: (inout ChatEvent) -> Void) -> SendRequest.Event {
                var copy = chat
                change(&copy)
                return .chat(copy)
            }
            return [
                ("message.text", with { $0.text = "" }), ("message.title", with { $0.title = nil }),
                ("message.custom", with { $0.custom = nil }), ("message.message", with { $0.message = nil }),
                ("message.reaction", with { $0.reaction = nil }), ("message.id", with { $0.id = "" }),
                ("message.parentId", with { $0.parentId = nil }),
            ]
                + parties("message", chat.sender, chat.receiver) { sender, receiver in
                    with {
                        $0.sender = sender
                        $0.receiver = receiver
                    }
                }
        case .call(let call):
            func with(_ change: (inout CallEvent) -> Void) -> SendRequest.Event {
                var copy = call
                change(&copy)
                return .call(copy)
            }
            return [("call.sessionId", with { $0.sessionId = "" })]
                + parties("call", call.sender, call.receiver) { sender, receiver in
                    with {
                        $0.sender = sender
                        $0.receiver = receiver
                    }
                }
        case .campaign(let campaign):
            func with(_ change: (inout CampaignEvent) -> Void) -> SendRequest.Event {
                var copy = campaign
                change(&copy)
                return .campaign(copy)
            }
            return [
                ("campaign.title", with { $0.title = "" }), ("campaign.body", with { $0.body = "" }),
                ("campaign.url", with { $0.url = nil }), ("campaign.imageUrl", with { $0.imageUrl = nil }),
                ("campaign.custom", with { $0.custom = nil }), ("campaign.id", with { $0.id = "" }),
                ("campaign.campaignId", with { $0.campaignId = "" }),
            ]
        }
    }
}
