import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The Chat product's own ports, carried in `PNPlatform.productPorts`
/// (`productPorts[PNChatPorts.self]`). The live platform uses `URLSession`, the temporary
/// directory and the app's containers; the simulator passes its own.
public struct PNChatPorts: Sendable {
    /// Downloads attachments to disk.
    public var downloader: PNMediaDownloading
    /// Where attachments are written before iOS takes them over.
    public var temporaryDirectory: URL
    /// A directory for the SDK's files in a container: the App Group's shared container for
    /// an App Group id, the process's own container for `nil`. `nil` when the process has no
    /// access to it (the App Group is not in its entitlements). The receipt ledger lives here.
    public var containerDirectory: @Sendable (_ appGroupID: String?) -> URL?

    /// Creates the ports.
    ///
    /// - Parameters:
    ///   - downloader: downloads attachments to disk.
    ///   - temporaryDirectory: where attachments are written.
    ///   - containerDirectory: the App Group's container directory, or the process's own for
    ///     `nil`; by default the system's (`liveContainerDirectory(appGroupID:)`).
    public init(
        downloader: PNMediaDownloading, temporaryDirectory: URL = FileManager.default.temporaryDirectory,
        containerDirectory: @escaping @Sendable (_ appGroupID: String?) -> URL? = PNChatPorts.liveContainerDirectory(appGroupID:)
    ) {
        self.downloader = downloader
        self.temporaryDirectory = temporaryDirectory
        self.containerDirectory = containerDirectory
    }

    /// The receipt ledger's directory for `appGroupID`: in the App Group's container, or in the
    /// process's own container without an App Group; `nil` when that container is out of reach.
    func receiptDirectory(appGroupID: String?) -> URL? {
        containerDirectory(appGroupID).map { PNReceiptLedger.directory(inContainer: $0) }
    }

    /// The live ports: `URLSession` downloads into the temporary directory.
    public static var live: PNChatPorts { PNChatPorts(downloader: PNURLSessionDownloader()) }

    /// The ports carried by `platform`, or the live ones.
    public static func from(_ platform: PNPlatform) -> PNChatPorts {
        platform.productPorts[PNChatPorts.self] ?? .live
    }
}
