#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore
import ServerSupport

/// Quiet when already reading (issue 31, `docs/design/hold-while-active.md`): while a user
/// reads a conversation on one device (the SDK reports it) or on the web (the back end
/// reports it), chat pushes of that conversation to their other devices wait the app's
/// `holdWhileActiveSeconds`; a read on any device during the wait skips them (rule
/// `read-elsewhere`), else they go when it ends. Calls, campaigns and background pushes never wait.
enum ActivityHold {
    /// The rule a held push carries (log and trace), unless a preference gave it one.
    static let rule = "held-while-active"
    /// The rule of a held push a read skipped.
    static let cancelRule = "read-elsewhere"
    /// The longest hold, and the longest activity a report sets.
    static let maxSeconds = 300
    /// How long activity lasts when a report gives no `seconds`.
    static let defaultActivitySeconds = 60

    /// The source of a device's activity: the hex SHA-256 of its auth token (its push tokens
    /// carry the same hash).
    static func source(authTokenHash: Data) -> String {
        authTokenHash.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }

    /// A recipient's pushes held while they read the conversation elsewhere.
    struct Held {
        var uid: String
        var conversationId: String
        var jobIds: [String]
    }

    /// Records held pushes once their jobs are stored, for a read to cancel them. A crash in
    /// between only lets them go when their hold ends, as if nobody read.
    static func record(_ held: [Held], store: any ServiceStore, appId: String, seconds: Int, now: Date) throws {
        for entry in held {
            try store.recordHeldPushes(
                appId: appId, uid: entry.uid, conversationId: entry.conversationId, jobIds: entry.jobIds,
                until: now.addingTimeInterval(Double(seconds)), now: now)
        }
    }

    /// Holds `uid`'s chat jobs of the conversation the user is reading elsewhere: each job of
    /// an alert token that is not the reading device's waits `seconds` (its `notBefore`) and
    /// gets ``rule`` (unless a preference already named one). Returns the conversation and the
    /// held jobs' ids, to record once the send is stored; nil when nothing is held.
    static func apply(
        _ jobs: inout [PushJob], event: SendRequest.Event, tokens: [PushTokenRecord], activities: [UserActivity], seconds: Int,
        now: Date
    ) -> (conversationId: String, jobIds: [String])? {
        guard seconds > 0, case .chat(let chat) = event, chat.action == nil else { return nil }
        let conversation = PayloadBuilder.conversationId(
            sender: chat.sender.id, receiver: chat.receiver.id, receiverType: chat.receiverType)
        let readers = Set(activities.filter { $0.conversationId == conversation }.map(\.source))
        guard !readers.isEmpty else { return nil }
        // Read on the web: every device waits; read on a device: the others do.
        let waiting = Set(
            tokens.filter { readers.contains(UserActivity.backEnd) || !readers.contains(source(authTokenHash: $0.authTokenHash)) }
                .map(\.token))
        var held: [String] = []
        for index in jobs.indices where !jobs[index].skipped && jobs[index].platform != .apnsVoIP && waiting.contains(jobs[index].token) {
            jobs[index].notBefore = now.addingTimeInterval(Double(seconds))
            if jobs[index].rule == nil { jobs[index].rule = rule }
            held.append(jobs[index].id)
        }
        return held.isEmpty ? nil : (conversation, held)
    }

    /// Reads a report of activity, `{"conversationId": "<id>"|null, "seconds": 1…300}`, and
    /// stores it for `source`: the conversation as pushes name it, null to clear.
    static func report(_ call: Call, service: ServiceContext, appId: String, uid: String, source: String) throws -> Any {
        let body = try call.body()
        let conversationId: String?
        if body.values["conversationId"] is JSONNull || body.values["conversationId"] == nil {
            guard body.values.keys.contains("conversationId") else {
                throw APIError.badRequest(
                    "The conversationId field is required (null clears the activity).", field: "conversationId", problem: "missing")
            }
            conversationId = nil
        } else {
            let text = try body.string("conversationId", maxLength: AdminAPI.maxConversationIdLength)
            try Validate.identifier(text, field: "conversationId", maxLength: AdminAPI.maxConversationIdLength)
            conversationId = text
        }
        let seconds = Int(try body.int("seconds", in: 1...Int64(maxSeconds)) ?? Int64(defaultActivitySeconds))
        let now = service.now
        let expiresAt = now.addingTimeInterval(Double(seconds))
        try service.store.setActivity(
            appId: appId, uid: uid, source: source, conversationId: conversationId, expiresAt: expiresAt, now: now)
        return [
            "uid": uid, "conversationId": conversationId ?? JSONNull(),
            "expiresAt": conversationId == nil ? JSONNull() : PushTrace.milliseconds(expiresAt) as Any,
        ]
    }
}
