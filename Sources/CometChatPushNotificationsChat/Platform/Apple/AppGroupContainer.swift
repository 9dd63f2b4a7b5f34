#if canImport(UIKit)
import Foundation
import UIKit

extension PNChatPorts {
    /// The containers of an iOS app or app extension: for an App Group id, `Library/Application
    /// Support` in the App Group's shared container (`nil` when the App Group is not in the
    /// process's entitlements); for `nil`, the process's own `Library/Application Support`.
    ///
    /// Files there get the default data protection (until first unlock), so the Notification
    /// Service Extension can use them while the device is locked.
    @Sendable
    public static func liveContainerDirectory(appGroupID: String?) -> URL? {
        let files = FileManager.default
        guard let appGroupID else {
            return files.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        }
        return files.containerURL(forSecurityApplicationGroupIdentifier: appGroupID)?
            .appendingPathComponent("Library", isDirectory: true)
            .appendingPathComponent("Application Support", isDirectory: true)
    }
}
#endif
