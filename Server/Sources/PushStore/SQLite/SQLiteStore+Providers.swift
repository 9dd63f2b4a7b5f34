#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SQLiteStore {
    public func createProvider(_ provider: ProviderRecord) throws {
        let column = Self.defaultProviderColumn(provider.kind)
        try withConnection { connection in
            try connection.transaction {
                try connection.run(
                    "INSERT INTO providers (app_id, id, kind, settings, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(provider.appId), .text(provider.id), .text(provider.kind.rawValue), .blob(provider.settings),
                        .blob(provider.sealedSecret), .date(provider.createdAt), .date(provider.updatedAt),
                    ])
                // The app's first provider of the kind becomes its default, recorded: a second never changes it.
                try connection.run(
                    """
                    UPDATE apps SET \(column) = ? WHERE id = ? AND \(column) IS NULL
                        AND NOT EXISTS (SELECT 1 FROM providers WHERE app_id = ? AND kind = ? AND id <> ?)
                    """,
                    [.text(provider.id), .text(provider.appId), .text(provider.appId), .text(provider.kind.rawValue), .text(provider.id)])
            }
        }
    }

    public func updateProvider(_ provider: ProviderRecord) throws {
        let changed = try withConnection {
            try $0.run(
                "UPDATE providers SET kind = ?, settings = ?, secret = ?, updated_at = ?, last_delivered_at = NULL WHERE app_id = ? AND id = ?",
                [
                    .text(provider.kind.rawValue), .blob(provider.settings), .blob(provider.sealedSecret), .date(provider.updatedAt),
                    .text(provider.appId), .text(provider.id),
                ])
        }
        if changed == 0 { throw StoreError.notFound }
    }

    public func provider(appId: String, id: String) throws -> ProviderRecord? {
        try selectProviders("WHERE app_id = ? AND id = ?", [.text(appId), .text(id)]).first
    }

    public func providers(appId: String) throws -> [ProviderRecord] {
        try selectProviders("WHERE app_id = ? ORDER BY id", [.text(appId)])
    }

    public func deleteProvider(appId: String, id: String) throws -> Bool {
        try withConnection { connection in
            try connection.transaction {
                let deleted = try connection.run("DELETE FROM providers WHERE app_id = ? AND id = ?", [.text(appId), .text(id)]) > 0
                // The app has no default of the kind then (tokens without a provider id are refused
                // until one is set), rather than a default that names nothing.
                for kind in [ProviderRecord.Kind.apns, .fcm] {
                    let column = Self.defaultProviderColumn(kind)
                    try connection.run("UPDATE apps SET \(column) = NULL WHERE id = ? AND \(column) = ?", [.text(appId), .text(id)])
                }
                return deleted
            }
        }
    }

    private func selectProviders(_ clause: String, _ values: [SQLValue]) throws -> [ProviderRecord] {
        try withConnection {
            try $0.query("SELECT app_id, id, kind, settings, secret, created_at, updated_at FROM providers \(clause)", values) {
                ProviderRecord(
                    appId: $0.text(0), id: $0.text(1), kind: ProviderRecord.Kind(rawValue: $0.text(2)) ?? .apns,
                    settings: $0.blob(3), sealedSecret: $0.blob(4), createdAt: $0.date(5), updatedAt: $0.date(6))
            }
        }
    }
}
