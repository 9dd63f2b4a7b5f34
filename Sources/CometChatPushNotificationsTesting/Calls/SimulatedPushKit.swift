import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// PushKit on the simulated device: the VoIP token, and VoIP pushes delivered with the rules
/// iOS enforces: a push must be reported to CallKit inside the callback (rule 9), and the
/// completion must run only after CallKit answered that report (rule 10), or the app is killed.
/// That holds where CallKit is unavailable too (``SimulatedCallKit/available`` off, rule 13):
/// such an app must not register for VoIP pushes at all. A push to an app that is not running
/// launches it in the background (with its last `didFinishLaunching`), as iOS does.
///
/// PushKit calls its delegate on one serial queue: ``deliver(_:)`` calls from several threads
/// are delivered one after the other, each callback running alone, and the CallKit reports made
/// while a callback runs are that push's reports, whatever call they name. An app that reports
/// push B's call while it handles push A has not reported B in B's callback, and is killed then.
public final class SimulatedPushKit: PNPushKitRegistry, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    /// Which PushKit the device runs.
    public enum Mode: Sendable, Equatable {
        /// Before iOS 26.4: every VoIP push must be reported to CallKit.
        case beforeIOS26_4
        /// iOS 26.4 and later: each push carries `mustReport`, which iOS sets from the app's state,
        /// not from the payload: false while the app is in the foreground or already has a call
        /// in CallKit (ringing or active), true otherwise. Only a push with `mustReport`
        /// true must be reported; the app is killed if it is not.
        case iOS26_4
    }

    struct State {
        var mode = Mode.beforeIOS26_4
        var events: PNPushKitEvents?
        var appHandler: (@Sendable (PNVoIPPush, @escaping @Sendable () -> Void) -> Void)?
        var registriesCreated = 0
        var token: Data?
        var deliveries: [SimulatedVoIPDelivery] = []
        var dropped = 0
    }

    let state = PNLocked(State())
    unowned let calls: SimulatedCalls
    /// PushKit's delegate queue: held for the whole of a delivery.
    private let delegateQueue = NSLock()

    init(calls: SimulatedCalls) { self.calls = calls }

    // MARK: PNPushKitRegistry

    /// The SDK created the registry: keep its events and hand over a cached token.
    public func start(_ events: PNPushKitEvents) {
        let token = state.withLock { s -> Data? in
            s.events = events
            s.registriesCreated += 1
            return s.token
        }
        if let token { events.tokenUpdated(token) }
    }

    // MARK: Scenario controls

    /// Which PushKit the device runs (before iOS 26.4 by default).
    public var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// How many registries the SDK created (over every launch).
    public var registriesCreated: Int { state.withLock { $0.registriesCreated } }

    /// Whether a registry receives pushes in the running process (the SDK's or the app's).
    public var hasRegistry: Bool { state.withLock { $0.events != nil || $0.appHandler != nil } }

    /// The app owns the registry (`pushKitOwnership: .app`): its delegate receives pushes through
    /// `handler`, which plays `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`.
    public func appOwnsRegistry(_ handler: @escaping @Sendable (PNVoIPPush, @escaping @Sendable () -> Void) -> Void) {
        state.withLock { $0.appHandler = handler }
    }

    /// PushKit issues (or changes) the VoIP token; the SDK's registry gets it now.
    public func issueToken(_ token: Data) {
        let events = state.withLock { s -> PNPushKitEvents? in
            s.token = token
            return s.events
        }
        events?.tokenUpdated(token)
    }

    /// PushKit invalidates the VoIP token.
    public func invalidateToken() {
        let events = state.withLock { s -> PNPushKitEvents? in
            s.token = nil
            return s.events
        }
        events?.tokenInvalidated()
    }

    /// The app process ended: its registry is gone.
    func processEnded() {
        state.withLock {
            $0.events = nil
            $0.appHandler = nil
        }
    }

    /// Every delivery, in order.
    public var deliveries: [SimulatedVoIPDelivery] { state.withLock { $0.deliveries } }

    /// Pushes that arrived while no registry existed (rule 2).
    public var droppedPushes: Int { state.withLock { $0.dropped } }

    /// Delivers a VoIP push with `payload` and enforces the VoIP rule. Safe to call from several
    /// threads: deliveries are serialised, as on PushKit's delegate queue (a call waits for the
    /// callback under way to return).
    @discardableResult
    public func deliver(_ payload: [AnyHashable: Any]) -> SimulatedVoIPDelivery {
        delegateQueue.lock()
        defer { delegateQueue.unlock() }
        let delivery = SimulatedVoIPDelivery()
        state.withLock { $0.deliveries.append(delivery) }
        if calls.owner?.app == nil, calls.owner?.launchInBackground() != nil {
            delivery.launchedApp()
        }
        let handler = state.withLock { s -> (@Sendable (PNVoIPPush, @escaping @Sendable () -> Void) -> Void)? in
            if let events = s.events { return events.pushReceived }
            return s.appHandler
        }
        guard let handler else {
            state.withLock { $0.dropped += 1 }
            delivery.finish(dropped: true)
            return delivery
        }
        let callKit = calls.callKit
        let mustReport =
            mode == .beforeIOS26_4
            || (calls.owner?.app?.state != .active && callKit.ringingCalls.isEmpty && callKit.activeCalls.isEmpty)
        delivery.setMustReport(mustReport)
        let before = callKit.reportCount
        let start = DispatchTime.now().uptimeNanoseconds
        // CallKit answers a report on its own queue, never while the PushKit callback still runs:
        // hold the queue until the callback returns.
        callKit.queue.suspend()
        defer { callKit.queue.resume() }
        handler(PNVoIPPush(payload: payload, mustReport: mustReport)) { [calls] in
            // The reports this push made: those made before its callback returned.
            let end = delivery.reportsEnd ?? callKit.reportCount
            let reported = end > before
            let answered = callKit.reportsCompleted(in: before..<end)
            // A push iOS 26.4 did not require to be reported may complete unreported.
            delivery.completionCalled(reportedBefore: reported || !mustReport, reportAnswered: answered || (!reported && !mustReport))
            guard !delivery.killed, mustReport else { return }
            if !reported {
                delivery.markKilled()
                calls.kill("a VoIP push's completion ran before it was reported to CallKit")
            } else if !answered {
                delivery.markKilled()
                calls.kill("rule 10: PushKit's completion ran before CallKit answered the report")
            }
        }
        let reports = callKit.reports.dropFirst(before)
        delivery.setReportsEnd(before + reports.count)
        delivery.handlerReturned(reported: !reports.isEmpty, reportLatency: reports.first.map { $0.uptimeNanoseconds &- start })
        if reports.isEmpty, mustReport, !delivery.killed {
            delivery.markKilled()
            calls.kill("a VoIP push was not reported to CallKit within the PushKit callback")
        }
        return delivery
    }
}

