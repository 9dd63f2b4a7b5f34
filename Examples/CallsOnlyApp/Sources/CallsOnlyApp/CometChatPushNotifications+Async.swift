import CometChatPushNotificationsSwift

/// The SDK's completion-handler calls the screens use, as `async` functions.
extension CometChatPushNotifications {
    /// ``ensureRingReady(_:)``, awaited: the first thing that could silence a ring, or `.ready`.
    func ringReadiness() async -> PNResult<PNRingReadiness> {
        await withCheckedContinuation { continuation in
            ensureRingReady { continuation.resume(returning: $0) }
        }
    }

    /// ``clearSession(completion:)``, awaited: this user's tokens are unregistered first, then the
    /// session ends (a ringing call ends too).
    func signOut() async -> PNResult<Void> {
        await withCheckedContinuation { continuation in
            clearSession { continuation.resume(returning: $0) }
        }
    }
}
