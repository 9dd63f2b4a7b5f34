import APNs
import CurlHTTP
import FCM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
import ServerSupport

/// `push-server check-provider`: proves that a stored provider works, and says in plain words
/// what to fix when it does not. Without a device token it checks what can be checked locally
/// (the key parses and signs a JWT); with one it sends one push and explains the answer.
/// Never prints a key or a signed token.
public enum ProviderCheck {
    /// What a check found: lines for the operator, and whether everything worked.
    public struct Report: Sendable {
        /// The lines, in order (`ok`, `FAIL`, `note` prefixes).
        public private(set) var lines: [String] = []
        /// False as soon as one step failed.
        public private(set) var passed = true
        /// The APNs or FCM reason of the test push's answer, if one came back.
        public internal(set) var reason: String?

        /// An empty report.
        public init() {}

        mutating func ok(_ text: String) { lines.append("ok    " + text) }
        mutating func fail(_ text: String) {
            lines.append("FAIL  " + text)
            passed = false
        }
        mutating func note(_ text: String) { lines.append("note  " + text) }
        mutating func info(_ text: String) { lines.append(text) }
        mutating func merge(_ other: Report) {
            lines += other.lines
            passed = passed && other.passed
            reason = other.reason ?? reason
        }
    }

    /// The kind of test push: an alert the user sees, or a silent background push.
    public enum TestPush: String, Sendable, CaseIterable {
        /// A visible alert ("Test push from push-server").
        case alert
        /// `content-available: 1`, priority 5: wakes the app, shows nothing.
        case background

        /// Its `apns-push-type`.
        public var pushType: PushType { self == .alert ? .alert : .background }
    }

    // MARK: Without a device token

    /// Checks the provider's key: it parses and signs the token the provider needs (APNs: an
    /// ES256 provider token; FCM: the RS256 assertion of the OAuth exchange).
    public static func checkKey(_ credentials: ProviderCredentials, now: Date = Date()) -> Report {
        var report = Report()
        switch credentials {
        case .apns(let apns):
            for (name, value) in [("key id", apns.keyId), ("team id", apns.teamId)] where !isAppleIdentifier(value) {
                report.note("the \(name) \"\(value)\" is not 10 letters and digits, as Apple's are: check it")
            }
            let key: PrivateKey
            do {
                key = try PrivateKey(pem: apns.privateKeyPEM)
            } catch {
                report.fail(
                    "the .p8 key does not parse (\(error)). Store the whole AuthKey_\(apns.keyId).p8 file, its BEGIN and END lines included."
                )
                return report
            }
            guard key.kind == .p256 else {
                report.fail("the key is an RSA key: APNs needs the P-256 .p8 key from Certificates, Identifiers & Profiles → Keys.")
                return report
            }
            report.ok("the .p8 key unseals and parses (EC P-256)")
            do {
                let tokens = try APNsTokenProvider(key: key, keyId: apns.keyId, teamId: apns.teamId, now: { now })
                let token = try tokens.token()
                report.ok(
                    "signed a provider token (JWT ES256) with kid \(apns.keyId), iss \(apns.teamId), iat \(token.issuedAt.formatted(.iso8601))"
                )
            } catch {
                report.fail("the key cannot sign a provider token: \(error)")
            }
        case .fcm(let fcm):
            do {
                let account = try ProviderClientBuilder.fcmAccount(for: fcm)
                report.ok("the service account's private key unseals and parses (\(account.privateKey.kind == .rsa ? "RSA" : "EC"))")
                struct Assertion: Encodable {
                    let iss: String
                    let scope: String
                    let aud: String
                    let iat: Int64
                    let exp: Int64
                }
                let iat = Int64(now.timeIntervalSince1970)
                _ = try JWT.sign(
                    Assertion(iss: fcm.clientEmail, scope: FCMAccessTokens.scope, aud: fcm.tokenURI, iat: iat, exp: iat + 3600),
                    with: account.privateKey, keyId: fcm.privateKeyId, type: "JWT")
                report.ok("signed an OAuth assertion (JWT RS256) for \(fcm.clientEmail), kid \(fcm.privateKeyId)")
                if !FCMServiceAccount.googleTokenURIs.contains(fcm.tokenURI) {
                    report.note(
                        "the token_uri is not Google's (https://oauth2.googleapis.com/token): tokens are asked for there only "
                            + "when its host is in --allow-private-destinations (a test server)")
                }
            } catch {
                report.fail("the service account's private_key does not parse or sign (\(error)): store the JSON file Firebase gave you.")
            }
        }
        return report
    }

    // MARK: With a device token

