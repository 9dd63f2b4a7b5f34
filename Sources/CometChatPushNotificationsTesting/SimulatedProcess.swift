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

    init(name: String) { self.name = name }

    /// Whether iOS has not ended it yet.
    public var isAlive: Bool { alive.current }

    /// iOS ends the process.
    func end() { alive.withLock { $0 = false } }
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
        return try await base.send(request)
    }
}
