import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

/// Rule 29: iOS attaches images (JPEG, GIF, PNG) up to 10 MB, audio (AIFF, WAV, MP3, M4A) up to
/// 5 MB and video (MPEG, MP4, AVI) up to 50 MB, and nothing else.
@Suite struct AttachmentLimitTests {
    let device = SimulatedDevice()
    static let megabyte = 1024 * 1024

    static let cases: [(PNMediaType, Int, Bool)] = [
        (.jpeg, 10 * megabyte, true),
        (.jpeg, 10 * megabyte + 1, false),
        (.mp3, 5 * megabyte, true),
        (.wav, 5 * megabyte + 1, false),
        (.mp4, 11 * megabyte, true),
        (.avi, 49 * megabyte, true),
    ]

    @Test(arguments: cases)
    func eachTypeHasItsOwnLimit(type: PNMediaType, size: Int, attached: Bool) async throws {
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        ext.media.serve("https://cdn.test/file", SimulatedMedia(content: .media(type), size: size, chunkSize: 1024 * 1024))
        let run = await ext.receive(chatPayload(avatar: "https://cdn.test/file"))
        #expect((run.attachment?.mediaType == type) == attached)
        #expect(attached || device.logger.all.contains { $0.contains("over iOS's") })
        #expect(ext.violations.isEmpty)
    }

    @Test("A type iOS does not attach (WebP) is dropped with a log line")
    func unlistedTypeIsDropped() async throws {
        await device.launchChatApp(delegate: RecordingChatDelegate())
        device.terminate()
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        ext.media.serve("https://cdn.test/webp", SimulatedMedia(content: .bytes(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), size: 4096))
        let run = await ext.receive(chatPayload(avatar: "https://cdn.test/webp"))
        #expect(run.attachment == nil)
        #expect(device.logger.all.contains { $0.contains("not a type iOS attaches") })
    }
}
