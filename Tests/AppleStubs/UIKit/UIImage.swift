#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// UIKit — UIImage, for the Calls adapter's CallKit icon.
// https://developer.apple.com/documentation/uikit/uiimage

open class UIImage: NSObject, @unchecked Sendable {
    public init?(named name: String) { fatalError() }
    open func pngData() -> Data? { fatalError() }
}
