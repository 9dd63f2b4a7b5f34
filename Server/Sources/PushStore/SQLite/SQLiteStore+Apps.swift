#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SQLiteStore {
    public func createApp(_ app: AppRecord) throws {
        try withConnection {
            try $0.run(
                "INSERT INTO apps (id, name, webhook_url, webhook_secret, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(app.id), .text(app.name), .optionalText(app.webhookURL), app.sealedWebhookSecret.map(SQLValue.blob) ?? .null,
                    .date(app.createdAt),
                ])
        }
    }

    public func updateApp(_ app: AppRecord) throws {
        let changed = try withConnection {
            try $0.run(
                "UPDATE apps SET name = ?, webhook_url = ?, webhook_secret = ? WHERE id = ?",
                [.text(app.name), .optionalText(app.webhookURL), app.sealedWebhookSecret.map(SQLValue.blob) ?? .null, .text(app.id)])
        }
        if changed == 0 { throw StoreError.notFound }
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
            try $0.query("SELECT id, name, webhook_url, webhook_secret, created_at FROM apps \(clause)", values) {
                AppRecord(
                    id: $0.text(0), name: $0.text(1), webhookURL: $0.optionalText(2), sealedWebhookSecret: $0.optionalBlob(3),
                    createdAt: $0.date(4))
            }
        }
    }
}
