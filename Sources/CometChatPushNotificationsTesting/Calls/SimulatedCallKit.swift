import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsCalls

/// CallKit on the simulated device: the provider the SDK reports to, the system call screen the
/// test taps (answer, decline, end, mute, hold, and a call waiting's Hold & Accept and End &
/// Accept), Do Not Disturb, the region's availability, Recents and the audio session (rules
/// 9–13).
///
/// Like CallKit, report completions and provider actions run on the provider's queue, never
/// inside the call that caused them.
public final class SimulatedCallKit: PNCallKitProvider, PNCallAudioSession, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.

    /// A call as the system sees it.
    public enum CallState: Equatable, Sendable {
        /// The incoming call screen shows.
        case ringing
        /// Answered.
        case active
        /// Over, and how.
        case ended(String)
    }

    /// One `reportNewIncomingCall`.
    public struct Report: Sendable {
        /// What was reported.
        public var report: PNIncomingCallReport
        /// CallKit's answer (`nil`: allowed), once it came.
        public var error: PNCallReportError?
        /// Whether the report's completion has run.
        public var completed: Bool
        /// When it was made (monotonic nanoseconds).
        public var uptimeNanoseconds: UInt64
    }

    /// One line of the Phone app's Recents.
    public struct RecentCall: Equatable, Sendable {
        /// The caller's name.
        public var callerName: String
        /// The handle to call back.
        public var handle: String
        /// Video or audio.
        public var hasVideo: Bool
        /// Shown as missed (red): never answered here and not declined here.
        public var missed: Bool

        /// Creates an entry, to compare with ``SimulatedCallKit/recents``.
        public init(callerName: String, handle: String, hasVideo: Bool, missed: Bool) {
            self.callerName = callerName
            self.handle = handle
            self.hasVideo = hasVideo
            self.missed = missed
        }
    }

    struct Call {
        var report: PNIncomingCallReport
        var state: CallState
        var answered = false
        var muted = false
        var held = false
    }

    struct State {
        var configuration: PNCallKitConfiguration?
        var actions: PNCallKitActions?
        var available = true
        var doNotDisturb = false
        var blocked: Set<String> = []
        var calls: [UUID: Call] = [:]
        var reports: [Report] = []
        var recents: [RecentCall] = []
        var fallbackNotifications: [UUID: PNIncomingCallReport] = [:]
        var audioActive = false
        var audioConfigurations: [Bool] = []
        var violations: [String] = []
    }

    let state = PNLocked(State())
    /// CallKit's delegate queue.
    let queue = DispatchQueue(label: "SimulatedCallKit.provider")

    init() {}

    // MARK: Scenario controls

    /// Do Not Disturb: new calls are refused (rule 11).
    public var doNotDisturb: Bool {
        get { state.withLock { $0.doNotDisturb } }
        set { state.withLock { $0.doNotDisturb = newValue } }
    }

    /// Calls from these handles are refused, as the block list does.
    public func block(handle: String) { state.withLock { _ = $0.blocked.insert(handle) } }

    /// Whether CallKit may be used in the device's region (rule 13: not in China).
    public var available: Bool {
        get { state.withLock { $0.available } }
        set { state.withLock { $0.available = newValue } }
    }

    // MARK: What happened

    /// The configuration the SDK gave the provider.
    public var configuration: PNCallKitConfiguration? { state.withLock { $0.configuration } }
    /// Every report, in order.
    public var reports: [Report] { state.withLock { $0.reports } }
    /// How many reports were made.
    public var reportCount: Int { state.withLock { $0.reports.count } }
    /// The state of the call with `uuid`.
    public func callState(_ uuid: UUID) -> CallState? { state.withLock { $0.calls[uuid]?.state } }
    /// Calls whose incoming screen shows.
    public var ringingCalls: [UUID] {
        state.withLock { s in s.reports.map(\.report.uuid).filter { s.calls[$0]?.state == .ringing }.uniqued() }
    }
    /// Answered calls in progress.
    public var activeCalls: [UUID] {
        state.withLock { s in s.reports.map(\.report.uuid).filter { s.calls[$0]?.state == .active }.uniqued() }
    }
    /// Answered calls on hold.
    public var heldCalls: [UUID] {
        state.withLock { s in s.reports.map(\.report.uuid).filter { s.calls[$0]?.state == .active && s.calls[$0]?.held == true }.uniqued() }
    }
    /// Whether the call with `uuid` is on hold.
    public func isHeld(_ uuid: UUID) -> Bool { state.withLock { $0.calls[uuid]?.held ?? false } }
    /// The Phone app's Recents, oldest first.
    public var recents: [RecentCall] { state.withLock { $0.recents } }
    /// Notifications shown where CallKit is unavailable.
    public var fallbackNotifications: [PNIncomingCallReport] { state.withLock { Array($0.fallbackNotifications.values) } }
    /// Whether CallKit has activated the audio session.
    public var audioActive: Bool { state.withLock { $0.audioActive } }
    /// Each audio configuration, with whether CallKit had activated the session then (it must
    /// not have: `false` is right).
    public var audioConfigurations: [Bool] { state.withLock { $0.audioConfigurations } }
    /// Broken rules that do not kill the app (the audio session configured after CallKit
    /// activated it, or not before the answer was fulfilled; a call ended twice is fine and not
    /// listed).
    public var violations: [String] { state.withLock { $0.violations } }

    func recordViolation(_ text: String) { state.withLock { $0.violations.append(text) } }

    /// Whether every report in `range` (indices into ``reports``) has had its completion run.
    func reportsCompleted(in range: Range<Int>) -> Bool {
        state.withLock { s in range.allSatisfy { $0 < s.reports.count && s.reports[$0].completed } }
    }

    // MARK: PNCallKitProvider

    /// Whether CallKit may be used.
    public var isAvailable: Bool { available }

    /// Keeps the configuration and the actions.
    public func configure(_ configuration: PNCallKitConfiguration, actions: PNCallKitActions) {
        state.withLock {
            $0.configuration = configuration
            $0.actions = actions
        }
    }

    /// Records the report now; answers it on the provider queue.
    public func reportNewIncomingCall(_ report: PNIncomingCallReport, completion: @escaping @Sendable (PNCallReportError?) -> Void) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (index, error) = state.withLock { s -> (Int, PNCallReportError?) in
            var error: PNCallReportError?
            if let existing = s.calls[report.uuid], existing.state == .ringing || existing.state == .active {
                error = .callUUIDAlreadyExists
            } else if s.doNotDisturb {
                error = .filteredByDoNotDisturb
            } else if s.blocked.contains(report.handle) {
                error = .filteredByBlockList
            } else {
                s.calls[report.uuid] = Call(report: report, state: .ringing)
            }
            s.reports.append(Report(report: report, error: nil, completed: false, uptimeNanoseconds: now))
            return (s.reports.count - 1, error)
        }
        queue.async { [self] in
            state.withLock {
                $0.reports[index].error = error
                $0.reports[index].completed = true
            }
            completion(error)
        }
    }

    /// Ends the call; a call never answered here lands in Recents as missed.
    public func reportCallEnded(_ uuid: UUID, at date: Date, reason: PNCallKitEndedReason) {
        end(uuid, as: reason.rawValue, missed: reason == .unanswered || reason == .remoteEnded)
    }

    /// Accepts the request, then performs the end action as if the user tapped it.
    public func requestEndCall(_ uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) {
        let known = state.withLock { s -> Bool in
            guard let call = s.calls[uuid] else { return false }
            return call.state == .ringing || call.state == .active
        }
        queue.async { [self] in
            completion(known)
            if known { performEnd(uuid) }
        }
    }

    /// Shows the fallback notification.
    public func showFallbackNotification(_ report: PNIncomingCallReport) {
        state.withLock { $0.fallbackNotifications[report.uuid] = report }
    }

    /// Removes the fallback notification.
    public func removeFallbackNotification(_ uuid: UUID) {
        state.withLock { _ = $0.fallbackNotifications.removeValue(forKey: uuid) }
    }

    // MARK: PNCallAudioSession

    /// Records the configuration; after CallKit activated the session it breaks rule 12 (the
    /// category and mode are set before the answer action is fulfilled).
    public func configureForCall(video: Bool) {
        let active = state.withLock { s -> Bool in
            s.audioConfigurations.append(s.audioActive)
            return s.audioActive
        }
        if active { recordViolation("rule 12: the audio session was configured after CallKit activated it") }
    }

    // MARK: Internals

    func end(_ uuid: UUID, as reason: String, missed: Bool) {
        let deactivate = state.withLock { s -> Bool in
            guard var call = s.calls[uuid], call.state == .ringing || call.state == .active else { return false }
            let wasActive = call.state == .active
            call.state = .ended(reason)
            s.calls[uuid] = call
            if s.configuration?.includesCallsInRecents ?? true {
                s.recents.append(
                    RecentCall(
                        callerName: call.report.callerName, handle: call.report.handle, hasVideo: call.report.hasVideo,
                        missed: missed && !call.answered))
            }
            let deactivate = wasActive && s.audioActive && !s.calls.values.contains { $0.state == .active }
            if deactivate { s.audioActive = false }
            return deactivate
        }
        if deactivate { state.withLock { $0.actions }?.audioDeactivated() }
    }

    /// The app's process ended: its provider is gone, so nothing reaches it any more, and CallKit
    /// ends the calls it had reported (an app that dies does not keep ringing).
    func processEnded() {
        let live = state.withLock { s -> [UUID] in
            s.actions = nil
            return s.calls.filter { $0.value.state == .ringing || $0.value.state == .active }.map(\.key)
        }
        for uuid in live { end(uuid, as: "failed", missed: true) }
        state.withLock { $0.audioActive = false }
    }

    func performEnd(_ uuid: UUID) {
        guard let actions = state.withLock({ $0.actions }) else { return }
        actions.end(uuid) { [self] fulfilled in
            if fulfilled { end(uuid, as: "endedByUser", missed: false) }
        }
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
