import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Products find their ports by type, never by a string key.
@Suite struct ProductPortsTests {
    struct PushPorts: Sendable { var name: String }
    struct MediaPorts: Sendable { var name: String }

    @Test func portsAreFoundByTheirType() {
        var ports = PNProductPorts()
        #expect(ports[PushPorts.self] == nil, "none carried: the product uses its live ports")
        ports[PushPorts.self] = PushPorts(name: "push")
        ports[MediaPorts.self] = MediaPorts(name: "media")
        #expect(ports[PushPorts.self]?.name == "push")
        #expect(ports[MediaPorts.self]?.name == "media")
        ports[PushPorts.self] = nil
        #expect(ports[PushPorts.self] == nil)
        #expect(ports[MediaPorts.self]?.name == "media")
    }

    @Test func unlinkedProductsAreNamedApartFromThePorts() {
        var ports = PNProductPorts()
        ports.unlinkedProducts = ["CometChatPushNotificationsChat"]
        #expect(ports[Set<String>.self] == nil)
        #expect(ports.unlinkedProducts == ["CometChatPushNotificationsChat"])
    }
}
