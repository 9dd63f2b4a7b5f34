import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension CallEngine {
    /// `initialize(config:)` installed the product: configure CallKit, create the PushKit
    /// registry (synchronously, so it exists by the end of launch) and ask for the microphone.
    func install(_ config: PNConfiguration) {
        let first = state.withLock { s -> Bool in
            let first = !s.configured
            s.configured = true
            s.ownership = config.pushKitOwnership
            s.callKitAvailability = config.callKitAvailability
            return first
        }
        guard ports.ringsCalls else {
            logger.log(.info, "Calls do not ring on this platform; the Calls product is idle.")
            return
        }
        guard callKitUsable else {
            // Rule 13: iOS kills an app that does not report a VoIP push to CallKit, even where
            // CallKit may not be used. So no VoIP registration at all: the service sends such a
            // user's calls as alert pushes.
            logger.log(
                .warning,
                config.callKitAvailability == .unavailable
                    ? "callKitAvailability is unavailable: not registering for VoIP pushes; calls arrive as notifications."
                    : "CallKit is unavailable in this region: not registering for VoIP pushes; calls arrive as notifications.")
            if first { voipTokenInvalidated() }
            if config.requestCallPermissions, ports.microphone.permission() == .undetermined { requestMicrophone(nil) }
            return
        }
        let branding = config.callKit
        if let name = branding.name, !name.isEmpty {
            logger.log(
                .warning,
                "CallKitBranding.name has no effect: since iOS 14 CallKit shows the app's display name (CFBundleDisplayName).")
        }
        ports.callKit.configure(
            PNCallKitConfiguration(
                iconTemplateImageName: branding.iconTemplateImageName, ringtone: branding.ringtone,
                includesCallsInRecents: branding.includeInRecents, supportsVideo: branding.supportsVideo),
            actions: makeActions())
        if first, config.pushKitOwnership == .sdk {
            ports.pushKit.start(
                PNPushKitEvents(
                    tokenUpdated: { [weak self] token in self?.voipTokenArrived(token) },
                    tokenInvalidated: { [weak self] in self?.voipTokenInvalidated() },
                    pushReceived: { [weak self] push, completion in
                        guard let self else { return completion() }
                        self.handlePush(push, completion: completion)
                    }))
        }
        if config.requestCallPermissions, ports.microphone.permission() == .undetermined {
            requestMicrophone(nil)
        }
    }

    /// Asks for the microphone; `completion` gets whether recording is allowed.
    func requestMicrophone(_ completion: (@Sendable (Bool) -> Void)?) {
        let sdk = self.sdk
        sdk?.beginWork()
        let queue = callbackQueue
        ports.microphone.requestPermission { granted in
            if let completion { queue.async { completion(granted) } }
            sdk?.endWork()
        }
    }

    /// PushKit issued a VoIP token: Core registers it (platform `.voip`) for the logged-in user.
    func voipTokenArrived(_ token: Data) {
        guard !token.isEmpty else { return }
        state.withLock { $0.voipTokenSeen = true }
        sdk?.submitProductToken(PNHex.string(token), platform: .voip)
    }

    /// PushKit invalidated the VoIP token: Core stops using it.
    func voipTokenInvalidated() {
        state.withLock { $0.voipTokenSeen = false }
        sdk?.invalidateProductToken(.voip)
    }

    /// The user logged out: a ringing call and an answered call both end as `.failed`, and
    /// later pushes are turned away until someone logs in.
    func sessionDidEnd() {
        let effects = state.withLock { s -> [CallEffect] in
            s.loggedOut = true
            s.outgoing.removeAll()
            return s.records.flatMap { finish(&s, $0, .failed, reportToCallKit: true) }
        }
        run(effects)
    }

    /// The first thing that would keep a call from ringing, or `.ready`.
    func readiness() -> PNRingReadiness {
        guard ports.ringsCalls else { return .ready }
        if !application.backgroundModes().contains("voip") { return .backgroundModeMissing }
        if callKitUsable, !state.withLock({ $0.voipTokenSeen }) { return .voipEntitlementMissing }
        if ports.microphone.permission() == .denied { return .microphoneDenied }
        return .ready
    }

    /// The ringing or answered call, without names or payload.
    func diagnostics() -> [String: Any] {
        let snapshot = state.withLock { s in (s.current, s.ownership, s.voipTokenSeen, s.outgoing.count, s.audioActive, s.waiting) }
        func describe(_ record: CallRecord?) -> Any {
            guard let record else { return "none" }
            return [
                "sessionId": record.call.sessionId,
                "state": record.phase.rawValue,
                "callType": record.call.callType.name,
                "isGroup": record.call.isGroup,
                "muted": record.muted,
                "onHold": record.onHold,
                "audioActive": snapshot.4,
                "since": ISO8601DateFormatter().string(from: record.since),
            ] as [String: Any]
        }
        var out: [String: Any] = [:]
        out["activeCall"] = describe(snapshot.0)
        out["waitingCall"] = describe(snapshot.5)
        out["outgoingCalls"] = snapshot.3
        out["pushKitOwnership"] = snapshot.1.name
        out["voipTokenReceived"] = snapshot.2
        out["callsRing"] = ports.ringsCalls
        out["callKitAvailable"] = callKitUsable
        out["microphone"] = ports.microphone.permission().rawValue
        return out
    }
}
