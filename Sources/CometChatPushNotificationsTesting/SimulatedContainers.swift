import Foundation

/// The file-system containers of the simulated device, as real directories: the app's own
/// container, the Notification Service Extension's own container, and one shared container per
/// App Group. Files written there are real files, so what the SDK does with them (creating a
/// file with `O_EXCL`, …) behaves as on a device, across threads and across processes.
///
/// By default the containers live in a fresh temporary directory that is deleted with this
/// object; ``init(root:)`` puts them in a given directory that stays (several processes of a
/// test, each with its own simulated device, share one App Group that way).
public final class SimulatedContainers: Sendable {
    /// The directory that holds every container.
    public let root: URL
    private let deletesRoot: Bool

    /// Containers in a new temporary directory, deleted with this object.
    public init() {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cometchat-sim-containers-\(UUID().uuidString)", isDirectory: true)
        deletesRoot = true
    }

    /// Containers in `root`, which is kept.
    public init(root: URL) {
        self.root = root
        deletesRoot = false
    }

    deinit { if deletesRoot { try? FileManager.default.removeItem(at: root) } }

    /// The app's own container.
    public var app: URL { root.appendingPathComponent("App", isDirectory: true) }

    /// The Notification Service Extension's own container.
    public var appExtension: URL { root.appendingPathComponent("Extension", isDirectory: true) }

    /// The shared container of the App Group `id`.
    public func appGroup(_ id: String) -> URL {
        root.appendingPathComponent("AppGroups", isDirectory: true).appendingPathComponent(id, isDirectory: true)
    }
}
