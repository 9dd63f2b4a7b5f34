#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// Users with a push token each, put straight into a store (issue 31's group sends need tens of
/// thousands; registering them through the API would take minutes).
public enum ImportedUsers {
    /// Adds users `uids` to `appId`, each with one APNs device token `tok-<uid>` of provider
    /// `providerId`, 5,000 per transaction (``SharedStore/importRows(table:rows:)``).
    public static func add(_ store: any ServiceStore, appId: String, uids: [String], providerId: String) throws {
        let now = StoreValue.int(Int64(Date().timeIntervalSince1970 * 1000))
        for start in stride(from: 0, to: uids.count, by: 5_000) {
            let chunk = uids[start..<min(start + 5_000, uids.count)]
            try store.importRows(table: .users, rows: chunk.map { [.text(appId), .text($0), .text($0), .null, now, .null] })
            try store.importRows(
                table: .pushTokens,
                rows: chunk.enumerated().map { index, uid in
                    [
                        .text(appId), .text("tok-" + uid), .text(uid), .text(TokenPlatform.apnsDevice.rawValue), .text(providerId), .null,
                        .blob(Data([1])), .text("h"), now, now, .int(Int64(1_000_000 + start + index)), .null, .null, .null, .null, .null,
                    ]
                })
        }
    }
}
