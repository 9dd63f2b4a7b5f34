#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// UIKit — the parts of UIApplication the adapters use.
// https://developer.apple.com/documentation/uikit/uiapplication

@MainActor
open class UIResponder: NSObject {}

public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

@MainActor
open class UIApplication: UIResponder {
    public enum State: Int, @unchecked Sendable {
        case active = 0
        case inactive = 1
        case background = 2
    }

    public struct LaunchOptionsKey: Hashable, RawRepresentable, @unchecked Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let remoteNotification = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
    }

    open class var shared: UIApplication { fatalError() }
    open var applicationState: UIApplication.State { fatalError() }
    @available(iOS, introduced: 2.0, deprecated: 17.0)
    open var applicationIconBadgeNumber: Int {
        get { fatalError() }
        set { fatalError() }
    }
    open func registerForRemoteNotifications() { fatalError() }
    open func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { fatalError() }
    open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) { fatalError() }
}

public enum UIBackgroundFetchResult: UInt, @unchecked Sendable {
    case newData = 0
    case noData = 1
    case failed = 2
}

// Foundation on iOS, which UIKit re-exports; swift-corelibs-foundation lacks it.
// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
extension FileManager {
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { fatalError() }
}
