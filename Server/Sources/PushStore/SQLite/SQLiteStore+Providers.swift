#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SQLiteStore {
    public func createProvider(_ provider: ProviderRecord) throws {
        try withConnection {
            try $0.run(
                "INSERT INTO providers (app_id, id, kind, settings, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(provider.appId), .text(provider.id), .text(provider.kind.rawValue), .blob(provider.settings),
                    .blob(provider.sealedSecret), .date(provider.createdAt), .date(provider.updatedAt),
                ])
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
        try withConnection {
            try $0.run("DELETE FROM providers WHERE app_id = ? AND id = ?", [.text(appId), .text(id)]) > 0
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
