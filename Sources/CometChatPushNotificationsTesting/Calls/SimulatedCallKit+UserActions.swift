import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// What the user does on the system call screen. Each action runs on the provider queue, as
/// CallKit's delegate callbacks do; `await device.settle()` afterwards.
extension SimulatedCallKit {
    /// Taps Answer on the call with `uuid` (default: the newest ringing call). When the SDK
    /// fulfils the action, CallKit activates the audio session.
    public func answer(_ uuid: UUID? = nil) {
        guard let uuid = uuid ?? ringingCalls.last, let actions = state.withLock({ $0.actions }) else { return }
        queue.async { [self] in
            let configuredBefore = audioConfigurations.count
            actions.answer(uuid) { [self] fulfilled in
                guard fulfilled else {
                    end(uuid, as: "answerFailed", missed: false)
                    return
                }
                if audioConfigurations.count == configuredBefore {
                    recordViolation("rule 12: the answer action was fulfilled before the audio session was configured")
                }
                state.withLock {
                    $0.calls[uuid]?.state = .active
                    $0.calls[uuid]?.answered = true
                    $0.audioActive = true
                }
                queue.async { actions.audioActivated() }
            }
        }
    }

    /// Taps Decline on a ringing call (default: the newest).
    public func decline(_ uuid: UUID? = nil) {
        guard let uuid = uuid ?? ringingCalls.last else { return }
        queue.async { [self] in performEnd(uuid) }
    }

    /// Taps End on an answered call (default: the newest).
    public func hangUp(_ uuid: UUID? = nil) {
        guard let uuid = uuid ?? activeCalls.last else { return }
        queue.async { [self] in performEnd(uuid) }
    }

    /// Taps Mute or Unmute.
    public func setMuted(_ muted: Bool, _ uuid: UUID? = nil) {
        guard let uuid = uuid ?? activeCalls.last, let actions = state.withLock({ $0.actions }) else { return }
        queue.async { [self] in
            if actions.setMuted(uuid, muted) { state.withLock { $0.calls[uuid]?.muted = muted } }
        }
    }

    /// Whether the call with `uuid` is muted.
    public func isMuted(_ uuid: UUID) -> Bool { state.withLock { $0.calls[uuid]?.muted ?? false } }

    /// Waits until the provider queue has run everything queued so far.
    public func drain() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }
}
