#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What happened to a job a ``PushSender`` tried to deliver.
public enum JobOutcome: Sendable, Hashable {
    /// The provider accepted the push (APNs 200, FCM 200). The job is done.
    case delivered
    /// A temporary failure (429, 5xx, transport error): claim the job again at `notBefore`.
    case retry(notBefore: Date, reason: String)
    /// A permanent failure that is not about the token (413, bad topic, missing provider…).
    /// The job is kept as failed and never retried.
    case failed(reason: String)
    /// The token is gone (APNs 410 `Unregistered`, `BadDeviceToken`,
    /// `DeviceTokenNotForTopic`; FCM `UNREGISTERED`): the job fails and the store deletes
    /// the token so no later send uses it.
    case tokenInvalid(reason: String)
    /// The push's moment passed before it could be sent: an alert past its `apns-expiration`,
    /// a call push past its ring deadline. It is recorded as expired and never sent.
    case expired(reason: String)

    /// The start of the reason of a job that waits for its provider to be fixed (a
    /// ``retry(notBefore:reason:)`` that never gives up).
    public static let waitingPrefix = "provider misconfigured"
}