    /// Sends one push to `deviceToken` with the provider's credentials and explains the answer.
    /// - Parameters:
    ///   - production: the APNs environment to use instead of the provider's (nil: the provider's).
    ///   - configuration: hosts (a mock's URL in tests), CA file and timeout; with a
    ///     `providerTokenSharing`, the push uses the token the service's instances share
    ///     (instead of signing one more, which counts as a token update at APNs).
    public static func sendTestPush(
        _ credentials: ProviderCredentials, deviceToken: String, push: TestPush = .alert, production: Bool? = nil,
        configuration: DeliveryConfiguration = DeliveryConfiguration()
    ) async -> Report {
        var report = checkKey(credentials)
        guard report.passed else { return report }
        let body: String
        switch push {
        case .alert:
            body = #"{"aps":{"alert":{"title":"push-server","body":"Test push from push-server check-provider"},"sound":"default"}}"#
        case .background: body = #"{"aps":{"content-available":1}}"#
        }
        let builder = ProviderClientBuilder(configuration: configuration)
        switch credentials {
        case .apns(let apns):
            let useProduction = production ?? apns.production
            let environment = builder.apnsEnvironment(for: apns, production: useProduction)
            let tokens: APNsTokenProvider
            do {
                tokens = try builder.apnsTokens(for: apns)
            } catch {
                report.fail("the key cannot sign a provider token: \(error)")
                return report
            }
            let client = builder.apnsClient(environment: environment, tokens: tokens, connections: 1)
            defer { client.shutdown() }
            let notification = APNsNotification(
                deviceToken: deviceToken, bundleId: apns.bundleId, pushType: push.pushType,
                priority: push == .alert ? 10 : 5, payload: Array(body.utf8))
            report.info(
                "sending \(push == .alert ? "an alert" : "a background") push to token \(hint(deviceToken)), topic \(notification.topic), "
                    + "\(useProduction ? "production" : "sandbox") environment (\(environment.baseURL))")
            let response = await client.send(notification)
            report.merge(
                explain(response, apns: apns, production: useProduction, topic: notification.topic, url: environment.baseURL))
        case .fcm(let fcm):
            let http = builder.fcmHTTP(name: "check-fcm")
            defer { http.shutdown() }
            let client: FCMClient
            do {
                client = try builder.fcmClient(for: fcm, http: http)
            } catch {
                report.fail("the service account's key cannot be used: \(error)")
                return report
            }
            guard
                let message = FCMMessage.make(
                    token: deviceToken, payload: Data(body.utf8),
                    apnsHeaders: ["apns-push-type": push.pushType.rawValue, "apns-priority": push == .alert ? "10" : "5"],
                    includeNotification: push == .alert)
            else {
                report.fail("could not build the test message")
                return report
            }
            report.info(
                "sending \(push == .alert ? "an alert" : "a background") push to token \(hint(deviceToken)) through FCM project \(fcm.projectId)"
            )
            report.merge(explain(await client.send(message: message), fcm: fcm))
        }
        return report
    }

