#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// CallKit — what the Calls adapter uses. https://developer.apple.com/documentation/callkit
// `provider(_:didActivate:)` and `provider(_:didDeactivate:)` take an `AVAudioSession`, which lives
// in the AVFAudio stub; stub modules cannot depend on each other, so those two are not declared.

public struct CXErrorCodeIncomingCallError: Error, @unchecked Sendable {
    public enum Code: Int, @unchecked Sendable {
        case unknown = 0
        case unentitled = 1
        case callUUIDAlreadyExists = 2
        case filteredByDoNotDisturb = 3
        case filteredByBlockList = 4
        case filteredDuringRestrictedSharingMode = 5
    }
    public var code: Code { fatalError() }
}

public enum CXCallEndedReason: Int, @unchecked Sendable {
    case failed = 1
    case remoteEnded = 2
    case unanswered = 3
    case answeredElsewhere = 4
    case declinedElsewhere = 5
}

open class CXHandle: NSObject {
    public enum HandleType: Int, @unchecked Sendable {
        case generic = 1
        case phoneNumber = 2
        case emailAddress = 3
    }
    public init(type: CXHandle.HandleType, value: String) { fatalError() }
}

open class CXCallUpdate: NSObject {
    public override init() { fatalError() }
    open var remoteHandle: CXHandle? {
        get { fatalError() }
        set { fatalError() }
    }
    open var localizedCallerName: String? {
        get { fatalError() }
        set { fatalError() }
    }
    open var supportsHolding: Bool {
        get { fatalError() }
        set { fatalError() }
    }
    open var supportsGrouping: Bool {
        get { fatalError() }
        set { fatalError() }
    }
    open var supportsUngrouping: Bool {
        get { fatalError() }
        set { fatalError() }
    }
    open var supportsDTMF: Bool {
        get { fatalError() }
        set { fatalError() }
    }
    open var hasVideo: Bool {
        get { fatalError() }
        set { fatalError() }
    }
}

open class CXProviderConfiguration: NSObject {
    public override init() { fatalError() }
    open var ringtoneSound: String? {
        get { fatalError() }
        set { fatalError() }
    }
    open var iconTemplateImageData: Data? {
        get { fatalError() }
        set { fatalError() }
    }
    open var maximumCallGroups: Int {
        get { fatalError() }
        set { fatalError() }
    }
    open var maximumCallsPerCallGroup: Int {
        get { fatalError() }
        set { fatalError() }
    }
    open var includesCallsInRecents: Bool {
        get { fatalError() }
        set { fatalError() }
    }
    open var supportsVideo: Bool {
        get { fatalError() }
        set { fatalError() }
    }
    open var supportedHandleTypes: Set<CXHandle.HandleType> {
        get { fatalError() }
        set { fatalError() }
    }
}

open class CXAction: NSObject {
    open func fulfill() { fatalError() }
    open func fail() { fatalError() }
}

open class CXCallAction: CXAction {
    open var callUUID: UUID { fatalError() }
}

open class CXAnswerCallAction: CXCallAction {}

open class CXEndCallAction: CXCallAction {
    public init(call callUUID: UUID) { fatalError() }
}

open class CXSetMutedCallAction: CXCallAction {
    open var isMuted: Bool {
        get { fatalError() }
        set { fatalError() }
    }
}

open class CXTransaction: NSObject {
    public convenience init(action: CXAction) { fatalError() }
}

/// `protocol CXProviderDelegate : NSObjectProtocol`; all but `providerDidReset(_:)` are optional.
public protocol CXProviderDelegate: NSObjectProtocol {
    func providerDidReset(_ provider: CXProvider)
    func provider(_ provider: CXProvider, perform action: CXAnswerCallAction)
    func provider(_ provider: CXProvider, perform action: CXEndCallAction)
    func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction)
}

extension CXProviderDelegate {
    public func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXEndCallAction) {}
    public func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction) {}
}

open class CXProvider: NSObject {
    public init(configuration: CXProviderConfiguration) { fatalError() }
    open func setDelegate(_ delegate: (any CXProviderDelegate)?, queue: DispatchQueue?) { fatalError() }
    open func reportNewIncomingCall(with UUID: UUID, update: CXCallUpdate, completion: @escaping @Sendable ((any Error)?) -> Void) {
        fatalError()
    }
    open func reportCall(with UUID: UUID, endedAt dateEnded: Date?, reason endedReason: CXCallEndedReason) { fatalError() }
    open var configuration: CXProviderConfiguration {
        get { fatalError() }
        set { fatalError() }
    }
}

open class CXCallController: NSObject {
    public override init() { fatalError() }
    open func request(_ transaction: CXTransaction, completion: @escaping @Sendable ((any Error)?) -> Void) { fatalError() }
}
