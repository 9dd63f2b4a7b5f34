import Foundation

/// The app's permission to record audio (`AVAudioApplication.recordPermission`).
public enum PNMicrophonePermission: String, Sendable, Equatable {
    /// The user has not been asked.
    case undetermined
    /// The user said no: an answered call has no audio.
    case denied
    /// The user said yes.
    case granted
}

/// Microphone permission (AVFAudio on iOS).
public protocol PNMicrophone: Sendable {
    /// The current permission.
    func permission() -> PNMicrophonePermission
    /// Shows the prompt if the user has not been asked, and reports whether recording is allowed.
    func requestPermission(_ completion: @escaping @Sendable (Bool) -> Void)
}

/// The audio session of a call (`AVAudioSession` on iOS).
public protocol PNCallAudioSession: Sendable {
    /// Sets the category and mode for a call. The SDK calls it when the user answered, before
    /// it fulfils CallKit's answer action (and so before CallKit activates the session); audio
    /// starts only once CallKit has activated it (rule 12).
    func configureForCall(video: Bool)
}
