#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

// What both stores share about the outbox's rows: the job states, how a job is read from its
// row, and what recording a delivery outcome does to the rows. Each store carries it out in its
// own SQL.

/// Job states in `push_jobs.state` and `webhook_jobs.state`.
enum JobState {
    static let pending = "pending"
    static let leased = "leased"
    static let delivered = "delivered"
    static let failed = "failed"
    static let expired = "expired"
    /// Skipped by a notification preference: never claimed, counted nowhere.
    static let skipped = "skipped"
}

extension OutboxCounts {
    /// Counts from (state, count) rows; a state may appear more than once (added up).
    init(byState rows: [(String, Int)]) {
        let counts = Dictionary(rows, uniquingKeysWith: +)
        self.init(
            pending: counts[JobState.pending] ?? 0, inFlight: counts[JobState.leased] ?? 0,
            delivered: counts[JobState.delivered] ?? 0, failed: counts[JobState.failed] ?? 0,
            expired: counts[JobState.expired] ?? 0)
    }
}

/// What recording one delivery outcome does to the stored rows: the one mapping from a
/// ``JobOutcome`` to row changes, which ``SQLiteStore`` and ``PostgresStore`` each only execute.
struct OutcomeRows: Equatable {
    /// How the job's row changes. Either way its lease ends.
    enum JobChange: Equatable {
        /// The job is finished: its state becomes `state` (a ``JobState``), `finished_at` the
        /// time of the outcome and `last_error` the reason (nil clears it).
        case finish(state: String, reason: String?)
        /// The job waits again: pending, due at `notBefore`, with the reason as `last_error`.
        case retry(notBefore: Date, reason: String)
    }

    /// The change to the job's row.
    let job: JobChange
    /// Whether the job's push token is deleted (for its app), so that no later send uses it.
    let deletesToken: Bool

    /// What a delivered job gets (nearly every outcome: the stores mark these in bulk).
    static let delivered = OutcomeRows(job: .finish(state: JobState.delivered, reason: nil), deletesToken: false)

    init(job: JobChange, deletesToken: Bool) {
        self.job = job
        self.deletesToken = deletesToken
    }

    /// The rows' changes for `outcome`.
    init(_ outcome: JobOutcome) {
        switch outcome {
        case .delivered: self = .delivered
        case .retry(let notBefore, let reason): self.init(job: .retry(notBefore: notBefore, reason: reason), deletesToken: false)
        case .failed(let reason): self.init(job: .finish(state: JobState.failed, reason: reason), deletesToken: false)
        case .expired(let reason): self.init(job: .finish(state: JobState.expired, reason: reason), deletesToken: false)
        case .tokenInvalid(let reason): self.init(job: .finish(state: JobState.failed, reason: reason), deletesToken: true)
        }
    }
}

/// A batch of outcomes as the stores record it: the delivered jobs together (each store ends
/// them with one statement, or one per chunk), every other job with its own ``OutcomeRows``.
struct OutcomeBatch {
    /// The ids of the jobs delivered, in the order given.
    private(set) var delivered: [String] = []
    /// The other jobs, in the order given, each with its rows' changes.
    private(set) var others: [(id: String, rows: OutcomeRows)] = []

    init(_ results: [(id: String, outcome: JobOutcome)]) {
        for (id, outcome) in results {
            let rows = OutcomeRows(outcome)
            if rows == .delivered {
                delivered.append(id)
            } else {
                others.append((id, rows))
            }
        }
    }
}

/// A result row as both stores read it: a column's value by its index (`SQLiteStatement` on a
/// row, `PGRow`).
protocol StoredRow {
    /// The column as text.
    func text(_ column: Int32) -> String
    /// The column as text; nil when it is NULL.
    func optionalText(_ column: Int32) -> String?
    /// The column as an integer.
    func int(_ column: Int32) -> Int64
    /// The column as a time (stored as milliseconds since 1970).
    func date(_ column: Int32) -> Date
    /// The column as bytes.
    func blob(_ column: Int32) -> Data
    /// The column as bytes; nil when it is NULL.
    func optionalBlob(_ column: Int32) -> Data?
}

extension SQLiteStatement: StoredRow {}
extension PGRow: StoredRow {}

extension PushJob {
    /// A job from its row, its columns in this order (both stores select them so): `id`,
    /// `app_id`, `request_id`, `uid`, `token`, `platform`, `kind`, `provider_id`, `payload`,
    /// `push_type`, `priority`, `expiration`, `collapse_id`, `topic_suffix`, `attempts`,
    /// `not_before`, `created_at`, `environment`, `rule`, `state`, `private_plaintext`, `trimmed`,
    /// `interruption_level`, `level_reason`.
    init(row: some StoredRow) {
        self.init(
            id: row.text(0), appId: row.text(1), requestId: row.text(2), uid: row.text(3), token: row.text(4),
            platform: TokenPlatform(rawValue: row.text(5)) ?? .apnsDevice, kind: PushKind(rawValue: row.text(6)) ?? .chat,
            providerId: row.text(7), payload: row.blob(8),
            headers: PushHeaders(
                pushType: PushType(rawValue: row.text(9)) ?? .alert, priority: Int(row.int(10)), expiration: row.int(11),
                collapseId: row.optionalText(12), topicSuffix: row.text(13)),
            attempts: Int(row.int(14)), notBefore: row.date(15), createdAt: row.date(16),
            environment: row.optionalText(17).flatMap(TokenEnvironment.init(rawValue:)), rule: row.optionalText(18),
            skipped: row.text(19) == JobState.skipped,
            privatePush: row.optionalBlob(20).map { PrivatePush(plaintext: $0, trimmed: PrivatePushColumns.fields(row.optionalText(21))) },
            interruptionLevel: row.optionalText(22), levelReason: row.optionalText(23))
    }
}

/// How a job's ``PrivatePush`` is kept in its row: `private_plaintext` (NULL for a standard
/// job) and `trimmed`, the removed fields comma-joined (NULL when none were; field names have
/// no commas).
enum PrivatePushColumns {
    /// `private_plaintext` of a job.
    static func plaintext(_ job: PushJob) -> Data? { job.privatePush?.plaintext }

    /// `trimmed` of a job.
    static func trimmed(_ job: PushJob) -> String? {
        guard let trimmed = job.privatePush?.trimmed, !trimmed.isEmpty else { return nil }
        return trimmed.joined(separator: ",")
    }

    /// The removed fields from a `trimmed` column.
    static func fields(_ column: String?) -> [String] {
        column.map { $0.split(separator: ",").map(String.init) } ?? []
    }
}
