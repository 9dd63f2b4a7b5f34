#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

/// The tables `push-server migrate-store` copies, in an order that satisfies foreign keys.
/// Each lists its columns in the order ``ServiceStore/exportRows(table:batchSize:_:)`` returns
/// them and ``ServiceStore/importRows(table:rows:)`` takes them; both stores keep the same
/// logical schema (times as milliseconds since 1970 in `int`, binary as `blob`).
public enum StoreTable: String, Sendable, CaseIterable {
    case apps, users, authTokens = "auth_tokens", providers, pushTokens = "push_tokens", idempotency
    case pushJobs = "push_jobs", webhookJobs = "webhook_jobs", calls, providerTokens = "provider_tokens"
    case pushPreferences = "push_preferences", pushMutes = "push_mutes", pushGroupLevels = "push_group_levels"
    case pushEvents = "push_events"
    case pushChanges = "push_changes", revokedPushTokens = "revoked_push_tokens"
    case unreadMessages = "unread_messages"
    case userActivity = "user_activity", heldPushes = "held_pushes"
    case pushGroups = "push_groups", pushGroupMembers = "push_group_members"
    case pushGroupSends = "push_group_sends", pushGroupSendMembers = "push_group_send_members"

    /// The columns, in row order.
    public var columns: [String] {
        switch self {
        case .apps:
            return [
                "id", "name", "webhook_url", "webhook_secret", "created_at", "default_apns_provider_id", "default_fcm_provider_id",
                "privacy", "private_placeholder", "private_call_placeholder", "delivery_policy", "badge",
                "localization", "hold_seconds",
            ]
        // (`users.tokens_at_most` is not copied: a bound the destination's registrations count again.)
        case .users: return ["app_id", "uid", "name", "avatar", "created_at", "changes_purged_through"]
        case .authTokens: return ["hash", "app_id", "uid", "hint", "created_at"]
        case .providers: return ["app_id", "id", "kind", "settings", "secret", "created_at", "updated_at", "last_delivered_at"]
        case .pushTokens:
            return [
                "app_id", "token", "uid", "platform", "provider_id", "timezone", "auth_token_hash", "auth_token_hint",
                "created_at", "updated_at", "seq", "environment", "delivered_at", "encryption_p256dh", "encryption_auth",
                "languages",
            ]
        case .idempotency: return ["app_id", "key", "request_hash", "response", "created_at"]
        case .pushJobs:
            return [
                "id", "app_id", "request_id", "uid", "token", "platform", "kind", "provider_id", "payload", "push_type",
                "priority", "expiration", "collapse_id", "topic_suffix", "state", "attempts", "not_before", "lease_until",
                "last_error", "created_at", "finished_at", "lease_owner", "environment", "rule", "private_plaintext", "trimmed",
                "interruption_level", "level_reason",
            ]
        case .webhookJobs:
            return [
                "id", "app_id", "event", "body", "state", "attempts", "not_before", "lease_until", "last_error", "created_at",
                "finished_at", "lease_owner",
            ]
        case .calls: return ["app_id", "session_id", "caller_uid", "details", "created_at", "recipients", "answered"]
        case .providerTokens: return ["team_id", "key_id", "sealed", "issued_at"]
        case .pushPreferences:
            return ["app_id", "uid", "quiet_start", "quiet_end", "quiet_include_calls", "timezone", "updated_at"]
        case .pushMutes: return ["app_id", "uid", "receiver_type", "receiver", "until", "created_at"]
        case .pushGroupLevels: return ["app_id", "uid", "guid", "level", "updated_at"]
        case .pushEvents: return ["app_id", "push_id", "request_id", "step", "at", "detail"]
        case .pushChanges:
            return [
                "seq", "app_id", "uid", "kind", "conversation_id", "message_id", "notification_id", "title", "body", "unread_count", "at",
                "created_at",
            ]
        case .revokedPushTokens: return ["app_id", "uid", "token", "platform", "provider_id", "environment", "revoked_at"]
        case .unreadMessages: return ["app_id", "uid", "conversation_id", "message_id", "created_at", "read_at"]
        case .userActivity: return ["app_id", "uid", "source", "conversation_id", "expires_at"]
        case .heldPushes: return ["app_id", "uid", "conversation_id", "job_id", "until"]
        case .pushGroups: return ["app_id", "guid", "created_at", "updated_at"]
        case .pushGroupMembers: return ["app_id", "guid", "uid", "added_at"]
        case .pushGroupSends:
            return [
                "id", "app_id", "guid", "request", "members", "done", "jobs", "cursor", "state", "lease_owner", "lease_until",
                "created_at", "finished_at", "last_error",
            ]
        case .pushGroupSendMembers: return ["send_id", "uid"]
        }
    }
}

