import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// What the user does on the system call screen. Each action runs on the provider queue, as
/// CallKit's delegate callbacks do; `await device.settle()` afterwards.
extension SimulatedCallKit {
    /// Taps Answer on the call with `uuid` (default: the newest ringing call). When the SDK
    /// fulfils the action, CallKit activates the audio session. While another answered call is
    /// not on hold iOS offers no plain Answer, so this does nothing then: use
    /// ``answerHoldingActive()`` or ``answerEndingActive()``.
    public func answer(_ uuid: UUID? = nil) {
        guard let uuid = uuid ?? ringingCalls.last, let actions = state.withLock({ $0.actions }) else { return }
        guard state.withLock({ s in !s.calls.values.contains { $0.state == .active && !$0.held } }) else { return }
        queue.async { [self] in performAnswer(uuid, actions) }
    }

    /// Taps Hold & Accept on a call waiting: CallKit holds the answered call, then answers the
    /// newest ringing one, each through its provider action. Returns `false`, doing nothing, when
    /// iOS would not offer the button: no answered call in progress, no call waiting, or a
    /// provider not configured for holding (``PNCallKitConfiguration/supportsHolding``: two call
    /// groups).
    @discardableResult
    public func answerHoldingActive() -> Bool {
        guard let (waiting, active, actions) = waitingChoice(), configuration?.supportsHolding == true else { return false }
        queue.async { [self] in
            performSetHeld(active, true, actions)
            performAnswer(waiting, actions)
        }
        return true
    }

    /// Taps End & Accept on a call waiting: CallKit ends the answered call, then answers the
    /// newest ringing one. Returns `false`, doing nothing, when there is no call waiting beside
    /// an answered one.
    @discardableResult
    public func answerEndingActive() -> Bool {
        guard let (waiting, active, actions) = waitingChoice() else { return false }
        queue.async { [self] in
            performEnd(active)
            performAnswer(waiting, actions)
        }
        return true
    }

    /// Taps Hold (`onHold` true) or Unhold on an answered call (default: the newest answered call
    /// that is not on hold, or the newest held one). Unholding while another answered call is not
    /// on hold swaps: that one is held first, as Swap does. Returns `false`, doing nothing, when
    /// the provider is not configured for holding or there is no such call.
    @discardableResult
    public func setHeld(_ onHold: Bool, _ uuid: UUID? = nil) -> Bool {
        guard configuration?.supportsHolding == true, let actions = state.withLock({ $0.actions }) else { return false }
        let target = uuid ?? (onHold ? activeCalls.filter { !isHeld($0) }.last : heldCalls.last)
        guard let target, activeCalls.contains(target) else { return false }
        let others = onHold ? [] : activeCalls.filter { $0 != target && !isHeld($0) }
        queue.async { [self] in
            for other in others { performSetHeld(other, true, actions) }
            performSetHeld(target, onHold, actions)
        }
        return true
    }

    /// The newest ringing call, the answered call not on hold beside it, and the actions.
    private func waitingChoice() -> (UUID, UUID, PNCallKitActions)? {
        guard let waiting = ringingCalls.last, let active = activeCalls.filter({ !isHeld($0) }).last,
            let actions = state.withLock({ $0.actions })
        else { return nil }
        return (waiting, active, actions)
    }

    /// Runs the answer action on the provider queue. A session already active (another call
    /// holds it) needs no configuring and is not activated again.
    private func performAnswer(_ uuid: UUID, _ actions: PNCallKitActions) {
        let configuredBefore = audioConfigurations.count
        let audioWasActive = audioActive
        actions.answer(uuid) { [self] fulfilled in
            guard fulfilled else {
                end(uuid, as: "answerFailed", missed: false)
                return
            }
            if !audioWasActive, audioConfigurations.count == configuredBefore {
                recordViolation("rule 12: the answer action was fulfilled before the audio session was configured")
            }
            let activate = state.withLock { s -> Bool in
                s.calls[uuid]?.state = .active
                s.calls[uuid]?.answered = true
                defer { s.audioActive = true }
                return !s.audioActive
            }
            if activate { queue.async { actions.audioActivated() } }
        }
    }

    /// Runs the set-held action; a fulfilled one holds or resumes the call.
    private func performSetHeld(_ uuid: UUID, _ onHold: Bool, _ actions: PNCallKitActions) {
        if actions.setHeld(uuid, onHold) { state.withLock { $0.calls[uuid]?.held = onHold } }
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
