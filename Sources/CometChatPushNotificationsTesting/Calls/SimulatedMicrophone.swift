import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// Microphone permission on the simulated device (rule 25): the prompt shows once.
public final class SimulatedMicrophone: PNMicrophone, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    struct State {
        var permission: PNMicrophonePermission = .undetermined
        var answer = true
        var prompts = 0
    }
    let state = PNLocked(State())

    init() {}

    /// The current permission; tests may set it.
    public var current: PNMicrophonePermission {
        get { state.withLock { $0.permission } }
        set { state.withLock { $0.permission = newValue } }
    }
    /// What the user answers when the prompt shows.
    public var userAnswer: Bool {
        get { state.withLock { $0.answer } }
        set { state.withLock { $0.answer = newValue } }
    }
    /// How many times the prompt showed.
    public var prompts: Int { state.withLock { $0.prompts } }

    /// The current permission.
    public func permission() -> PNMicrophonePermission { current }

    /// Shows the prompt while undetermined.
    public func requestPermission(_ completion: @escaping @Sendable (Bool) -> Void) {
        let granted = state.withLock { s -> Bool in
            if s.permission == .undetermined {
                s.prompts += 1
                s.permission = s.answer ? .granted : .denied
            }
            return s.permission == .granted
        }
        completion(granted)
    }
}
