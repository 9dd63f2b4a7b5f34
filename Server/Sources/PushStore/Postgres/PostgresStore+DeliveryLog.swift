#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import ServerSupport

// What delivered: the delivery log of a send request, and each token's first and each
// provider's last delivery (for the circuit breakers).
extension PostgresStore {
    /// The delivery log of one send request: every job with its state and last error.
    public func pushJobLog(appId: String, requestId: String) throws -> [PushJobLogEntry] {
        try withConnection { connection in
            try connection.query(
                """
                SELECT id, uid, token, platform, kind, state, attempts, last_error, created_at, finished_at, rule,
                    interruption_level, level_reason
                FROM push_job_rows WHERE app_id = $1 AND request_id = $2 ORDER BY created_at, id
                """,
                [.text(appId), .text(requestId)]
            ).map { row in
                PushJobLogEntry(
                    id: row.text(0), uid: row.text(1), token: row.text(2),
                    platform: TokenPlatform(rawValue: row.text(3)) ?? .apnsDevice, kind: PushKind(rawValue: row.text(4)) ?? .chat,
                    state: row.text(5), attempts: Int(row.int(6)), lastError: row.optionalText(7), createdAt: row.date(8),
                    finishedAt: row.optionalDate(9), rule: row.optionalText(10),
                    interruptionLevel: row.optionalText(11), levelReason: row.optionalText(12))
            }
        }
    }

    public func recordDeliveries(tokens: [TokenRef], providers: [ProviderRef], at time: Date) throws {
        guard !tokens.isEmpty || !providers.isEmpty else { return }
        try withConnection { connection in
            // Two statements, each its own transaction: what they record only ever moves forward.
            if !tokens.isEmpty {
                try connection.query(
                    """
                    UPDATE push_tokens t SET delivered_at = $1 FROM unnest($2::text[], $3::text[]) AS u(app_id, token)
                    WHERE t.app_id = u.app_id AND t.token = u.token AND t.delivered_at IS NULL
                    """, [.date(time), .textArray(tokens.map(\.appId)), .textArray(tokens.map(\.token))])
            }
            if !providers.isEmpty {
                try connection.query(
                    """
                    UPDATE providers p SET last_delivered_at = $1 FROM unnest($2::text[], $3::text[]) AS u(app_id, id)
                    WHERE p.app_id = u.app_id AND p.id = u.id
                    """, [.date(time), .textArray(providers.map(\.appId)), .textArray(providers.map(\.providerId))])
            }
        }
    }

    public func tokenHasDelivered(appId: String, token: String) throws -> Bool {
        try withConnection {
            try $0.query(
                "SELECT delivered_at IS NOT NULL FROM push_tokens WHERE app_id = $1 AND token = $2", [.text(appId), .text(token)]
            ).first { $0.bool(0) } ?? false
        }
    }

    public func providerLastDelivered(appId: String, providerId: String) throws -> Date? {
        try withConnection {
            try $0.query(
                "SELECT last_delivered_at FROM providers WHERE app_id = $1 AND id = $2 AND last_delivered_at IS NOT NULL",
                [.text(appId), .text(providerId)]
            ).first { $0.date(0) }
        }
    }
}
