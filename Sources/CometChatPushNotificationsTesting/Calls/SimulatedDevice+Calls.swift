import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

extension SimulatedDevice {
    /// PushKit, CallKit and the microphone of this device. Calls ring only in processes launched
    /// after the first use of this property: use it before `launch`.
    public var calls: SimulatedCalls {
        productPorts.withLock { ports in
            if let existing = ports[SimulatedCalls.storageKey] as? SimulatedCalls { return existing }
            let calls = SimulatedCalls(device: self)
            ports[SimulatedCalls.storageKey] = calls
            ports[PNCallsPorts.key] = calls.ports
            return calls
        }
    }

    /// The app's process ended: the calling side forgets it.
    func productProcessEnded() {
        (productPorts.current[SimulatedCalls.storageKey] as? SimulatedCalls)?.processEnded()
    }

    /// Ports that keep the Calls product idle until ``calls`` is used, so a device never reaches
    /// the real PushKit or CallKit.
    func installIdleCallsPorts() {
        productPorts.withLock { ports in
            if ports[PNCallsPorts.key] == nil { ports[PNCallsPorts.key] = PNCallsPorts.inactive }
        }
    }
}
