import Foundation
import Testing
@_spi(PNProducts) @testable import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

/// The simulated iPhone shows an alert's `loc-key` as iOS does (issue 30: a service app with
/// `locKeys: true` sends them): from the app's `Localizable.strings` with `loc-args` put in, the
/// key itself when the app has no such string, and `loc-key` before `body`.
@Suite("The simulator localizes loc-key alerts as iOS does")
struct LocalizedAlertTests {
    @Test("A loc-key alert shows the app's string with its arguments, else the key; never the service's body")
    func locKeyAlert() throws {
        let payload = try contractPayload("chat-group-loc-keys")
        // Without the app's string iOS shows the key: the README's warning.
        let plain = SimulatedDevice(permission: .authorized)
        plain.deliver(payload)
        #expect(plain.notificationCenter.shown.map(\.body) == ["PN_GROUP_MESSAGE"])
        let device = SimulatedDevice(permission: .authorized)
        device.notificationCenter.localizedStrings = ["PN_GROUP_MESSAGE": "%2$@ (%1$@ in %3$@)"]
        device.deliver(payload)
        #expect(device.notificationCenter.shown.map(\.body) == ["See you at 5 (Alice in Team Rocket)"])
        // The same push without `loc-key` shows its body.
        #expect(device.notificationCenter.alertBody(["title": "T", "body": "Alice: See you at 5"]) == "Alice: See you at 5")
        #expect(device.notificationCenter.alertBody("plain text") == "plain text")
    }

    @Test("Strings-file formats: %@ in turn, %n$@ by position, %% as a percent sign, a missing argument as nothing")
    func formats() {
        let center = SimulatedNotificationCenter()
        center.localizedStrings = ["A": "%@ reacted %@ to: %@", "B": "%3$@ ← %1$@ 100%%", "C": "%@ and %@"]
        func body(_ key: String, _ args: [String]) -> String? { center.alertBody(["loc-key": key, "loc-args": args]) }
        #expect(body("A", ["Ana", "👍", "Hi"]) == "Ana reacted 👍 to: Hi")
        #expect(body("B", ["x", "y", "z"]) == "z ← x 100%")
        #expect(body("C", ["one"]) == "one and ")
    }
}
