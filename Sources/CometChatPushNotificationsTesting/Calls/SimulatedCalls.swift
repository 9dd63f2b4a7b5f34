import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// The calling side of the simulated device: PushKit, CallKit and the microphone, and the record
/// of every time iOS killed the app for breaking the VoIP rule.
///
/// Enable it before launching the app (`device.calls`), then deliver VoIP pushes:
/// ```swift
/// let device = SimulatedDevice(backgroundModes: ["remote-notification", "voip"],
///                              clock: SimulatedClock(autoAdvanceLimit: 0))
/// let calls = device.calls
/// device.launch { $0.initialize(config: config) }
/// calls.pushKit.deliver(["callAction": "initiated", "sessionId": "s1", "sender": "bob"])
/// calls.callKit.answer()
/// await device.settle()
/// #expect(calls.kills.isEmpty)
/// ```
/// The ring timeout sleeps on the device's clock: give the device a clock that does not
/// auto-advance (`SimulatedClock(autoAdvanceLimit: 0)`) and move it with `advance(by:)`.
public final class SimulatedCalls: @unchecked Sendable {
    // @unchecked: all mutable state is inside `killLog`; the rest are immutable references.

    /// PushKit.
    public private(set) var pushKit: SimulatedPushKit!
    /// CallKit (and the audio session).
    public let callKit = SimulatedCallKit()
    /// Microphone permission.
    public let microphone = SimulatedMicrophone()

    private weak var device: SimulatedDevice?
    private let killLog = PNLocked<[String]>([])

    init(device: SimulatedDevice) {
        self.device = device
        pushKit = SimulatedPushKit(calls: self)
    }

    /// The ports the SDK's Calls product uses on this device.
    public var ports: PNCallsPorts {
        PNCallsPorts(pushKit: pushKit, callKit: callKit, microphone: microphone, audioSession: callKit)
    }

    /// Every time iOS killed the app, and why. A correct app has none.
    public var kills: [String] { killLog.current }

    /// iOS kills the app: the process ends, and its registry and CallKit provider with it.
    func kill(_ reason: String) {
        killLog.withLock { $0.append(reason) }
        if let device { device.kill(reason) } else { processEnded() }
    }

    /// The app's process ended: its PushKit registry and CallKit provider are gone, and CallKit
    /// ends the calls it had reported.
    func processEnded() {
        pushKit.processEnded()
        callKit.processEnded()
    }

    /// The device the calls ring on.
    var owner: SimulatedDevice? { device }
}
