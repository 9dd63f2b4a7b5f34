#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// PushKit — what the Calls adapter uses. https://developer.apple.com/documentation/pushkit

public struct PKPushType: RawRepresentable, Hashable, @unchecked Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let voIP = PKPushType(rawValue: "PKPushTypeVoIP")
}

open class PKPushCredentials: NSObject {
    open var type: PKPushType { fatalError() }
    open var token: Data { fatalError() }
}

open class PKPushPayload: NSObject {
    open var type: PKPushType { fatalError() }
    open var dictionaryPayload: [AnyHashable: Any] { fatalError() }
}

/// `protocol PKPushRegistryDelegate : NSObjectProtocol`; all but `didUpdate` are optional.
public protocol PKPushRegistryDelegate: NSObjectProtocol {
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () -> Void)
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
}

extension PKPushRegistryDelegate {
    public func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () -> Void
    ) {}
    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
}

open class PKPushRegistry: NSObject {
    public init(queue: DispatchQueue?) { fatalError() }
    /// `weak var delegate: (any PKPushRegistryDelegate)?`
    open var delegate: (any PKPushRegistryDelegate)? {
        get { fatalError() }
        set { fatalError() }
    }
    open var desiredPushTypes: Set<PKPushType>? {
        get { fatalError() }
        set { fatalError() }
    }
    open func pushToken(for type: PKPushType) -> Data? { fatalError() }
}
