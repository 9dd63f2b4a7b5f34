#if canImport(PushKit) && canImport(CallKit) && canImport(AVFAudio) && !os(macOS)
import Foundation
@preconcurrency import PushKit

/// `PKPushRegistry` behind ``PNPushKitRegistry``: converts and forwards, nothing more.
final class ApplePushKitRegistry: NSObject, PNPushKitRegistry, PKPushRegistryDelegate, @unchecked Sendable {
    // @unchecked: `registry` and `events` are written in `start`, during `initialize` on the main
    // queue, which is also PushKit's queue: no delegate callback runs at the same time.
    private var registry: PKPushRegistry?
    private var events: PNPushKitEvents?

    func start(_ events: PNPushKitEvents) {
        self.events = events
        let registry = self.registry ?? PKPushRegistry(queue: .main)
        if self.registry == nil {
            self.registry = registry
            registry.delegate = self
            registry.desiredPushTypes = [.voIP]
        }
        if let token = registry.pushToken(for: .voIP) { events.tokenUpdated(token) }
    }

    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        guard type == .voIP else { return }
        events?.tokenUpdated(pushCredentials.token)
    }

    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {
        guard type == .voIP else { return }
        events?.tokenInvalidated()
    }

    @objc(pushRegistry:didReceiveIncomingPushWithPayload:forType:withCompletionHandler:)
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping () -> Void
    ) {
        let done = ApplePushCompletion(completion)
        guard type == .voIP, let events else { return completion() }
        events.pushReceived(PNVoIPPush(payload: payload.dictionaryPayload)) { done.call() }
    }

    /// iOS 26.4 and later call this instead of the method above (once per push) and say whether
    /// the push must be reported to CallKit; earlier systems call only the method above.
    @available(iOS 26.4, *)
    @objc(pushRegistry:didReceiveIncomingVoIPPushWithPayload:metadata:withCompletionHandler:)
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingVoIPPushWith payload: PKPushPayload, metadata: PKVoIPPushMetadata,
        withCompletionHandler completion: @escaping () -> Void
    ) {
        let done = ApplePushCompletion(completion)
        guard let events else { return completion() }
        events.pushReceived(PNVoIPPush(payload: payload.dictionaryPayload, mustReport: metadata.mustReport)) { done.call() }
    }
}

/// PushKit's completion, carried to CallKit's report completion.
private struct ApplePushCompletion: @unchecked Sendable {
    // @unchecked: PushKit accepts its completion from any thread; it is called once.
    let call: () -> Void
    init(_ call: @escaping () -> Void) { self.call = call }
}
#endif
