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
/// the job's provider credentials, and maps every answer to a `JobOutcome`.
public final class DeliverySender: PushSender {
    private let clients: ProviderClients
    private let book = ProviderHealthBook()
    private let mapping: OutcomeMapping
    private let lastRegistration: @Sendable (_ appId: String, _ token: String) -> Date?
    private let now: @Sendable () -> Date

    /// Creates a sender.
    /// - Parameters:
    ///   - directory: where provider credentials come from.
    ///   - configuration: hosts, CA, retry policy.
    ///   - lastRegistration: when a token was last registered (nil if unknown); a 410 older
    ///     than that leaves the token alone.
    ///   - now: the clock.
    public init(
        directory: any ProviderDirectory, configuration: DeliveryConfiguration = DeliveryConfiguration(),
        lastRegistration: @escaping @Sendable (_ appId: String, _ token: String) -> Date? = { _, _ in nil },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        clients = ProviderClients(directory: directory, configuration: configuration)
        mapping = OutcomeMapping(retry: configuration.retry)
        self.lastRegistration = lastRegistration
        self.now = now
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
        return health
    }

    private func deliver(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
        let credentials: ProviderCredentials?
        do {
            credentials = try clients.credentials(appId: job.appId, providerId: job.providerId, now: now())
        } catch {
            return completion(
                mapping.retry.retry(attempt: job.attempts, reason: "provider lookup failed", retryAfter: nil, now: now()))
        }
        switch (credentials, job.platform.isAPNs) {
        case (.apns(let apns), true):
            sendAPNs(job, credentials: apns, completion: completion)
        case (.fcm(let fcm), false):
            Task { completion(await sendFCM(job, credentials: fcm)) }
        case (nil, _):
            completion(.failed(reason: "provider \(job.providerId) not found"))
        default:
            completion(.failed(reason: "provider \(job.providerId) does not serve \(job.platform.rawValue) tokens"))
        }
    }

    /// Closes every provider connection.
    public func shutdown() { clients.shutdown() }

    private func sendAPNs(
        _ job: PushJob, credentials: APNsCredentials, completion: @escaping @Sendable (JobOutcome) -> Void
    ) {
        let client: APNsClient
        do {
            client = try clients.apnsClient(for: credentials)
        } catch {
            return completion(.failed(reason: "InvalidProviderToken (the .p8 key cannot be used)"))
        }
        let notification = APNsNotification(
            deviceToken: job.token, bundleID: credentials.bundleId + job.headers.topicSuffix,
            pushType: APNsNotification.PushType(rawValue: job.headers.pushType.rawValue) ?? .alert,
            priority: job.headers.priority, expiration: job.headers.expiration,
            collapseID: job.headers.collapseId, apnsID: Self.apnsID(forJob: job.id),
            payload: Array(job.payload))
        let mapping = self.mapping
        let lastRegistration = self.lastRegistration
        let now = self.now
        client.send(notification) { response in
            var registeredAt: Date?
            if case .answered(let answer) = response, answer.status == 410, answer.unregisteredAt != nil {
                // Rare (a dead token with a timestamp): one indexed read on the loop thread.
                registeredAt = lastRegistration(job.appId, job.token)
            }
            completion(mapping.outcome(for: response, attempt: job.attempts, registeredAt: registeredAt, now: now()))
        }
    }

    /// The `apns-id` of a job: the job id when it is a UUID (the service's ids are), else a
    /// UUID made from the SHA-256 of the id. Every attempt of a job carries the same one, so
    /// duplicates after a crash are identifiable at the receiver.
    public static func apnsID(forJob id: String) -> String {
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

    private func sendFCM(_ job: PushJob, credentials: FCMCredentials) async -> JobOutcome {
        guard job.headers.pushType != .voip else { return .failed(reason: "FCM cannot carry VoIP pushes") }
        let client: FCMClient
        do {
            client = try clients.fcmClient(for: credentials)
        } catch {
            return .failed(reason: "FCM service account key cannot be used")
        }
        var headers = [
            "apns-push-type": job.headers.pushType.rawValue, "apns-priority": String(job.headers.priority),
        ]
        if job.headers.expiration != 0 { headers["apns-expiration"] = String(job.headers.expiration) }
        if let collapse = job.headers.collapseId { headers["apns-collapse-id"] = collapse }
        let notify = job.kind == .call ? credentials.notificationForCall : credentials.notificationForChat
        guard
            let message = FCMMessage.make(
                token: job.token, payload: job.payload, apnsHeaders: headers, includeNotification: notify)
        else {
            return .failed(reason: "payload is not a JSON object")
        }
        let response = await client.send(message: message)
        return mapping.outcome(for: response, attempt: job.attempts, now: now())
    }
}
