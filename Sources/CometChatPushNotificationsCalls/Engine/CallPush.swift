import Foundation

/// What a call push asks for (`callAction`, Contract/WIRE-CONTRACT.md §4).
enum CallAction: String, Sendable, CaseIterable {
    case initiated, ongoing, unanswered, rejected, busy, cancelled, ended
}

/// A VoIP push read into plain values. Parsing never fails hard: what cannot be read is `nil`.
struct CallPush: Sendable, Equatable {
    var action: CallAction?
    var rawAction: String?
    var sessionId: String?
    var callType: PNCallType
    var callerUid: String?
    var callerName: String?
    var callerAvatar: URL?
    var receiver: String?
    var isGroup: Bool

    /// Why the push cannot ring, or `nil` when it can be acted on.
    var problem: String? {
        if sessionId == nil { return "the push has no sessionId" }
        if action == nil { return "the push's callAction \(rawAction.map { "\"\($0)\"" } ?? "is missing and") is not known" }
        return nil
    }

    /// The call the push describes, for a push without a ``problem``.
    func incomingCall(payload: [AnyHashable: Any], uuid: UUID) -> IncomingCall? {
        guard let sessionId else { return nil }
        return IncomingCall(
            sessionId: sessionId, callerUid: callerUid ?? "", callerName: displayName, callerAvatar: callerAvatar,
            receiver: receiver ?? "", callType: callType, isGroup: isGroup, rawPayload: payload, callUUID: uuid)
    }

    /// The name for the call screen: the caller, else the call placeholder (a private app's VoIP
    /// push to a token without a key names nobody, issue 28).
    var displayName: String { callerName ?? callerUid ?? Self.placeholderName }

    /// What the call screen shows when the push names no caller.
    static let placeholderName = "Incoming call"

    /// The CallKit handle: the caller, or the group for a group call (so Recents calls it back).
    var handle: String {
        if isGroup, let receiver { return receiver }
        return callerUid ?? "unknown"
    }
}

/// Reads call pushes tolerantly: strings or numbers, wrong types ignored, never a crash.
enum CallPushParser {
    static func parse(_ payload: [AnyHashable: Any]) -> CallPush {
        let rawAction = text(payload["callAction"])
        let conversationId = text(payload["conversationId"])
        let receiverType = text(payload["receiverType"])?.lowercased()
        let callTypeText = (text(payload["callType"]) ?? text(payload["body"]) ?? "").lowercased()
        return CallPush(
            action: rawAction.flatMap { CallAction(rawValue: $0.lowercased()) },
            rawAction: rawAction,
            sessionId: text(payload["sessionId"]),
            callType: callTypeText.contains("video") ? .video : .audio,
            callerUid: text(payload["sender"]) ?? text(payload["senderUid"]),
            callerName: text(payload["senderName"]),
            callerAvatar: text(payload["senderAvatar"]).flatMap(url),
            receiver: text(payload["receiver"]),
            isGroup: receiverType == "group" || conversationId?.hasPrefix("group_") == true)
    }

    /// A non-blank string from a string or a number.
    static func text(_ value: Any?) -> String? {
        let raw: String
        switch value {
        case let string as String: raw = string
        case let number as NSNumber: raw = number.stringValue
        case let int as Int: raw = String(int)
        case let double as Double: raw = String(double)
        default: return nil
        }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func url(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            return nil
        }
        return url
    }
}
