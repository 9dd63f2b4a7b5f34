import Foundation

/// Background time for one piece of work (a quick reply, a silent push's receipt): begun once,
/// ended exactly once — when the work is done, or synchronously inside iOS's expiration handler
/// (rule 27: an app whose handler returns with the task still open is killed).
@_spi(PNProducts)
public final class PNBackgroundTime: Sendable {
    private let application: PNApplication
    private let state = PNLocked<(id: Int?, ended: Bool)>((nil, false))

    /// Background time from `application`.
    public init(application: PNApplication) { self.application = application }

    /// Begins the task. When iOS runs out of time, `expired` runs and the task ends before the
    /// handler returns.
    public func begin(name: String, expired: @escaping @Sendable () -> Void) async {
        let id = await application.beginBackgroundTask(name: name) { [self] in
            expired()
            end()
        }
        let endedMeanwhile = state.withLock { state -> Bool in
            if state.ended { return true }
            state.id = id
            return false
        }
        if endedMeanwhile { application.endBackgroundTask(id) }
    }

    /// Ends the task; later calls do nothing.
    public func end() {
        let id = state.withLock { state -> Int? in
            state.ended = true
            defer { state.id = nil }
            return state.id
        }
        if let id { application.endBackgroundTask(id) }
    }
}

/// What `handleBackgroundNotification(userInfo:completion:)` tells iOS, with the raw values of
/// `UIBackgroundFetchResult` (an Objective-C caller can pass it on with a cast).
#if canImport(ObjectiveC)
@objc(PNBackgroundFetchResult)
#endif
public enum PNBackgroundFetchResult: Int, Sendable, CaseIterable {
    /// The push was a CometChat chat or campaign push and its work ran: `.newData`.
    case newData = 0
    /// Not a push the SDK acts on: `.noData`.
    case noData = 1
    /// The work could not run (the SDK is not initialised): `.failed`.
    case failed = 2
}
