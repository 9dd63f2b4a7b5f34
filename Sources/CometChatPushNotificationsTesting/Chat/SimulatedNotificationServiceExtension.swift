import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat

/// The app's Notification Service Extension on the simulated device: a separate process with
/// its own SDK instance and its own standard storage, sharing only the App Group suite and the
/// keychain access group with the app (rule 17). It runs only for alert pushes with
/// `mutable-content: 1` (rule 14), has 30 s of virtual time (rule 15: a stalled download makes
/// iOS call `serviceExtensionTimeWillExpire`; content delivered later is dropped and the
/// original shown) and a memory limit (rule 16), checked against the bytes the code running in it holds before
/// they reach disk (``SimulatedMediaServer/peakHeldBytes``).
public final class SimulatedNotificationServiceExtension: @unchecked Sendable {
    // @unchecked: immutable references to thread-safe objects, and `runs` behind a lock.

    /// iOS's time limit for one notification.
    public static let timeLimit: TimeInterval = 30
    /// iOS's memory limit for the extension process.
    public static let memoryLimit = 24 * 1024 * 1024

    /// The device it runs on.
    public unowned let device: SimulatedDevice
    /// The App Group id in the extension's Info.plist (`CometChatExtensionGroupID`), if any.
    public let appGroupID: String?
    /// Where avatars and campaign images come from.
    public let media: SimulatedMediaServer
    /// The extension's options (`stripsMarkdown`, `attachesMedia`, …).
    public let options: PNExtensionOptions
    private let directory: URL
    private let violationLog = PNLocked<[String]>([])

