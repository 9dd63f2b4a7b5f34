#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Command-line flags and environment variables of the delivery engine, read by
/// `push-server` before it hands the remaining arguments to the service's own parser.
///
/// | flag | environment | meaning |
/// |---|---|---|
/// | `--sender delivery` | `PUSH_SENDER=delivery` | run the delivery engine (the default when no sender is named; `log` and `none` are the service's stand-ins for tests) |
/// | `--apns-url URL` | `PUSH_APNS_URL` | send to this APNs host instead of Apple's (mocks) |
/// | `--fcm-url URL` | `PUSH_FCM_URL` | send to this FCM host instead of Google's (mocks) |
/// | `--ca-file PEM` | `PUSH_CA_FILE` | trust these CAs for APNs/FCM instead of the system store |
/// | `--delivery-max-in-flight N` | `PUSH_DELIVERY_MAX_IN_FLIGHT` | most concurrent sends (default 1400) |
/// | `--apns-connections N` | `PUSH_APNS_CONNECTIONS` | HTTP/2 connections per APNs key (default 4) |
public struct DeliveryOptions: Sendable {
    /// Whether the engine runs: `--sender delivery`, or no sender named at all.
    public var enabled = false
    /// The delivery configuration.
    public var configuration = DeliveryConfiguration()
    /// The engine's tuning.
    public var engine = DeliveryEngine.Configuration()

    /// Help lines for the flags above.
    public static let helpText = """
        Delivery engine:
          --sender delivery              Deliver to APNs/FCM with the delivery engine (PUSH_SENDER);
                                         the default when no --sender is given.
          --apns-url URL                 APNs host override, e.g. a mock (PUSH_APNS_URL).
          --fcm-url URL                  FCM host override (PUSH_FCM_URL).
          --ca-file PEM                  CA bundle to trust for APNs/FCM (PUSH_CA_FILE).
          --delivery-max-in-flight N     Most concurrent sends (default 1400).
          --apns-connections N           HTTP/2 connections per APNs key (default 4).
        """

    /// Reads the delivery flags out of `arguments` and `environment`, returning the others
    /// (`--sender delivery` and `PUSH_SENDER=delivery` are consumed; other senders are left).
    public static func parse(
        arguments: [String], environment: [String: String]
    ) throws -> (options: DeliveryOptions, arguments: [String], environment: [String: String]) {
        var options = DeliveryOptions()
        var values: [String: String] = [:]
        var environment = environment
        var senderNamed = environment["PUSH_SENDER"] != nil
        if environment["PUSH_SENDER"] == "delivery" {
            options.enabled = true
            environment["PUSH_SENDER"] = nil
        }
        let names = [
            "PUSH_APNS_URL": "--apns-url", "PUSH_FCM_URL": "--fcm-url",
            "PUSH_CA_FILE": "--ca-file", "PUSH_DELIVERY_MAX_IN_FLIGHT": "--delivery-max-in-flight",
            "PUSH_APNS_CONNECTIONS": "--apns-connections",
        ]
        for (variable, flag) in names { if let value = environment[variable] { values[flag] = value } }
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let (flag, inline) =
                argument.firstIndex(of: "=").map {
                    (String(argument[..<$0]), Optional(String(argument[argument.index(after: $0)...])))
                } ?? (argument, nil)
            if flag == "--sender" { senderNamed = true }
            if flag == "--sender", (inline ?? (index + 1 < arguments.count ? arguments[index + 1] : nil)) == "delivery" {
                options.enabled = true
                index += inline == nil ? 2 : 1
                continue
            }
            guard names.values.contains(flag) else {
                rest.append(argument)
                index += 1
                continue
            }
            if let inline {
                values[flag] = inline
                index += 1
            } else {
                guard index + 1 < arguments.count else { throw DeliveryOptionsError("\(flag) needs a value") }
                values[flag] = arguments[index + 1]
                index += 2
            }
        }
        if !senderNamed { options.enabled = true }
        options.configuration.apnsBaseURL = values["--apns-url"]
        if let url = values["--fcm-url"] { options.configuration.fcmBaseURL = url }
        options.configuration.caFile = values["--ca-file"]
        if let text = values["--delivery-max-in-flight"] {
            guard let number = Int(text), (1...100_000).contains(number) else {
                throw DeliveryOptionsError("--delivery-max-in-flight must be 1…100000")
            }
            options.engine.maxInFlight = number
            options.engine.batchSize = min(options.engine.batchSize, number)
        }
        if let text = values["--apns-connections"] {
            guard let number = Int(text), (1...64).contains(number) else {
                throw DeliveryOptionsError("--apns-connections must be 1…64")
            }
            options.configuration.apnsConnections = number
        }
        return (options, rest, environment)
    }
}

/// A delivery flag with a bad value.
public struct DeliveryOptionsError: Error, CustomStringConvertible {
    /// What is wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
