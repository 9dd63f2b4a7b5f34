import Foundation

// Ports of a platform where calls do not ring: no registry, no CallKit, no microphone.
// Forwarded pushes are still completed, so the caller of a completion is never left waiting.

/// No PushKit: no VoIP token, no VoIP push.
struct NoPushKitRegistry: PNPushKitRegistry {
    func start(_ events: PNPushKitEvents) {}
}

/// No CallKit: every report fails, so the product never waits for a call screen.
struct NoCallKitProvider: PNCallKitProvider {
    var isAvailable: Bool { false }
    func configure(_ configuration: PNCallKitConfiguration, actions: PNCallKitActions) {}
    func reportNewIncomingCall(_ report: PNIncomingCallReport, completion: @escaping @Sendable (PNCallReportError?) -> Void) {
        completion(.other("CallKit is not available on this platform."))
    }
    func reportCallEnded(_ uuid: UUID, at date: Date, reason: PNCallKitEndedReason) {}
    func requestEndCall(_ uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) { completion(false) }
    func showFallbackNotification(_ report: PNIncomingCallReport) {}
    func removeFallbackNotification(_ uuid: UUID) {}
}

/// No microphone: permission is never granted; there is no audio session to configure.
struct NoMicrophone: PNMicrophone, PNCallAudioSession {
    func permission() -> PNMicrophonePermission { .undetermined }
    func requestPermission(_ completion: @escaping @Sendable (Bool) -> Void) { completion(false) }
    func configureForCall(video: Bool) {}
}

extension PNCallsPorts {
    /// Ports that ring nothing: for platforms without PushKit and CallKit, and for simulated
    /// devices whose calls are not enabled.
    public static var inactive: PNCallsPorts {
        PNCallsPorts(
            pushKit: NoPushKitRegistry(), callKit: NoCallKitProvider(), microphone: NoMicrophone(),
            audioSession: NoMicrophone(), ringsCalls: false)
    }
}

#if !(canImport(PushKit) && canImport(CallKit) && canImport(AVFAudio) && !os(macOS))
extension PNCallsPorts {
    /// The live ports of this platform: calls do not ring here.
    public static var live: PNCallsPorts { .inactive }
}
#endif