/// One VoIP push delivery and what the app did with it.
public final class SimulatedVoIPDelivery: @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.
    struct State {
        var dropped = false
        var reportedInCallback = false
        var reportLatency: UInt64?
        var completions = 0
        var reportedBeforeCompletion = true
        var reportAnsweredBeforeCompletion = true
        var killed = false
        var reportsEnd: Int?
        var launchedApp = false
        var mustReport = true
    }
    let state = PNLocked(State())

    /// No registry existed, so the push was lost.
    public var dropped: Bool { state.withLock { $0.dropped } }
    /// Whether CallKit got a report before the PushKit callback returned.
    public var reportedInCallback: Bool { state.withLock { $0.reportedInCallback } }
    /// Nanoseconds from the delivery to the first CallKit report.
    public var reportLatencyNanoseconds: UInt64? { state.withLock { $0.reportLatency } }
    /// How many times the completion ran (it must be exactly once).
    public var completions: Int { state.withLock { $0.completions } }
    /// Whether the completion ran only after the report and after CallKit answered it.
    public var completedInOrder: Bool {
        state.withLock { $0.completions == 1 && $0.reportedBeforeCompletion && $0.reportAnsweredBeforeCompletion }
    }

    /// Whether iOS required this push to be reported (always before iOS 26.4).
    public var mustReport: Bool { state.withLock { $0.mustReport } }

    func setMustReport(_ value: Bool) { state.withLock { $0.mustReport = value } }

    /// Whether the push launched the app (it was not running).
    public var launchedTheApp: Bool { state.withLock { $0.launchedApp } }

    func launchedApp() { state.withLock { $0.launchedApp = true } }

    /// Whether iOS killed the app over this push.
    public var killed: Bool { state.withLock { $0.killed } }

    func markKilled() { state.withLock { $0.killed = true } }

    var reportsEnd: Int? { state.withLock { $0.reportsEnd } }
    func setReportsEnd(_ end: Int) { state.withLock { $0.reportsEnd = end } }

    func finish(dropped: Bool) { state.withLock { $0.dropped = dropped } }

    func handlerReturned(reported: Bool, reportLatency: UInt64?) {
        state.withLock {
            $0.reportedInCallback = reported
            $0.reportLatency = reportLatency
        }
    }

    func completionCalled(reportedBefore: Bool, reportAnswered: Bool) {
        state.withLock {
            $0.completions += 1
            $0.reportedBeforeCompletion = $0.reportedBeforeCompletion && reportedBefore
            $0.reportAnsweredBeforeCompletion = $0.reportAnsweredBeforeCompletion && reportAnswered
        }
    }
}
