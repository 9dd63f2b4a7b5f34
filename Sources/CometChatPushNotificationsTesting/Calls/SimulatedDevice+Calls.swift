import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

extension SimulatedDevice {
    /// PushKit, CallKit and the microphone of this device. Calls ring only in processes launched
    /// after the first use of this property: use it before `launch`.
    public var calls: SimulatedCalls {
        callsSimulator.withLock { simulator in
            if let existing = simulator { return existing }
            let calls = SimulatedCalls(device: self)
            simulator = calls
            productPorts.withLock { $0[PNCallsPorts.self] = calls.ports }
            return calls
        }
    }

    /// The app's process ended: the calling side forgets it.
    func productProcessEnded() {
        callsSimulator.current?.processEnded()
    }

    /// Ports that keep the Calls product idle until ``calls`` is used, so a device never reaches
    /// the real PushKit or CallKit.
    func installIdleCallsPorts() {
        productPorts.withLock { ports in
            if ports[PNCallsPorts.self] == nil { ports[PNCallsPorts.self] = PNCallsPorts.inactive }
        }
    }
}
