import Foundation

/// Everything the Calls product needs from the world. The live value uses PushKit, CallKit and
/// AVFAudio; `CometChatPushNotificationsTesting` passes simulated ones through
/// `PNPlatform.productPorts[PNCallsPorts.self]`.
public struct PNCallsPorts: Sendable {
    /// PushKit, when the SDK owns the registry.
    public var pushKit: PNPushKitRegistry
    /// CallKit.
    public var callKit: PNCallKitProvider
    /// Microphone permission.
    public var microphone: PNMicrophone
    /// The call's audio session.
    public var audioSession: PNCallAudioSession
    /// Whether calls ring on this platform at all. `false` on a platform without PushKit and
    /// CallKit (Linux, a Mac), and on a simulated device whose calls are not enabled: the
    /// product then reports `.ready`, creates no registry, and only completes forwarded pushes.
    public var ringsCalls: Bool

    /// Creates the ports.
    public init(
        pushKit: PNPushKitRegistry, callKit: PNCallKitProvider, microphone: PNMicrophone,
        audioSession: PNCallAudioSession, ringsCalls: Bool = true
    ) {
        self.pushKit = pushKit
        self.callKit = callKit
        self.microphone = microphone
        self.audioSession = audioSession
        self.ringsCalls = ringsCalls
    }
}
