import Foundation

/// Everything the SDK needs from the world, in one value. `CometChatPushNotifications.shared`
/// uses the live platform (iOS frameworks on Apple platforms); tests build a simulated one with
/// `CometChatPushNotificationsTesting`.
public struct PNPlatform: Sendable {
    /// The app's own storage (standard `UserDefaults`).
    public var store: PNKeyValueStore
    /// Storage shared with the Notification Service Extension, for an App Group id.
    public var sharedStore: @Sendable (_ appGroupID: String) -> PNKeyValueStore
    /// Secret storage; the argument is the App Group used as keychain access group, if any.
    public var secureStore: @Sendable (_ accessGroup: String?) -> PNSecureStore
    /// HTTP.
    public var transport: PNHTTPTransport
    /// Time.
    public var clock: PNClock
    /// The application object.
    public var application: PNApplication
    /// Notification permission.
    public var permissions: PNNotificationPermissions
    /// Finds linked CometChat SDKs' sessions.
    public var sessionBridge: PNSessionBridge
    /// Where log lines go.
    public var logger: PNLogger
    /// Delivers delegate callbacks. The live platform uses the main queue.
    public var callbackQueue: DispatchQueue
    /// The device's IANA time zone id, sent with token registrations.
    public var timeZoneIdentifier: @Sendable () -> String
    /// Ports of the Chat and Calls products (PushKit, CallKit, the extension's downloads),
    /// keyed by their type. Core only carries them.
    public var productPorts: PNProductPorts
    /// The notification center: categories, foreground presentation, taps, local notifications.
    public var notificationCenter: PNNotificationCenter
    /// The APNs environment this build's tokens belong to (`"sandbox"` or `"production"`), sent
    /// with APNs and VoIP token registrations so the service never has to guess it; `nil` when
    /// it cannot be told.
    public var apnsEnvironment: @Sendable () -> String?
    /// Cryptography for private push (``PNPlatform/systemPushCrypto`` unless a test injects
    /// another).
    public var pushCrypto: PNPushCrypto
    /// The user's preferred languages, most preferred first, as iOS gives them (`en-US`, `de-CH`,
    /// `zh-Hans-CN`). A registration with a self-hosted service (a
    /// ``PNConfiguration/clientHost``) sends them, so that the service writes this device's
    /// notification text in the user's language; CometChat's hosted API never gets them.
    public var preferredLanguages: @Sendable () -> [String]

    /// Creates a platform from its ports.
    public init(
        store: PNKeyValueStore,
        sharedStore: @escaping @Sendable (_ appGroupID: String) -> PNKeyValueStore,
        secureStore: @escaping @Sendable (_ accessGroup: String?) -> PNSecureStore,
        transport: PNHTTPTransport,
        clock: PNClock,
        application: PNApplication,
        permissions: PNNotificationPermissions,
        sessionBridge: PNSessionBridge,
        logger: PNLogger,
        callbackQueue: DispatchQueue = .main,
        timeZoneIdentifier: @escaping @Sendable () -> String = { TimeZone.current.identifier },
        productPorts: PNProductPorts = PNProductPorts(),
        notificationCenter: PNNotificationCenter = PNNoNotificationCenter(),
        apnsEnvironment: @escaping @Sendable () -> String? = { nil },
        pushCrypto: PNPushCrypto = PNPlatform.systemPushCrypto,
        preferredLanguages: @escaping @Sendable () -> [String] = { Locale.preferredLanguages }
    ) {
        self.store = store
        self.sharedStore = sharedStore
        self.secureStore = secureStore
        self.transport = transport
        self.clock = clock
        self.application = application
        self.permissions = permissions
        self.sessionBridge = sessionBridge
        self.logger = logger
        self.callbackQueue = callbackQueue
        self.timeZoneIdentifier = timeZoneIdentifier
        self.productPorts = productPorts
        self.notificationCenter = notificationCenter
        self.apnsEnvironment = apnsEnvironment
        self.pushCrypto = pushCrypto
        self.preferredLanguages = preferredLanguages
    }
}
