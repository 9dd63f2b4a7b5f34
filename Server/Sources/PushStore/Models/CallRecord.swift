#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A call the service pushed (`callAction: initiated`), kept so a decline can reach the caller.
public struct CallRecord: Sendable, Hashable {
    /// The app.
    public var appId: String
    /// The call session id.
    public var sessionId: String
    /// The caller's uid.
    public var callerUid: String
    /// The call as JSON (parties, names, call type), for building the caller's push.
    public var details: Data
    /// Creation time.
    public var createdAt: Date
    /// The uids the call was pushed to (for a group call, the uids the send targeted): only
    /// they may answer it with `PUT /calls/{sessionId}`. Empty for a call recorded before
    /// schema 9, which nobody may answer.
    public var recipients: [String]

    /// Creates a record.
    public init(appId: String, sessionId: String, callerUid: String, details: Data, createdAt: Date, recipients: [String] = []) {
        self.appId = appId
        self.sessionId = sessionId
        self.callerUid = callerUid
        self.details = details
        self.createdAt = createdAt
        self.recipients = recipients
    }

    /// The uids of a `recipients` column: each followed by a newline, after a leading one
    /// (`"\nbob\ncarol\n"`), so a store finds a uid with one substring search (uids never
    /// hold control characters).
    public static func encode(uids: [String]) -> String {
        "\n" + uids.map { $0 + "\n" }.joined()
    }

    /// The uids of a `recipients` column (none for NULL).
    public static func decode(uids text: String?) -> [String] {
        (text ?? "").split(separator: "\n").map(String.init)
    }
}

/// What `PUT /calls/{sessionId}` by one user did (``ServiceStore/recordCallAnswer(appId:sessionId:uid:)``).
public enum CallAnswer: Sendable, Hashable {
    /// The user's first answer to the call: push and notify.
    case first(CallRecord)
    /// The user answered the call before: nothing more is sent.
    case repeated
    /// The user is not a recipient of the call, or no call has this id.
    case notRecipient
}
