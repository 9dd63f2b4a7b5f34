#if canImport(PushKit) && canImport(CallKit) && canImport(AVFAudio) && !os(macOS)
import Foundation
@preconcurrency import AVFAudio
@preconcurrency import CallKit
import UIKit
@preconcurrency import UserNotifications

/// `CXProvider` and `CXCallController` behind ``PNCallKitProvider``: converts and forwards.
/// The provider calls back on the main queue.
final class AppleCallKitProvider: NSObject, PNCallKitProvider, CXProviderDelegate, @unchecked Sendable {
    // @unchecked: `provider` and `actions` are only touched on the main queue, and `lock` guards
    // their hand-over from `configure`, which may run elsewhere.
    private let lock = NSLock()
    private var provider: CXProvider?
    private var actions: PNCallKitActions?
    private var supportsHolding = false
    private let controller = CXCallController()

    /// CallKit must not be used in China (App Store Review Guideline 5.0).
    var isAvailable: Bool {
        let region: String?
        if #available(iOS 16, *) {
            region = Locale.current.region?.identifier
        } else {
            region = Locale.current.regionCode
        }
        return region?.uppercased() != "CN"
    }

    func configure(_ configuration: PNCallKitConfiguration, actions: PNCallKitActions) {
        let providerConfiguration = CXProviderConfiguration()
        providerConfiguration.supportsVideo = configuration.supportsVideo
        // Call waiting: one call per group, two groups, so a second call can ring beside the
        // first and iOS offers Hold & Accept, End & Accept and Decline.
        providerConfiguration.maximumCallGroups = configuration.supportsHolding ? 2 : 1
        providerConfiguration.maximumCallsPerCallGroup = 1
        providerConfiguration.supportedHandleTypes = [.generic]
        providerConfiguration.includesCallsInRecents = configuration.includesCallsInRecents
        providerConfiguration.ringtoneSound = configuration.ringtone
        if let name = configuration.iconTemplateImageName {
            providerConfiguration.iconTemplateImageData = UIImage(named: name)?.pngData()
        }
        lock.withLock {
            self.actions = actions
            self.supportsHolding = configuration.supportsHolding
            if let provider {
                provider.configuration = providerConfiguration
            } else {
                let provider = CXProvider(configuration: providerConfiguration)
                provider.setDelegate(self, queue: nil)
                self.provider = provider
            }
        }
    }

    /// The provider, created with defaults if a push came before `configure`.
    private var current: CXProvider {
        lock.withLock {
            if let provider { return provider }
            let provider = CXProvider(configuration: CXProviderConfiguration())
            provider.setDelegate(self, queue: nil)
            self.provider = provider
            return provider
        }
    }

    private var currentActions: PNCallKitActions? { lock.withLock { actions } }

    func reportNewIncomingCall(_ report: PNIncomingCallReport, completion: @escaping @Sendable (PNCallReportError?) -> Void) {
        let update = CXCallUpdate()
        update.remoteHandle = CXHandle(type: .generic, value: report.handle)
        update.localizedCallerName = report.callerName
        update.hasVideo = report.hasVideo
        update.supportsHolding = lock.withLock { supportsHolding }
        update.supportsGrouping = false
        update.supportsUngrouping = false
        update.supportsDTMF = false
        current.reportNewIncomingCall(with: report.uuid, update: update) { error in
            completion(error.map(Self.convert))
        }
    }

    func reportCallEnded(_ uuid: UUID, at date: Date, reason: PNCallKitEndedReason) {
        let endedReason: CXCallEndedReason
        switch reason {
        case .failed: endedReason = .failed
        case .remoteEnded: endedReason = .remoteEnded
        case .unanswered: endedReason = .unanswered
        case .answeredElsewhere: endedReason = .answeredElsewhere
        case .declinedElsewhere: endedReason = .declinedElsewhere
        }
        current.reportCall(with: uuid, endedAt: date, reason: endedReason)
    }

    func requestEndCall(_ uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) {
        controller.request(CXTransaction(action: CXEndCallAction(call: uuid))) { error in completion(error == nil) }
    }

    func showFallbackNotification(_ report: PNIncomingCallReport) {
        let content = UNMutableNotificationContent()
        content.title = report.callerName
        content.body = report.hasVideo ? "Incoming video call" : "Incoming call"
        content.sound = .default
        content.userInfo = ["type": "call", "callUUID": report.uuid.uuidString]
        let request = UNNotificationRequest(identifier: report.uuid.uuidString, content: content, trigger: nil)
        UNUserNotificationCenter.current().add(request, withCompletionHandler: nil)
    }

    func removeFallbackNotification(_ uuid: UUID) {
        UNUserNotificationCenter.current().removeDeliveredNotifications(withIdentifiers: [uuid.uuidString])
    }

    static func convert(_ error: Error) -> PNCallReportError {
        guard let error = error as? CXErrorCodeIncomingCallError else { return .other((error as NSError).localizedDescription) }
        switch error.code {
        case .filteredByDoNotDisturb: return .filteredByDoNotDisturb
        case .filteredByBlockList: return .filteredByBlockList
        case .callUUIDAlreadyExists: return .callUUIDAlreadyExists
        case .unentitled: return .unentitled
        default: return .other((error as NSError).localizedDescription)
        }
    }

    // MARK: CXProviderDelegate

    @objc(providerDidReset:)
    func providerDidReset(_ provider: CXProvider) { currentActions?.reset() }

    @objc(provider:performAnswerCallAction:)
    func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) {
        guard let actions = currentActions else { return action.fail() }
        let pending = PendingAction(action)
        actions.answer(action.callUUID) { fulfilled in pending.finish(fulfilled) }
    }

    @objc(provider:performEndCallAction:)
    func provider(_ provider: CXProvider, perform action: CXEndCallAction) {
        guard let actions = currentActions else { return action.fulfill() }
        let pending = PendingAction(action)
        actions.end(action.callUUID) { fulfilled in pending.finish(fulfilled) }
    }

    @objc(provider:performSetMutedCallAction:)
    func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction) {
        if currentActions?.setMuted(action.callUUID, action.isMuted) == true { action.fulfill() } else { action.fail() }
    }

    @objc(provider:performSetHeldCallAction:)
    func provider(_ provider: CXProvider, perform action: CXSetHeldCallAction) {
        if currentActions?.setHeld(action.callUUID, action.isOnHold) == true { action.fulfill() } else { action.fail() }
    }

    @objc(provider:didActivateAudioSession:)
    func provider(_ provider: CXProvider, didActivate audioSession: AVAudioSession) { currentActions?.audioActivated() }

    @objc(provider:didDeactivateAudioSession:)
    func provider(_ provider: CXProvider, didDeactivate audioSession: AVAudioSession) { currentActions?.audioDeactivated() }
}

/// A CallKit action answered later, from the engine.
private struct PendingAction: @unchecked Sendable {
    // @unchecked: CallKit's actions may be fulfilled or failed from any thread, once.
    let action: CXAction
    init(_ action: CXAction) { self.action = action }
    func finish(_ fulfilled: Bool) { if fulfilled { action.fulfill() } else { action.fail() } }
}
#endif
