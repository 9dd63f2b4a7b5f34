import Foundation
import CometChatPushNotificationsSwift

/// Shorthands on the shared instance, so a call site reads
/// `CometChatPushNotificationsCalls.decline(sessionId:)`.
@available(iOSApplicationExtension, unavailable)
extension CometChatPushNotificationsCalls {
    /// ``decline(sessionId:completion:)`` on ``shared``.
    public static func decline(sessionId: String, completion: (@Sendable (PNResult<Void>) -> Void)? = nil) {
        shared.decline(sessionId: sessionId, completion: completion)
    }

    /// ``declineAndWait(sessionId:)-swift.method`` on ``shared``.
    public static func declineAndWait(sessionId: String) async throws {
        try await shared.declineAndWait(sessionId: sessionId)
    }

    /// ``reportCallEnded(sessionId:reason:)-swift.method`` on ``shared``.
    public static func reportCallEnded(sessionId: String, reason: CallEndReason) {
        shared.reportCallEnded(sessionId: sessionId, reason: reason)
    }

    /// ``handleVoIPToken(_:)`` on ``shared``.
    public static func handleVoIPToken(_ token: Data) { shared.handleVoIPToken(token) }

    /// ``handleIncomingVoIPPush(_:completion:)`` on ``shared``.
    public static func handleIncomingVoIPPush(_ payload: [AnyHashable: Any], completion: @escaping () -> Void) {
        shared.handleIncomingVoIPPush(payload, completion: completion)
    }

    /// ``handleIncomingVoIPPush(_:mustReport:completion:)-swift.method`` on ``shared``.
    public static func handleIncomingVoIPPush(
        _ payload: [AnyHashable: Any], mustReport: Bool, completion: @escaping () -> Void
    ) {
        shared.handleIncomingVoIPPush(payload, mustReport: mustReport, completion: completion)
    }
}
