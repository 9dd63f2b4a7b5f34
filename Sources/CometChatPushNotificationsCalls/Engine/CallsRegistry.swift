import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Finds the call engine of an SDK instance, creating it on first use, so the product Core
/// installs and the app's calls into ``CometChatPushNotificationsCalls`` (which may come first,
/// for a push forwarded before `initialize`) share one state machine.
enum CallsRegistry {
    private final class Entry: @unchecked Sendable {
        // @unchecked: `sdk` is written once in init; read under the registry's lock.
        weak var sdk: CometChatPushNotifications?
        let engine: CallEngine
        init(sdk: CometChatPushNotifications, engine: CallEngine) {
            self.sdk = sdk
            self.engine = engine
        }
    }

    private static let entries = PNLocked<[ObjectIdentifier: Entry]>([:])

    static func engine(for sdk: CometChatPushNotifications) -> CallEngine {
        entries.withLock { entries in
            entries = entries.filter { $0.value.sdk != nil }
            if let entry = entries[ObjectIdentifier(sdk)], entry.sdk === sdk { return entry.engine }
            let engine = CallEngine(sdk: sdk)
            entries[ObjectIdentifier(sdk)] = Entry(sdk: sdk, engine: engine)
            return engine
        }
    }
}
