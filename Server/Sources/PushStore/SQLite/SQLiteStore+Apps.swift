#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SQLiteStore {
    public func createApp(_ app: AppRecord) throws {
        try withConnection {
            try $0.run(
                """
                INSERT INTO apps (id, name, webhook_url, webhook_secret, created_at, default_apns_provider_id, default_fcm_provider_id,
                    privacy, private_placeholder, private_call_placeholder, delivery_policy, badge, localization, hold_seconds)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(app.id), .text(app.name), .optionalText(app.webhookURL), app.sealedWebhookSecret.map(SQLValue.blob) ?? .null,
                    .date(app.createdAt), .optionalText(app.defaultAPNsProviderId), .optionalText(app.defaultFCMProviderId),
                    .text(app.privacy.rawValue), .optionalText(app.privatePlaceholder), .optionalText(app.privateCallPlaceholder),
                    .optionalText(app.deliveryPolicy.storedText), .text(app.badge.rawValue), .optionalText(app.localization.storedText),
                    .int(Int64(app.holdWhileActiveSeconds)),
                ])
        }
    }

    public func updateApp(_ app: AppRecord) throws {
        let changed = try withConnection {
            try $0.run(
                """
                UPDATE apps SET name = ?, webhook_url = ?, webhook_secret = ?, privacy = ?, private_placeholder = ?,
                    private_call_placeholder = ?, delivery_policy = ?, badge = ?, localization = ?, hold_seconds = ?
                WHERE id = ?
                """,
                [
                    .text(app.name), .optionalText(app.webhookURL), app.sealedWebhookSecret.map(SQLValue.blob) ?? .null,
                    .text(app.privacy.rawValue), .optionalText(app.privatePlaceholder), .optionalText(app.privateCallPlaceholder),
                    .optionalText(app.deliveryPolicy.storedText), .text(app.badge.rawValue), .optionalText(app.localization.storedText),
                    .int(Int64(app.holdWhileActiveSeconds)), .text(app.id),
                ])
        }
        if changed == 0 { throw StoreError.notFound }
    }

    public func setDefaultProvider(appId: String, kind: ProviderRecord.Kind, providerId: String?) throws -> Bool {
        let column = Self.defaultProviderColumn(kind)
        return try withConnection { connection in
            try connection.transaction {
                let exists = try connection.query("SELECT 1 FROM apps WHERE id = ?", [.text(appId)]) { $0.int(0) }.first != nil
                guard exists else { throw StoreError.notFound }
                return try connection.run(
                    """
                    UPDATE apps SET \(column) = ? WHERE id = ? AND (? IS NULL
                        OR EXISTS (SELECT 1 FROM providers WHERE app_id = ? AND id = ? AND kind = ?))
                    """,
                    [
                        .optionalText(providerId), .text(appId), .optionalText(providerId), .text(appId), .optionalText(providerId),
                        .text(kind.rawValue),
                    ]) > 0
            }
        }
    }

    /// The `apps` column of the default provider of a kind.
    static func defaultProviderColumn(_ kind: ProviderRecord.Kind) -> String {
        kind == .apns ? "default_apns_provider_id" : "default_fcm_provider_id"
    }

    /// The columns of an ``AppRecord``, in ``appRow(_:)``'s order (both stores select them so).
    static let appColumns = """
        id, name, webhook_url, webhook_secret, created_at, default_apns_provider_id, default_fcm_provider_id, privacy,
            private_placeholder, private_call_placeholder, delivery_policy, badge, localization, hold_seconds
        """

    /// An app from its row. An unknown `privacy` (a later version's mode) reads as `private`:
    /// never sends in clear what was meant to be sealed.
    static func appRow(_ row: some StoredRow) -> AppRecord {
        AppRecord(
            id: row.text(0), name: row.text(1), webhookURL: row.optionalText(2), sealedWebhookSecret: row.optionalBlob(3),
            createdAt: row.date(4), defaultAPNsProviderId: row.optionalText(5), defaultFCMProviderId: row.optionalText(6),
            privacy: AppPrivacy(rawValue: row.text(7)) ?? .private, privatePlaceholder: row.optionalText(8),
            privateCallPlaceholder: row.optionalText(9), deliveryPolicy: DeliveryPolicy(storedText: row.optionalText(10)),
            badge: AppBadge(rawValue: row.text(11)) ?? .caller, localization: AppLocalization(storedText: row.optionalText(12)),
            holdWhileActiveSeconds: Int(row.int(13)))
    }

    public func app(id: String) throws -> AppRecord? {
        try selectApps("WHERE id = ?", [.text(id)]).first
    }

    public func apps() throws -> [AppRecord] {
        try selectApps("ORDER BY id", [])
    }

    public func deleteApp(id: String) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                // Its queued webhook events go too: with no app they could never be delivered.
                for table in ["push_tokens", "idempotency", "calls", "auth_tokens", "webhook_jobs"] {
                    try connection.run("DELETE FROM \(table) WHERE app_id = ?", [.text(id)])
                }
                return try connection.run("DELETE FROM apps WHERE id = ?", [.text(id)]) > 0
            }
        }
    }

    private func selectApps(_ clause: String, _ values: [SQLValue]) throws -> [AppRecord] {
        try withConnection {
            try $0.query(
                "SELECT \(Self.appColumns) FROM apps \(clause)", values, Self.appRow)
        }
    }
}
