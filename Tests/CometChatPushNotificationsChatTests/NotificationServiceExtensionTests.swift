import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

@Suite struct NotificationServiceExtensionTests {
    let device = SimulatedDevice()

    func loggedInExtension(_ options: PNExtensionOptions = PNExtensionOptions()) async -> SimulatedNotificationServiceExtension {
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        return device.installNotificationServiceExtension(appGroupID: appGroup, options: options)
    }

    @Test func chatPushGetsReceiptPlainTextBadgeAndAvatar() async throws {
        let ext = await loggedInExtension()
        // The URL says JPEG; the bytes are PNG
        ext.media.serve("https://cdn.test/bob.jpg", SimulatedMedia(content: .media(.png), size: 40_000))
        let run = await ext.receive(chatPayload(body: "**Lunch** at _noon_?", avatar: "https://cdn.test/bob.jpg", unread: "5"))
        #expect(run.ran && !run.killed && !run.expired)
        #expect(run.body == "Lunch at noon?")
        #expect(run.content?.badge == 5)
        #expect(device.badge == 5)
        let attachment = try #require(run.attachment)
        #expect(attachment.mediaType == .png)
        #expect(attachment.fileURL.pathExtension == "png")
        #expect((try? FileManager.default.attributesOfItem(atPath: attachment.fileURL.path)[.size] as? Int) == 40_000)
        #expect(
            run.content?.sender
                == PNMessageSender(
                    uid: "bob", name: "Bob", avatar: attachment,
                    conversationId: "alice_user_bob", groupName: nil))
        #expect(run.receipt == .sent)
        #expect(device.service.requests(.userDelivered).count == 1)
        #expect(ext.violations.isEmpty)
        #expect(device.service.contractViolations.isEmpty)
    }

    /// `unreadMessageCount` as text, or as a number when `asNumber` (then `text` holds its digits).
    @Test(arguments: [
        ("7", false, 7 as Int?), ("7", true, 7), (" 12 ", false, 12), ("0", true, 0), ("-3", true, nil), ("lots", false, nil),
    ])
    func badgeFromUnreadMessageCount(text: String, asNumber: Bool, expected: Int?) async {
        let ext = await loggedInExtension()
        let value: Any = asNumber ? (Int(text) ?? 0) : text
        let run = await ext.receive(chatPayload(unread: value))
        #expect(run.content?.badge == expected)
    }

    @Test func badgeUnderPayloadAsANumber() async {
        let ext = await loggedInExtension()
        var payload = chatPayload()
        payload["payload"] = ["unreadMessageCount": 9]
        #expect(await ext.receive(payload).content?.badge == 9)
    }

    @Test func campaignImageIsAttached() async {
        let ext = await loggedInExtension()
        ext.media.serve("https://cdn.test/sale", SimulatedMedia(content: .media(.gif), size: 300_000, claimedMIMEType: "text/plain"))
        let run = await ext.receive(campaignPayload(id: "ann3", image: "https://cdn.test/sale"))
        #expect(run.attachment?.mediaType == .gif)
        #expect(run.content?.sender == nil)
        #expect(run.receipt == .sent)
        #expect(device.service.requests(.campaignDelivered).map { $0.match?.parameter } == ["ann3"])
    }

    @Test(arguments: [
        ("wrong type", SimulatedMedia(content: .html, size: 2_000, claimedMIMEType: "image/png")),
        ("oversized", SimulatedMedia(content: .media(.jpeg), size: 11 * 1024 * 1024)),
        ("slow", SimulatedMedia(content: .media(.jpeg), size: 640 * 1024, secondsPerChunk: 4)),
        ("server error", SimulatedMedia(content: .media(.jpeg), size: 1_000, status: 500)),
    ])
    func badMediaStillDeliversInTime(name: String, media: SimulatedMedia) async {
        let ext = await loggedInExtension()
        ext.media.serve("https://cdn.test/a.jpg", media)
        let run = await ext.receive(chatPayload(body: "**hi**", avatar: "https://cdn.test/a.jpg", unread: 2))
        #expect(run.ran && !run.killed, "\(name)")
        #expect(run.elapsed <= SimulatedNotificationServiceExtension.timeLimit, "\(name)")
        #expect(run.attachment == nil, "\(name)")
        #expect(run.body == "hi")
        #expect(run.content?.badge == 2)
        #expect(run.receipt == .sent)
        #expect(ext.violations.isEmpty)
    }

    @Test func stalledDownloadDeliversTheBestContentAtExpiry() async {
        let ext = await loggedInExtension()
        ext.media.serve("https://cdn.test/stall.jpg", SimulatedMedia(content: .media(.jpeg), size: 500_000, stallsAfter: 128 * 1024))
        let run = await ext.receive(chatPayload(body: "# Big news", avatar: "https://cdn.test/stall.jpg", unread: 4))
        #expect(run.expired && !run.killed)
        #expect(run.body == "Big news")
        #expect(run.content?.badge == 4)
        #expect(run.attachment == nil)
        #expect(ext.violations.isEmpty)
    }

    @Test func optionsTurnStepsOff() async {
        let ext = await loggedInExtension(PNExtensionOptions(stripsMarkdown: false, attachesMedia: false))
        ext.media.serve("https://cdn.test/b.png", SimulatedMedia(content: .media(.png), size: 1_000))
        let run = await ext.receive(chatPayload(body: "**raw**", avatar: "https://cdn.test/b.png"))
        #expect(run.body == "**raw**")
        #expect(run.content?.body == nil)
        #expect(run.attachment == nil)
        #expect(ext.media.requests.isEmpty)
    }

    @Test func runsOnlyForMutableAlertPushes() async {
        let ext = await loggedInExtension()
        var payload = chatPayload()
        payload["aps"] = ["alert": ["title": "Bob", "body": "hi"]]
        let run = await ext.receive(payload)
        #expect(!run.ran)
        #expect(device.service.requests(.userDelivered).isEmpty)
    }

    @Test func withoutASharedSessionNoReceiptButTheRestWorks() async {
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let run = await ext.receive(chatPayload(body: "~~x~~ y", unread: 1))
        #expect(run.receipt == nil)
        #expect(run.body == "x y")
        #expect(device.service.requests.isEmpty)
    }

    @Test func theExtensionNeverReadsTheAppsOwnStorage() async {
        let ext = await loggedInExtension()
        _ = await ext.receive(chatPayload())
        let suites = Set(device.defaults.allValues.keys)
        #expect(suites.isSubset(of: ["standard", appGroup, "extension.standard"]))
        #expect(!device.defaults.contains("alice-token"))
    }
}

