import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

extension SimulatedDevice {
    /// Plays an app that does not link these products (by module name, such as
    /// `"CometChatPushNotificationsChat"`), although the test binary links them: processes
    /// launched from now on do not install them.
    public func simulateUnlinked(_ moduleNames: Set<String>) {
        productPorts.withLock { $0[PNPlatform.unlinkedProductsKey] = moduleNames }
    }
}
