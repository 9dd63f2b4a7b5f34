#if canImport(PushKit) && canImport(CallKit) && canImport(AVFAudio) && !os(macOS)
import Foundation
@preconcurrency import AVFAudio

/// Microphone permission and the call's audio session, from AVFAudio.
struct AppleMicrophone: PNMicrophone, PNCallAudioSession {
    func permission() -> PNMicrophonePermission {
        if #available(iOS 17, *) {
            switch AVAudioApplication.shared.recordPermission {
            case .granted: return .granted
            case .denied: return .denied
            default: return .undetermined
            }
        } else {
            switch AVAudioSession.sharedInstance().recordPermission {
            case .granted: return .granted
            case .denied: return .denied
            default: return .undetermined
            }
        }
    }

    func requestPermission(_ completion: @escaping @Sendable (Bool) -> Void) {
        if #available(iOS 17, *) {
            AVAudioApplication.requestRecordPermission(completionHandler: completion)
        } else {
            AVAudioSession.sharedInstance().requestRecordPermission { granted in completion(granted) }
        }
    }

    /// Called when the call is answered, before the answer action is fulfilled: CallKit then
    /// activates the session with this category and mode (`provider(_:didActivate:)`).
    func configureForCall(video: Bool) {
        do {
            try AVAudioSession.sharedInstance().setCategory(.playAndRecord, mode: video ? .videoChat : .voiceChat, options: [])
        } catch {
            // The app's media session may configure it itself; nothing else to do here.
        }
    }
}
#endif
