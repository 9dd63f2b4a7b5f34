import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

/// The simulated extension enforces rule 30 against whatever runs in it: deliberately wrong
/// clients are caught, the right one is not.
@Suite("The simulated extension enforces iOS's rules")
struct ExtensionRulesTests {
    let device = SimulatedDevice()
    /// Calls the content handler twice.
    struct CallsTwice: SimulatedExtensionClient {
        func start(_ completion: @escaping @Sendable (PNExtensionContent) -> Void) {
            completion(PNExtensionContent(title: "first"))
            completion(PNExtensionContent(title: "second"))
        }
        func expire() {}
    }

    /// Waits on a download that stalls, so iOS expires it, then hands its content over later.
    struct LateAtExpiry: SimulatedExtensionClient {
        let media: SimulatedMediaServer
        let directory: URL
        func start(_ completion: @escaping @Sendable (PNExtensionContent) -> Void) {
            let (media, file) = (media, directory.appendingPathComponent("stall.jpg"))
            Task {
                _ = try? await media.download(
                    URL(string: "https://cdn.test/stall.jpg")!, to: file, maxBytes: 1 << 20, deadline: .distantFuture)
            }
            Self.completion.withLock { $0 = completion }
        }
        /// Hands nothing over while `serviceExtensionTimeWillExpire` runs: the test hands its
        /// content over after the run (a handover from another thread during the call could
        /// still be in time, so the test does not race one against the call's return).
        func expire() {}
        static let completion = PNLocked<(@Sendable (PNExtensionContent) -> Void)?>(nil)
    }

    /// Reads a whole attachment into memory before it writes any of it to disk: what rule 16
    /// forbids, whatever size the server sends its pieces in.
    struct ReadsWholeBodyFirst: SimulatedExtensionClient {
        let media: SimulatedMediaServer
        let file: URL
        func start(_ completion: @escaping @Sendable (PNExtensionContent) -> Void) {
            let (media, file) = (media, file)
            Task {
                var whole = Data()
                if let body = try? await media.open(URL(string: "https://cdn.test/big.mp4")!, writingTo: file, deadline: .distantFuture) {
                    while let piece = try? await body.read(upTo: 1 << 30), !piece.isEmpty { whole.append(piece) }
                }
                try? whole.write(to: file)
                completion(PNExtensionContent(title: "read \(whole.count) bytes"))
            }
        }
        func expire() {}
    }

    @Test("A content handler called twice is a violation; iOS keeps the first content")
    func handlerTwice() async {
        let ext = device.installNotificationServiceExtension(appGroupID: nil)
        let run = await ext.receive(chatPayload(), client: CallsTwice())
        #expect(run.title == "first")
        #expect(ext.violations == ["the content handler was called more than once"])
    }

    @Test("Rule 16: a client that holds a 30 MB body in memory before writing it is killed; the original shows")
    func wholeBodyInMemoryIsKilled() async throws {
        let ext = device.installNotificationServiceExtension(appGroupID: nil)
        ext.media.serve("https://cdn.test/big.mp4", SimulatedMedia(content: .media(.mp4), size: 30 * 1024 * 1024))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ext-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = ReadsWholeBodyFirst(media: ext.media, file: directory.appendingPathComponent("big.mp4"))
        let run = await ext.receive(chatPayload(body: "original"), client: client)
        #expect(ext.media.peakHeldBytes == 30 * 1024 * 1024)
        #expect(run.killed)
        #expect(run.content == nil)
        #expect(run.body == "original")
        #expect(ext.violations.count == 1)
        #expect(ext.violations.first?.contains("held 31457280 bytes of a download in memory") == true, "\(ext.violations)")
    }

    /// The server's own piece size is not what is checked: with 40 MB pieces on offer the SDK's
    /// loop still takes 64 KiB at a time and is not killed.
    @Test("Rule 16: the SDK's loop streams a 20 MB attachment holding about one read size, and is not killed")
    func sdkLoopHoldsOneRead() async throws {
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        ext.media.serve(
            "https://cdn.test/clip.mp4", SimulatedMedia(content: .media(.mp4), size: 20 * 1024 * 1024, chunkSize: 40 * 1024 * 1024))
        let run = await ext.receive(chatPayload(avatar: "https://cdn.test/clip.mp4"))
        #expect(!run.killed)
        #expect(ext.violations.isEmpty)
        let attachment = try #require(run.attachment)
        #expect(attachment.mediaType == .mp4)
        #expect((try? FileManager.default.attributesOfItem(atPath: attachment.fileURL.path)[.size] as? Int) == 20 * 1024 * 1024)
        let peak = ext.media.peakHeldBytes
        #expect(peak > 0 && peak <= PNMediaStreamer.defaultReadSize, "held \(peak) bytes")
    }

    @Test("Content handed over after serviceExtensionTimeWillExpire is ignored: the original shows")
    func lateContentAtExpiry() async {
        let ext = device.installNotificationServiceExtension(appGroupID: nil)
        ext.media.serve(
            "https://cdn.test/stall.jpg", SimulatedMedia(content: .media(.jpeg), size: 50_000, chunkSize: 500, stallsAfter: 1_000))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ext-rules-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = await ext.receive(chatPayload(body: "original"), client: LateAtExpiry(media: ext.media, directory: directory))
        #expect(run.expired)
        #expect(run.content == nil)
        #expect(run.body == "original")
        #expect(ext.violations.isEmpty)
        // The client hands its content over now, after the time ran out: ignored, and caught.
        LateAtExpiry.completion.current?(PNExtensionContent(title: "too late"))
        #expect(ext.violations == ["content handed over after serviceExtensionTimeWillExpire was ignored"])
    }
}

/// Rule 17: the app and its extension share data only through an App Group they are entitled
/// to. Without the entitlement nothing is shared, and the SDK must neither lose the receipt nor
/// send it twice.
@Suite("App Group entitlement")
struct AppGroupEntitlementTests {
    let device = SimulatedDevice()

    @Test("Without the App Group entitlement the extension sees no session, the app sends the one receipt, and the diagnostics say why")
    func missingEntitlement() async {
        device.removeAppGroupEntitlement(appGroup)
        let app = await device.launchChatApp(delegate: RecordingChatDelegate())
        #expect((app.sdk.getDiagnostics()["keychainError"] as? String)?.contains("-34018") == true)
        #expect(device.defaults.allValues[appGroup] == nil, "the shared suite received nothing")

        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let payload = chatPayload(messageId: "m7")
        let run = await ext.receive(payload)
        #expect(run.receipt != .sent, "the extension has no shared session")
        device.deliver(payload)
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1)
        #expect(device.violations == [])
    }
}

/// The guide: `enableBadgeCount: false` means no badge from the SDK, the extension included.
@Suite struct ExtensionBadgeSettingTests {
    let device = SimulatedDevice()

    @Test("The extension reads the configuration the app saved and sets no badge when badges are off")
    func badgeOff() async {
        let config = PNConfiguration(
            appId: "app1", region: "us", providerId: "apns-provider", extensionGroupID: appGroup, enableBadgeCount: false)
        await device.launchChatApp(config, delegate: RecordingChatDelegate())
        device.terminate()
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let run = await ext.receive(chatPayload(unread: 5))
        #expect(run.content?.badge == nil)
        #expect(device.badge == 0)
    }

    @Test("With badges on (the default) the extension sets it")
    func badgeOn() async {
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let run = await ext.receive(chatPayload(unread: 5))
        #expect(run.content?.badge == 5)
        #expect(device.badge == 5)
    }
}
