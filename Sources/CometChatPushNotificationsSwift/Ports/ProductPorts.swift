import Foundation

/// The ports of the Chat and Calls products (PushKit, CallKit, the extension's downloads),
/// keyed by their type: Core only carries them; each product reads its own
/// (`productPorts[PNChatPorts.self]`), and finds the live ones when none are carried.
public struct PNProductPorts: Sendable {
    private var ports: [ObjectIdentifier: any Sendable] = [:]

    /// Module names of products that `initialize` does not install although they are linked:
    /// tests of "an app without the Chat product" in a test binary that links every product.
    @_spi(PNProducts)
    public var unlinkedProducts: Set<String> = []

    /// No ports: every product uses its live ones.
    public init() {}

    /// The ports of type `Ports`, or `nil` when none are carried.
    public subscript<Ports: Sendable>(_ type: Ports.Type) -> Ports? {
        get { ports[ObjectIdentifier(type)] as? Ports }
        set { ports[ObjectIdentifier(type)] = newValue }
    }
}