@Suite struct MediaTypeTests {
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    static let box: [UInt8] = [0, 0, 0, 0x18]

    static let cases: [([UInt8], PNMediaType?)] = [
        ([0xFF, 0xD8, 0xFF, 0xDB], .jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], .png),
        (ascii("GIF87a...."), .gif),
        (ascii("GIF89a...."), .gif),
        (ascii("FORM") + [0, 0, 0, 0] + ascii("AIFF"), .aiff),
        (ascii("RIFF") + [0, 0, 0, 0] + ascii("WAVE"), .wav),
        (ascii("RIFF") + [0, 0, 0, 0] + ascii("AVI "), .avi),
        (box + ascii("ftypM4A ...."), .m4a),
        (box + ascii("ftypisom...."), .mp4),
        ([0x00, 0x00, 0x01, 0xBA, 0x44], .mpeg),
        (ascii("ID3") + [4], .mp3),
        // Types iOS does not attach
        (ascii("RIFF") + [0, 0, 0, 0] + ascii("WEBPVP8 "), nil),
        (box + ascii("ftypheic...."), nil),
        (box + ascii("ftypmif1...."), nil),
        ([0, 0, 0, 0x14] + ascii("ftypqt  ...."), nil),
        (ascii("<!DOCTYPE html>"), nil),
        (ascii("{\"error\":1}"), nil),
        ([0xFF, 0xD8], nil),
        ([], nil),
    ]

    @Test(arguments: cases)
    func sniffsTheTypeFromBytes(bytes: [UInt8], expected: PNMediaType?) {
        #expect(PNMediaType.sniff(Data(bytes)) == expected)
    }
}
