#if canImport(PushKit) && canImport(CallKit) && canImport(AVFAudio) && !os(macOS)
import Foundation

extension PNCallsPorts {
    /// PushKit, CallKit and AVFAudio. One CallKit provider per process, as Apple asks.
    public static var live: PNCallsPorts { AppleCallsPortsStore.ports }
}

private enum AppleCallsPortsStore {
    static let ports = PNCallsPorts(
        pushKit: ApplePushKitRegistry(), callKit: AppleCallKitProvider(), microphone: AppleMicrophone(),
        audioSession: AppleMicrophone())
}
#endif
