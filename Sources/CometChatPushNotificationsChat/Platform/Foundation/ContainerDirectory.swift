import Foundation

#if !canImport(UIKit)
extension PNChatPorts {
    /// Outside iOS (Linux, a command-line tool) there are no App Group containers: each App
    /// Group, and the process's own container, is a folder in the user's Application Support
    /// directory (`~/.local/share` on Linux), so processes of one user that name the same App
    /// Group share it.
    @Sendable
    public static func liveContainerDirectory(appGroupID: String?) -> URL? {
        guard let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else {
            return nil
        }
        let root = support.appendingPathComponent("CometChatPushNotifications", isDirectory: true)
        guard let appGroupID else { return root.appendingPathComponent("App", isDirectory: true) }
        return root.appendingPathComponent("AppGroups", isDirectory: true).appendingPathComponent(appGroupID, isDirectory: true)
    }
}
#endif
