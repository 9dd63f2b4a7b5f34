import Delivery
import Testing

@Suite("Delivery options")
struct DeliveryOptionsTests {
    @Test("With no sender named, push-server delivers")
    func deliversByDefault() throws {
        let parsed = try DeliveryOptions.parse(arguments: ["--port", "0"], environment: [:])
        #expect(parsed.options.enabled)
        #expect(parsed.arguments == ["--port", "0"])
    }

    @Test("A stand-in sender named by flag or environment turns the engine off and reaches the service")
    func standInSenders() throws {
        let flag = try DeliveryOptions.parse(arguments: ["--sender", "log"], environment: [:])
        #expect(!flag.options.enabled)
        #expect(flag.arguments == ["--sender", "log"])
        let inline = try DeliveryOptions.parse(arguments: ["--sender=none"], environment: [:])
        #expect(!inline.options.enabled)
        let environment = try DeliveryOptions.parse(arguments: [], environment: ["PUSH_SENDER": "none"])
        #expect(!environment.options.enabled)
        #expect(environment.environment["PUSH_SENDER"] == "none")
    }

    @Test("--sender delivery is consumed")
    func explicitDelivery() throws {
        let parsed = try DeliveryOptions.parse(
            arguments: ["--sender", "delivery", "--apns-url", "https://127.0.0.1:1"], environment: ["PUSH_APNS_CONNECTIONS": "3"])
        #expect(parsed.options.enabled)
        #expect(parsed.arguments.isEmpty)
        #expect(parsed.options.configuration.apnsBaseURL == "https://127.0.0.1:1")
        #expect(parsed.options.configuration.apnsConnections == 3)
        #expect(throws: DeliveryOptionsError.self) {
            try DeliveryOptions.parse(arguments: ["--apns-connections", "0"], environment: [:])
        }
    }
}