    init(device: SimulatedDevice, appGroupID: String?, options: PNExtensionOptions) {
        self.device = device
        self.appGroupID = appGroupID
        self.options = options
        media = SimulatedMediaServer(clock: device.clock)
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cometchat-sim-extension-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Broken iOS rules: work past the time limit, memory over the limit.
    public var violations: [String] { violationLog.current }

    /// APNs hands the push to the extension. Returns what the user sees.
    ///
    /// - Parameter client: what runs in the extension: the SDK's engine (`nil`, the default), or
    ///   a deliberately wrong client that proves the simulator catches what it does.
    public func receive(_ payload: [String: Any], client: (any SimulatedExtensionClient)? = nil) async -> SimulatedExtensionRun {
        let aps = payload["aps"] as? [String: Any]
        let alert = aps?["alert"]
        let mutable = (aps?["mutable-content"] as? Int) == 1
        let alertObject = alert as? [String: Any]
        let title = alertObject?["title"] as? String
        // As iOS shows it: a `loc-key` from the app's strings, or as it is (a private push's placeholder).
        let body = device.notificationCenter.alertBody(alert)
        guard mutable, alert != nil else { return SimulatedExtensionRun(ran: false, title: title, body: body) }

        let clock = device.clock
        let start = clock.now()
        media.resetPeakHeldBytes()
        let application = SimulatedApplication(backgroundModes: [], badge: 0)
        let process = device.makeProcess("extension")
        var platform = device.makePlatform(
            application: application, permissions: SimulatedPermissions(permission: .authorized, answer: .authorized),
            process: process)
        platform.store = device.defaults.store(suite: "extension.standard")
        // The extension's own keychain items are its own: it shares only the App Group's group.
        let keychain = device.keychain
        platform.secureStore = { keychain.store(accessGroup: $0, ownGroup: SimulatedKeychain.extensionGroup) }
        platform.notificationCenter = PNNoNotificationCenter()
        let own = device.containers.appExtension
        platform.productPorts[PNChatPorts.self] = PNChatPorts(
            downloader: media, temporaryDirectory: directory,
            containerDirectory: { [weak device] group in device?.containerDirectory(group, own: own) })
        let sdk = CometChatPushNotifications(platform: platform)
        device.otherProcesses.withLock { $0.append(sdk) }
        sdk.beginWork()
        defer {
            sdk.endWork()
            device.otherProcesses.withLock { list in list.removeAll { $0 === sdk } }
            process.end()
        }

        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload { userInfo[key] = value }
        let engine: any SimulatedExtensionClient =
            client
            ?? PNNotificationServiceEngine.forExtension(
                sdk: sdk, appGroupID: appGroupID, payload: userInfo, title: title, body: body, options: options)
        // iOS takes the first content handed over, and only while the time lasts (rule 30).
        let delivered = PNLocked<(PNExtensionContent, Date)?>(nil)
        let handlerCalls = PNLocked(0)
        let closed = PNLocked(false)
        let violations = violationLog
        engine.start { content in
            let calls = handlerCalls.withLock { count -> Int in
                count += 1
                return count
            }
            guard calls == 1 else {
                violations.withLock { $0.append("the content handler was called more than once") }
                return
            }
            guard !closed.current else {
                violations.withLock { $0.append("content handed over after serviceExtensionTimeWillExpire was ignored") }
                return
            }
            delivered.withLock { $0 = (content, clock.now()) }
        }

        var expired = false
        // A safety net in real time for a client that never answers (iOS's limit is played on
        // the virtual clock above); long enough that a loaded machine never reaches it.
        let realDeadline = Date().addingTimeInterval(60)
        while delivered.current == nil, Date() < realDeadline {
            if media.stalledDownloads > 0 {
                let remaining = Self.timeLimit - clock.now().timeIntervalSince(start)
                if remaining > 0 { clock.advance(by: remaining) }
                expired = true
                engine.expire()
                // The content must be handed over by the time `serviceExtensionTimeWillExpire`
                // returns; anything later is too late and the original is shown.
                closed.withLock { $0 = true }
                break
            }
            try? await Task.sleep(nanoseconds: 200_000)
        }
        var run = SimulatedExtensionRun(ran: true, title: title, body: body)
        run.expired = expired
        // Rule 16: what the client's code kept in memory, measured by the media server at every
        // read (bytes handed over and not yet on disk), not the server's own chunk size.
        let held = media.peakHeldBytes
        if held > Self.memoryLimit {
            violationLog.withLock {
                $0.append("the extension held \(held) bytes of a download in memory, over iOS's \(Self.memoryLimit)")
            }
            run.killed = true
            return run
        }
        guard let (content, at) = delivered.current else {
            if !expired { violationLog.withLock { $0.append("the extension never called its content handler") } }
            return run
        }
        run.elapsed = at.timeIntervalSince(start)
        if run.elapsed > Self.timeLimit + 0.001, !expired {
            violationLog.withLock { $0.append("the extension worked \(run.elapsed) s, past iOS's \(Self.timeLimit) s") }
            run.killed = true
            return run
        }
        run.content = content
        run.title = content.title ?? title
        run.body = content.body ?? body
        if let badge = content.badge { device.setSystemBadge(badge) }
        return run
    }
}

/// What runs in the simulated extension: `didReceive` starts it with the content handler, and
/// `serviceExtensionTimeWillExpire` expires it. The SDK's `PNNotificationServiceEngine` is one.
public protocol SimulatedExtensionClient: Sendable {
    /// Starts on a notification; `completion` plays the content handler.
    func start(_ completion: @escaping @Sendable (PNExtensionContent) -> Void)
    /// Time is up.
    func expire()
}

extension PNNotificationServiceEngine: SimulatedExtensionClient {}

/// What one run of the extension left the user with.
public struct SimulatedExtensionRun: Sendable {
    /// Whether iOS ran the extension at all (an alert with `mutable-content: 1`).
    public var ran: Bool
    /// The title shown.
    public var title: String?
    /// The body shown.
    public var body: String?
    /// The engine's changes, when they were delivered in time.
    public var content: PNExtensionContent?
    /// iOS called `serviceExtensionTimeWillExpire`.
    public var expired = false
    /// iOS killed the extension (time or memory); the original content was shown.
    public var killed = false
    /// Virtual seconds from the push to the content handler.
    public var elapsed: TimeInterval = 0

    init(ran: Bool, title: String?, body: String?) {
        self.ran = ran
        self.title = title
        self.body = body
    }

    /// The attachment shown, if any.
    public var attachment: PNExtensionAttachment? { content?.attachment }
    /// The delivered receipt's outcome in the extension, if it tried one.
    public var receipt: PNReceiptOutcome? { content?.receipt }
}

extension SimulatedDevice {
    /// Adds a Notification Service Extension to the app, with `appGroupID` in its Info.plist.
    public func installNotificationServiceExtension(
        appGroupID: String?, options: PNExtensionOptions = PNExtensionOptions()
    ) -> SimulatedNotificationServiceExtension {
        SimulatedNotificationServiceExtension(device: self, appGroupID: appGroupID, options: options)
    }
}