/// One column's value in a row that ``StoreTable`` describes.
public enum StoreValue: Sendable, Hashable {
    case null
    case int(Int64)
    case text(String)
    case blob(Data)
}

/// What every ``ServiceStore`` adds for running several instances (the shared provider tokens
/// of ``ProviderTokenStore``, in PushCore) and for moving between stores.
public protocol SharedStore: ProviderTokenStore {
    /// Calls `body` with the table's rows, `batchSize` at a time, each row in ``StoreTable/columns`` order.
    func exportRows(table: StoreTable, batchSize: Int, _ body: ([[StoreValue]]) throws -> Void) throws

    /// Inserts rows (in ``StoreTable/columns`` order) in one transaction, as they are (no
    /// defaults applied, no constraint relaxed); throws ``StoreError/conflict`` on a duplicate key.
    func importRows(table: StoreTable, rows: [[StoreValue]]) throws

    /// Counts a table's rows.
    func rowCount(table: StoreTable) throws -> Int
}

/// Whole-table reads for tests and small installations, built on ``SharedStore/exportRows(table:batchSize:_:)``
/// so that every store has them.
extension SharedStore {
    /// Every push job, oldest first.
    public func allPushJobs() throws -> [PushJob] {
        let columns = StoreTable.pushJobs.columns
        func index(_ name: String) -> Int { columns.firstIndex(of: name)! }
        var jobs: [PushJob] = []
        try exportRows(table: .pushJobs, batchSize: 1_000) { rows in
            for row in rows {
                func text(_ name: String) -> String? {
                    if case .text(let value) = row[index(name)] { return value }
                    return nil
                }
                func int(_ name: String) -> Int64 {
                    if case .int(let value) = row[index(name)] { return value }
                    return 0
                }
                func date(_ name: String) -> Date { Date(timeIntervalSince1970: Double(int(name)) / 1000) }
                var payload = Data()
                if case .blob(let value) = row[index("payload")] { payload = value }
                var privatePush: PrivatePush?
                if case .blob(let value) = row[index("private_plaintext")] {
                    privatePush = PrivatePush(plaintext: value, trimmed: PrivatePushColumns.fields(text("trimmed")))
                }
                jobs.append(
                    PushJob(
                        id: text("id") ?? "", appId: text("app_id") ?? "", requestId: text("request_id") ?? "", uid: text("uid") ?? "",
                        token: text("token") ?? "", platform: text("platform").flatMap(TokenPlatform.init(rawValue:)) ?? .apnsDevice,
                        kind: text("kind").flatMap(PushKind.init(rawValue:)) ?? .chat, providerId: text("provider_id") ?? "",
                        payload: payload,
                        headers: PushHeaders(
                            pushType: text("push_type").flatMap(PushType.init(rawValue:)) ?? .alert,
                            priority: Int(int("priority")), expiration: int("expiration"), collapseId: text("collapse_id"),
                            topicSuffix: text("topic_suffix") ?? ""),
                        attempts: Int(int("attempts")), notBefore: date("not_before"), createdAt: date("created_at"),
                        environment: text("environment").flatMap(TokenEnvironment.init(rawValue:)), rule: text("rule"),
                        skipped: text("state") == "skipped", privatePush: privatePush, interruptionLevel: text("interruption_level"),
                        levelReason: text("level_reason")))
            }
        }
        return jobs.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Webhook jobs by state: waiting (including retries), leased, delivered.
    public func webhookJobCounts() throws -> (pending: Int, leased: Int, delivered: Int) {
        let state = StoreTable.webhookJobs.columns.firstIndex(of: "state")!
        var counts: [String: Int] = [:]
        try exportRows(table: .webhookJobs, batchSize: 1_000) { rows in
            for row in rows {
                if case .text(let value) = row[state] { counts[value, default: 0] += 1 }
            }
        }
        return (counts[JobState.pending] ?? 0, counts[JobState.leased] ?? 0, counts[JobState.delivered] ?? 0)
    }
}
