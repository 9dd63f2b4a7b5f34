import APNs
import FCM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
import ServerSupport

/// The real `PushSender`: delivers jobs to APNs (HTTP/2, token auth) or FCM HTTP v1 with
/// the job's provider credentials; ``AnswerPolicy`` decides every job's `JobOutcome`.
public final class DeliverySender: PushSender {
    private let clients: ProviderClients
    private let book = ProviderHealthBook()
    private let policy: AnswerPolicy
    private let lastRegistration: @Sendable (_ appId: String, _ token: String) -> Date?
    private let tokenDelivered: @Sendable (_ appId: String, _ token: String) -> Bool
    private let now: @Sendable () -> Date
    /// The per-provider circuit breakers (consulted before any token is deleted).
    public let breakers: ProviderBreakers
    private let events: Events
    private let logger: Logger

    /// What the sender tells its owner: a token's environment found by a fallback send, a
    /// provider that answers again after being misconfigured.
    public struct Events: Sendable {
        /// A token without a known environment worked in `environment`: store it.
        public var learnedEnvironment: @Sendable (_ appId: String, _ token: String, _ environment: TokenEnvironment) -> Void
        /// A misconfigured provider answered 200 again: retry its waiting jobs now.
        public var providerRecovered: @Sendable (_ appId: String, _ providerId: String) -> Void

        /// Creates the hooks (all do nothing by default).
        public init(
            learnedEnvironment: @escaping @Sendable (String, String, TokenEnvironment) -> Void = { _, _, _ in },
            providerRecovered: @escaping @Sendable (String, String) -> Void = { _, _ in }
        ) {
            self.learnedEnvironment = learnedEnvironment
            self.providerRecovered = providerRecovered
        }
    }

    /// Creates a sender.
    /// - Parameters:
    ///   - directory: where provider credentials come from.
    ///   - configuration: hosts, CA, retry policy.
    ///   - lastRegistration: when a token was last registered (nil if unknown); a 410 older
    ///     than that leaves the token alone.
    ///   - tokenDelivered: whether a push to the token was ever delivered (the store keeps it);
    ///     asked only when a token is refused, and for probes while a breaker is open.
    ///   - lastDelivery: when the provider last delivered (the store keeps it), read once per
    ///     provider: a provider that delivered before a restart is not unknown after it.
    ///   - logger: where a provider's breaker opening (error) and closing (info) are told; never
    ///     a token or a secret.
    ///   - now: the clock.
    public init(
        directory: any ProviderDirectory, configuration: DeliveryConfiguration = DeliveryConfiguration(),
        lastRegistration: @escaping @Sendable (_ appId: String, _ token: String) -> Date? = { _, _ in nil },
        tokenDelivered: @escaping @Sendable (_ appId: String, _ token: String) -> Bool = { _, _ in false },
        lastDelivery: @escaping @Sendable (_ appId: String, _ providerId: String) -> Date? = { _, _ in nil },
        events: Events = Events(), logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        clients = ProviderClients(directory: directory, configuration: configuration)
        policy = AnswerPolicy(retry: configuration.retry)
        breakers = ProviderBreakers(settings: configuration.breaker, lastDelivery: lastDelivery)
        self.events = events
        self.logger = logger
        self.lastRegistration = lastRegistration
        self.tokenDelivered = tokenDelivered
        self.now = now
    }

    /// The provider was changed through the admin API: its credentials are read again, its
    /// breaker closes, and (through `Events.providerRecovered`) its waiting jobs are retried now.
    public func providerUpdated(appId: String, providerId: String) {
        clients.forget(appId: appId, providerId: providerId)
        let wasOpen = breakers.reset(appId: appId, providerId: providerId)
        if wasOpen { logger.info("delivery: provider \(appId)/\(providerId) was updated; retrying its waiting jobs") }
        events.providerRecovered(appId, providerId)
    }

    /// What the APNs provider token of each (team, key) did since this sender started: tokens
    /// signed here, taken from the store, failed store calls.
    public func providerTokenCounts() -> [ProviderTokenCounts] {
        clients.providerTokenCounts().map {
            ProviderTokenCounts(
                teamId: $0.teamId, keyId: $0.keyId, signed: $0.counts.signed, adopted: $0.counts.adopted,
                sharingFailures: $0.counts.sharingFailures)
        }
    }

    /// Requests in flight on the APNs connections.
    public var apnsInFlight: Int { clients.apnsInFlight }

