import APNs
import FCM
import Foundation
import PushCore

/// The real `PushSender`: delivers jobs to APNs (HTTP/2, token auth) or FCM HTTP v1 with
/// the job's provider credentials, and maps every answer to a `JobOutcome`.
public final class DeliverySender: PushSender {
    private let clients: ProviderClients
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

    /// Sends the job and reports the outcome.
    public func send(_ job: PushJob) async -> JobOutcome {
        let credentials: ProviderCredentials?
        do {
            credentials = try clients.credentials(appId: job.appId, providerId: job.providerId, now: now())
        } catch {
            return mapping.retry.retry(attempt: job.attempts, reason: "provider lookup failed", retryAfter: nil, now: now())
        }
        switch (credentials, job.platform.isAPNs) {
        case (.apns(let apns), true):
            return await sendAPNs(job, credentials: apns)
        case (.fcm(let fcm), false):
            return await sendFCM(job, credentials: fcm)
        case (nil, _):
            return .failed(reason: "provider \(job.providerId) not found")
        default:
            return .failed(reason: "provider \(job.providerId) does not serve \(job.platform.rawValue) tokens")
        }
    }

    /// Closes every provider connection.
    public func shutdown() { clients.shutdown() }

    private func sendAPNs(_ job: PushJob, credentials: APNsCredentials) async -> JobOutcome {
        let client: APNsClient
        do {
            client = try clients.apnsClient(for: credentials)
        } catch {
            return .failed(reason: "InvalidProviderToken (the .p8 key cannot be used)")
        }
        let notification = APNsNotification(
            deviceToken: job.token, bundleID: credentials.bundleId + job.headers.topicSuffix,
            pushType: APNsNotification.PushType(rawValue: job.headers.pushType.rawValue) ?? .alert,
            priority: job.headers.priority, expiration: job.headers.expiration,
            collapseID: job.headers.collapseId, apnsID: UUID(uuidString: job.id).map { $0.uuidString.lowercased() },
            payload: Array(job.payload))
        let response = await client.send(notification)
        var registeredAt: Date?
        if case .answered(let answer) = response, answer.status == 410, answer.unregisteredAt != nil {
            registeredAt = lastRegistration(job.appId, job.token)
        }
        return mapping.outcome(for: response, attempt: job.attempts, registeredAt: registeredAt, now: now())
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