    /// Explains APNs' answer to the test push in plain words.
    public static func explain(_ response: APNsResponse, apns: APNsCredentials, production: Bool, topic: String, url: String) -> Report {
        var report = Report()
        let environment = production ? "production" : "sandbox"
        let other = production ? "sandbox" : "production"
        switch response {
        case .transportFailure(let message):
            report.fail(
                "no answer from \(url): \(message). Check that this machine reaches it on port 443 (firewall, proxy) "
                    + "and trusts its certificate (--ca-file for a test server).")
        case .rejectedLocally(let reason):
            report.reason = reason.rawValue
            if reason == .badDeviceToken {
                report.fail("not sent: the token is not hexadecimal. An APNs device token is 64 hex digits, as the SDK registers it.")
            } else if reason == .invalidProviderToken {
                report.fail("not sent: the key cannot sign a provider token.")
            } else {
                report.fail("not sent: \(reason).")
            }
        case .answered(let answer):
            let reason = answer.reason?.rawValue ?? "HTTP \(answer.status)"
            report.reason = answer.status == 200 ? nil : reason
            let heading = "APNs answered \(answer.status)\(answer.reason.map { " " + $0.rawValue } ?? ""): "
            switch (answer.status, answer.reason) {
            case (200, _):
                report.ok(
                    "APNs answered 200: it accepted the push\(answer.apnsId.map { " (apns-id \($0))" } ?? ""). The team, key, topic and "
                        + "environment are right; the device shows the push if the app may show notifications.")
            case (_, .invalidProviderToken?):
                report.fail(
                    heading + "APNs does not accept the provider token. The key id (\(apns.keyId)) and the team id (\(apns.teamId)) "
                        + "do not belong together, or the key was revoked. Compare both with the Apple developer account "
                        + "(Membership for the team id; Certificates, Identifiers & Profiles → Keys for the key id) and update the provider."
                )
            case (_, .expiredProviderToken?):
                report.fail(
                    heading + "APNs says the provider token is too old: this machine's clock is probably off by more than an hour "
                        + "(it says \(Date().formatted(.iso8601))). Fix the clock (NTP).")
            case (_, .deviceTokenNotForTopic?):
                report.fail(
                    heading + "the device token belongs to another app than \(topic). The provider's bundleId must be the bundle id "
                        + "of the app that registered the token (VoIP tokens use the bundle id + .voip). Fix bundleId, or use a token of that app."
                )
            case (_, .topicDisallowed?), (_, .badTopic?):
                report.fail(
                    heading + "this key may not push to the topic \(topic): the app \(topic) is not of team \(apns.teamId), or the "
                        + "bundle id is misspelt. Use a key of the team that owns the app, and its exact bundle id.")
            case (_, .badDeviceToken?):
                report.fail(
                    heading + "APNs does not know this token in the \(environment) environment. Builds run from Xcode get sandbox "
                        + "tokens; TestFlight and App Store builds get production tokens. The provider is set to \(environment): if "
                        + "the token comes from a \(other) build, set production to \(!production) (try it: --environment \(other)). "
                        + "Otherwise the token was copied wrong.")
            case (410, _), (_, .unregistered?), (_, .expiredToken?):
                let since = answer.unregisteredAt.map { " (APNs last saw it valid at \($0.formatted(.iso8601)))" } ?? ""
                report.fail(
                    heading + "the token is no longer valid\(since): the app was removed from the device, or the token changed. "
                        + "The app must register its new token.")
            case (_, .missingTopic?):
                report.fail(heading + "the provider has no bundleId: set it to the app's bundle id.")
            case (429, _):
                report.fail(heading + "APNs throttles pushes to this device: wait a while and try again.")
            case (500...599, _):
                report.fail(heading + "APNs has a temporary problem: try again later.")
            default:
                report.fail(heading + "APNs refused the push (see Apple's list of APNs error reasons).")
            }
        }
        return report
    }

    /// Explains FCM's answer to the test push in plain words.
    public static func explain(_ response: FCMResponse, fcm: FCMCredentials) -> Report {
        var report = Report()
        switch response {
        case .transportFailure(let message):
            report.fail("no answer from FCM: \(message). Check that this machine reaches it on port 443 (firewall, proxy).")
        case .destinationRefused(let message):
            report.reason = "token_uri"
            report.fail(
                "the service account's token_uri was not asked for a token (\(message)): it must be Google's "
                    + "(https://oauth2.googleapis.com/token), or lead into --allow-private-destinations (a test server). "
                    + "Save the provider again with the JSON file Firebase gave you.")
        case .authFailure(let message):
            report.reason = "auth"
            report.fail(
                "Google refused the service account \(fcm.clientEmail) (\(message)): the key was deleted or the account "
                    + "disabled. Create a new key in the Firebase console (Project settings → Service accounts).")
        case .answered(let status, let code, _):
            report.reason = status == 200 ? nil : code ?? "HTTP \(status)"
            let heading = "FCM answered \(status)\(code.map { " " + $0 } ?? ""): "
            switch (status, code ?? "") {
            case (200, _):
                report.ok("FCM answered 200: it accepted the message for project \(fcm.projectId).")
            case (_, "UNREGISTERED"), (404, _):
                report.fail(heading + "the token is no longer valid: the app was removed or its token changed.")
            case (_, "SENDER_ID_MISMATCH"):
                report.fail(heading + "the token belongs to another Firebase project than \(fcm.projectId).")
            case (_, "THIRD_PARTY_AUTH_ERROR"):
                report.fail(
                    heading + "Firebase could not deliver to APNs: upload the app's APNs key to the Firebase project "
                        + "(Project settings → Cloud Messaging).")
            case (_, "INVALID_ARGUMENT"):
                report.fail(heading + "FCM does not take this token: copy the FCM registration token again.")
            case (403, _), (_, "PERMISSION_DENIED"):
                report.fail(
                    heading + "the service account may not send: enable the Firebase Cloud Messaging API for \(fcm.projectId) "
                        + "and give the account the Firebase Cloud Messaging API Admin role.")
            case (429, _), (_, "QUOTA_EXCEEDED"):
                report.fail(heading + "over FCM's quota: wait and try again.")
            default:
                report.fail(heading + "FCM refused the message.")
            }
        }
        return report
    }

    /// A short hint of a token: never the whole token.
    static func hint(_ token: String) -> String {
        token.count <= 16 ? String(token.prefix(4)) + "…" : String(token.prefix(8)) + "…" + String(token.suffix(4))
    }

    static func isAppleIdentifier(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
    }
}
