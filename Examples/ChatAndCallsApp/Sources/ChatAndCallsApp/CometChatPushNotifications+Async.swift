import CometChatPushNotificationsSwift

/// The SDK's completion-handler calls the screens use, as `async` functions.
extension CometChatPushNotifications {
    /// ``ensureRingReady(_:)``, awaited: the first thing that could silence a notification or a
    /// ring, or `.ready`.
    func ringReadiness() async -> PNResult<PNRingReadiness> {
        await withCheckedContinuation { continuation in
            ensureRingReady { continuation.resume(returning: $0) }
        }
    }

    /// ``unregisterTokens(completion:)``, awaited.
    func unregisterTokensAndWait() async -> PNResult<Void> {
        await withCheckedContinuation { continuation in
            unregisterTokens { continuation.resume(returning: $0) }
        }
    }

    /// ``clearSession(completion:)``, awaited.
    func clearSessionAndWait() async -> PNResult<Void> {
        await withCheckedContinuation { continuation in
            clearSession { continuation.resume(returning: $0) }
        }
    }
}
