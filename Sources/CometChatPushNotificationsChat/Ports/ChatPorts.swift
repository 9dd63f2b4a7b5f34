import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The Chat product's own ports, carried in `PNPlatform.productPorts` under
/// ``moduleName``. The live platform uses `URLSession` and the temporary directory; the
/// simulator passes its own.
public struct PNChatPorts: Sendable {
    /// The key of these ports in `PNPlatform.productPorts`.
    public static let moduleName = "CometChatPushNotificationsChat"

    /// Downloads attachments to disk.
    public var downloader: PNMediaDownloading
    /// Where attachments are written before iOS takes them over.
    public var temporaryDirectory: URL

    /// Creates the ports.
    public init(downloader: PNMediaDownloading, temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        self.downloader = downloader
        self.temporaryDirectory = temporaryDirectory
    }

    /// The live ports: `URLSession` downloads into the temporary directory.
    public static var live: PNChatPorts { PNChatPorts(downloader: PNURLSessionDownloader()) }

    /// The ports carried by `platform`, or the live ones.
    public static func from(_ platform: PNPlatform) -> PNChatPorts {
        (platform.productPorts[moduleName] as? PNChatPorts) ?? .live
    }
}
