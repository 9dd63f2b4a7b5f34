#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import Synchronization

/// The last success and the last error of every provider the sender used, by app and
/// provider id. Updated once per attempt; read by the admin API.
final class ProviderHealthBook: Sendable {
    struct Key: Hashable {
        let appId: String
        let providerId: String
    }

    private let entries = Mutex<[Key: ProviderHealth]>([:])

    /// Records the outcome of one attempt for the job's provider.
    func record(_ outcome: JobOutcome, appId: String, providerId: String, at time: Date) {
        entries.withLock { entries in
            let key = Key(appId: appId, providerId: providerId)
            var health = entries[key] ?? ProviderHealth()
            switch outcome {
            case .delivered:
                health.lastSuccessAt = time
                health.delivered += 1
            case .expired:
                return
            case .retry(_, let reason), .failed(let reason), .tokenInvalid(let reason):
                health.lastErrorAt = time
                health.lastErrorReason = String(reason.prefix(200))
                health.failed += 1
            }
            entries[key] = health
        }
    }

    /// What was recorded for a provider (empty when nothing was).
    func health(appId: String, providerId: String) -> ProviderHealth {
        entries.withLock { $0[Key(appId: appId, providerId: providerId)] } ?? ProviderHealth()
    }
}
