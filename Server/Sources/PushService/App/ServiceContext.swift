import Foundation
import PushCore
import PushStore

/// What every part of the running service shares.
final class ServiceContext: Sendable {
    let configuration: ServiceConfiguration
    let store: any ServiceStore
    let secrets: SecretBox
    let adminKey: String
    let logger: ServiceLogger
    let rateLimiter: RateLimiter
    let clock: @Sendable () -> Date

    init(
        configuration: ServiceConfiguration, store: any ServiceStore, secrets: SecretBox, adminKey: String, logger: ServiceLogger,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.store = store
        self.secrets = secrets
        self.adminKey = adminKey
        self.logger = logger
        self.rateLimiter = RateLimiter(perMinute: configuration.rateLimitPerMinute, burst: configuration.rateLimitBurst)
        self.clock = clock
    }

    var now: Date { clock() }

    /// A new random id for jobs, requests and messages.
    func newId() -> String {
        UUID().uuidString.lowercased()
    }
}
