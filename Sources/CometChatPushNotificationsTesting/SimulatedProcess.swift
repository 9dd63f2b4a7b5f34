import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// One process of the app or of its extension. iOS ends a process with everything in it: its
/// timers, tasks and CallKit provider stop. The simulator cannot stop the SDK's work itself, so
/// it makes the SDK's leftovers visible: a request a dead process sends never reaches the
/// network and is recorded as a violation on the device.
public final class SimulatedProcess: @unchecked Sendable {
    // @unchecked: the only mutable state is `alive`, behind a lock.

    /// `app #2`, `extension #1`: what a violation names.
    public let name: String
    private let alive = PNLocked(true)
    private let suspended = PNLocked(false)

    init(name: String) { self.name = name }

    /// Whether iOS has not ended it yet.
    public var isAlive: Bool { alive.current }

    /// Whether iOS has suspended it (a background app after its fetch completion handler ran).
    public var isSuspended: Bool { suspended.current }

    /// iOS ends the process.
    func end() { alive.withLock { $0 = false } }

    /// iOS suspends the process: its network requests do not go out until it runs again.
    func suspend() { suspended.withLock { $0 = true } }

    /// The process runs again.
    func resume() { suspended.withLock { $0 = false } }
}

/// The network as one process sees it: requests of a dead process are refused and recorded.
struct SimulatedProcessTransport: PNHTTPTransport {
    let base: PNHTTPTransport
    let process: SimulatedProcess
    let violations: @Sendable (String) -> Void

    func send(_ request: PNHTTPRequest) async throws -> PNHTTPResponse {
        guard process.isAlive else {
            violations("\(process.name) sent \(request.method) \(request.url.path) after iOS ended it")
            throw PNTransportError("The process has ended.")
        }
        guard !process.isSuspended else { throw PNTransportError("The app is suspended.") }
        return try await base.send(request)
    }
}
