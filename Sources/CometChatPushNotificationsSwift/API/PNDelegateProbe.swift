import Foundation

/// Tells whether an optional delegate method was implemented, on platforms without
/// Objective-C `optional` requirements: the default implementations mark the call.
@_spi(PNProducts)
public enum PNDelegateProbe {
    private static let unimplemented = PNLocked<[ObjectIdentifier: Bool]>([:])

    private static var threadKey: ObjectIdentifier { ObjectIdentifier(Thread.current) }

    /// Called by a protocol extension's default implementation.
    public static func markUnimplemented() {
        let key = threadKey
        unimplemented.withLock { $0[key] = true }
    }

    /// Runs `call` and answers whether it reached an implementation of the app's.
    public static func invoke(_ call: () -> Void) -> Bool {
        let key = threadKey
        unimplemented.withLock { $0[key] = false }
        call()
        return unimplemented.withLock { $0.removeValue(forKey: key) } != true
    }
}
