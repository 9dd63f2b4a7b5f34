import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// Provider health for operators (and the dashboard): each provider of the app with what the
/// delivery engine recorded about it. Secrets are never part of it: keys stay sealed.
extension AdminAPI {
    var healthRoutes: [Route] {
        [
            Route("GET", "admin/providers/health", .adminApp) { call in
                let status = service.deliveryStatus.withLock { $0 }
                let now = service.now
                let providers = try service.store.providers(appId: call.appId).map { record in
                    providerHealthJSON(record, health: status?.providerHealth(appId: call.appId, providerId: record.id), now: now)
                }
                return ["engine": service.configuration.sender.rawValue, "providers": providers] as [String: Any]
            }
        ]
    }

    func providerHealthJSON(_ record: ProviderRecord, health: ProviderHealth?, now: Date) -> [String: Any] {
        var value = providerJSON(record)
        if record.kind == .apns {
            value["environment"] = (value["production"] as? Bool ?? false) ? "production" : "sandbox"
        }
        value["key"] = "sealed"
        let health = health ?? ProviderHealth()
        func time(_ date: Date?) -> Any { date.map { Self.seconds($0) as Any } ?? JSONNull() }
        value["lastSuccessAt"] = time(health.lastSuccessAt)
        value["lastErrorAt"] = time(health.lastErrorAt)
        value["lastErrorReason"] = health.lastErrorReason ?? JSONNull()
        value["delivered"] = health.delivered
        value["failed"] = health.failed
        value["jwtIssuedAt"] = time(health.tokenIssuedAt)
        value["jwtAgeSeconds"] = health.tokenIssuedAt.map { max(0, Int(now.timeIntervalSince($0))) as Any } ?? JSONNull()
        value["connections"] = health.connections
        value["connectionsUp"] = health.connectionsUp
        value["inFlight"] = health.inFlight
        value["circuitBreaker"] = health.circuitBreaker ?? "n/a"
        value["circuitBreakerReason"] = health.circuitBreakerReason ?? JSONNull()
        return value
    }
}