    /// Sends the job to APNs or FCM and waits for the outcome.
    public func send(_ job: PushJob) async -> JobOutcome {
        await withCheckedContinuation { continuation in
            send(job) { continuation.resume(returning: $0) }
        }
    }

    /// Sends the job and calls `completion` with the outcome; APNs answers arrive on the
    /// connection's loop thread without a task per push.
    public func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
        let book = self.book
        let now = self.now
        deliver(job) { outcome in
            book.record(outcome, appId: job.appId, providerId: job.providerId, at: now())
            completion(outcome)
        }
    }

    /// What the sender knows about a provider: last success, last error, token, connections.
    public func providerHealth(appId: String, providerId: String) -> ProviderHealth {
        var health = book.health(appId: appId, providerId: providerId)
        clients.describe(appId: appId, providerId: providerId, into: &health)
        health.circuitBreaker = breakers.status(appId: appId, providerId: providerId).rawValue
        health.circuitBreakerReason = breakers.openReason(appId: appId, providerId: providerId)
        return health
    }

    private func deliver(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
        let credentials: ProviderCredentials?
        do {
            credentials = try clients.credentials(appId: job.appId, providerId: job.providerId, now: now())
        } catch {
            return completion(decide(.temporary(reason: "provider lookup failed"), job))
        }
        switch (credentials, job.platform.isAPNs) {
        case (.apns(let apns), true):
            sendAPNs(job, credentials: apns, completion: completion)
        case (.fcm(let fcm), false):
            Task { completion(await sendFCM(job, credentials: fcm)) }
        case (nil, _):
            completion(decide(.failed(reason: "provider \(job.providerId) not found"), job))
        default:
            completion(decide(.failed(reason: "provider \(job.providerId) does not serve \(job.platform.rawValue) tokens"), job))
        }
    }

    /// What the policy makes of something the sender found itself, for attempt `job.attempts` now.
    private func decide(_ meaning: AnswerPolicy.Meaning, _ job: PushJob, notBefore: Date? = nil) -> JobOutcome {
        policy.decide(meaning, AnswerPolicy.Context(attempt: job.attempts, now: now(), notBefore: notBefore))
    }

    /// Closes every provider connection.
    public func shutdown() { clients.shutdown() }

    private func sendAPNs(
        _ job: PushJob, credentials: APNsCredentials, completion: @escaping @Sendable (JobOutcome) -> Void
    ) {
        let tokenDelivered = self.tokenDelivered
        let admission = breakers.admit(
            appId: job.appId, providerId: job.providerId, uid: job.uid, tokenDelivered: { tokenDelivered(job.appId, job.token) }, at: now())
        guard admission.admitted else {
            // Misconfigured: the job waits (never fails) until a probe or an update fixes it.
            return completion(decide(.providerWrong(reason: admission.reason ?? ""), job, notBefore: admission.waitUntil))
        }
        let first = job.environment ?? (credentials.production ? .production : .sandbox)
        send(job, credentials: credentials, environment: first) { [self] response in
            // A token of unknown environment refused as BadDeviceToken is tried once on the
            // other one; where it works, that environment is stored for it.
            guard AnswerPolicy.triesOtherEnvironment(after: response, environmentKnown: job.environment != nil) else {
                return finishAPNs(job, response: response, completion: completion)
            }
            send(job, credentials: credentials, environment: first.other) { [self] second in
                if case .answered(let answer) = second, answer.status == 200 {
                    events.learnedEnvironment(job.appId, job.token, first.other)
                }
                finishAPNs(job, response: second, completion: completion)
            }
        }
    }

    private func send(
        _ job: PushJob, credentials: APNsCredentials, environment: TokenEnvironment,
        completion: @escaping @Sendable (APNsResponse) -> Void
    ) {
        var credentials = credentials
        credentials.production = environment == .production
        let client: APNsClient
        do {
            client = try clients.apnsClient(for: credentials)
        } catch {
            return completion(.answered(APNsAnswer(status: 403, reason: .invalidProviderToken)))
        }
        let notification = APNsNotification(
            deviceToken: job.token, bundleId: credentials.bundleId + job.headers.topicSuffix,
            pushType: job.headers.pushType,
            priority: job.headers.priority, expiration: job.headers.expiration,
            collapseId: job.headers.collapseId, apnsId: Self.apnsId(forJob: job.id),
            payload: Array(job.payload))
        client.send(notification, completion: completion)
    }

    /// Records the final answer with the provider's breaker and has the policy decide: a
    /// refused token is deleted only when the breaker's verdict says it is dead; answers that
    /// prove the provider wrong make the job wait.
    private func finishAPNs(_ job: PushJob, response: APNsResponse, completion: @escaping @Sendable (JobOutcome) -> Void) {
        let time = now()
        let meaning = AnswerPolicy.meaning(of: response)
        let answer = meaning.breakerAnswer
        // Whether the token delivered before: one indexed read, only for a refused token.
        var delivered = false
        if case .token = answer { delivered = tokenDelivered(job.appId, job.token) }
        switch breakers.record(answer, uid: job.uid, tokenDelivered: delivered, appId: job.appId, providerId: job.providerId, at: time) {
        case .opened(let reason):
            logger.error(
                "delivery: provider \(job.appId)/\(job.providerId) is misconfigured (\(reason)): its jobs wait and no token "
                    + "is deleted until it answers again or is updated")
        case .closed:
            logger.info("delivery: provider \(job.appId)/\(job.providerId) answers again; retrying its waiting jobs")
            events.providerRecovered(job.appId, job.providerId)
        case .known:
            logger.info("delivery: provider \(job.appId)/\(job.providerId) delivered; retrying the jobs that waited for it")
            events.providerRecovered(job.appId, job.providerId)
        case nil:
            break
        }
        var context = AnswerPolicy.Context(attempt: job.attempts, now: time)
        if case .tokenRefused(let reason, let unregisteredAt) = meaning {
            context.verdict = breakers.verdict(
                tokenDelivered: delivered, appId: job.appId, providerId: job.providerId, reason: reason, at: time)
            if unregisteredAt != nil, context.verdict == .dead {
                // Rare (a dead token with a timestamp): one indexed read on the loop thread.
                context.registeredAt = lastRegistration(job.appId, job.token)
            }
        }
        completion(policy.decide(meaning, context))
    }

    /// The `apns-id` of a job: the job id when it is a UUID (the service's ids are), else a
    /// UUID made from the SHA-256 of the id. Every attempt of a job carries the same one, so
    /// duplicates after a crash are identifiable at the receiver.
    public static func apnsId(forJob id: String) -> String {
        // The service's own ids are lowercase UUIDs: sent as they are (parsing and printing one
        // through `UUID` cost as much as the rest of a push's headers).
        if isLowercaseUUID(id) { return id }
        if let uuid = UUID(uuidString: id) { return uuid.uuidString.lowercased() }
        var bytes = Array(Crypto.sha256(Data(id.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 style: name-based (SHA)
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.hexString
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20),
        ]
        return parts.joined(separator: "-")
    }

    /// Whether `id` is a UUID in its lowercase text form (8-4-4-4-12 hex digits).
    static func isLowercaseUUID(_ id: String) -> Bool {
        let checked = id.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.count == 36 else { return false }
            for (index, byte) in bytes.enumerated() {
                switch index {
                case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
                default: guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
                }
            }
            return true
        }
        // A string without contiguous UTF-8 (bridged): the slow way.
        return checked ?? (UUID(uuidString: id)?.uuidString.lowercased() == id)
    }

    private func sendFCM(_ job: PushJob, credentials: FCMCredentials) async -> JobOutcome {
        guard job.headers.pushType != .voip else { return decide(.failed(reason: "FCM cannot carry VoIP pushes"), job) }
        let client: FCMClient
        do {
            client = try clients.fcmClient(for: credentials)
        } catch {
            return decide(.failed(reason: "FCM service account key cannot be used"), job)
        }
        var headers = [
            "apns-push-type": job.headers.pushType.rawValue, "apns-priority": String(job.headers.priority),
        ]
        if job.headers.expiration != 0 { headers["apns-expiration"] = String(job.headers.expiration) }
        if let collapse = job.headers.collapseId { headers["apns-collapse-id"] = collapse }
        let notify = job.kind == .call ? credentials.notificationForCall : credentials.notificationForChat
        guard
            let message = FCMMessage.make(
                token: job.token, payload: job.payload, apnsHeaders: headers, includeNotification: notify,
                sealed: job.privatePush != nil)
        else {
            return decide(.failed(reason: "payload is not a JSON object"), job)
        }
        let response = await client.send(message: message)
        return policy.decide(response, AnswerPolicy.Context(attempt: job.attempts, now: now()))
    }
}
