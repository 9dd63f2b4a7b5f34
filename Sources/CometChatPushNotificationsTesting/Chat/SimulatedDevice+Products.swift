import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsChat

extension SimulatedDevice {
    /// Plays an app that does not link these products (by module name, such as
    /// `"CometChatPushNotificationsChat"`), although the test binary links them: processes
    /// launched from now on do not install them.
    public func simulateUnlinked(_ moduleNames: Set<String>) {
        productPorts.withLock { $0.unlinkedProducts = moduleNames }
    }

    /// The app's Chat ports: its own container and the App Groups' shared containers.
    func installChatPorts() {
        let own = containers.app
        let ports = PNChatPorts(
            downloader: PNURLSessionDownloader(),
            containerDirectory: { [weak self] group in self?.containerDirectory(group, own: own) })
        productPorts.withLock { $0[PNChatPorts.self] = ports }
    }
}
