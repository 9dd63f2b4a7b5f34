import Foundation
import PushCore
import PushCrypto
import PushService
import PushStore
import PushTestSupport
import Testing

/// Private push (issue 28) at the API: the `encryption` field of a registration (checked,
/// sealed, never shown) and the app's `privacy` settings in the admin API.
@Suite struct PrivatePushRegistrationTests {
    let log = RecordingLogHandler()
    let harness: Harness
    let alice: Harness.TestSession

    /// RFC 8291 Appendix A's receiver: a valid P-256 public key and auth secret.
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    /// The service's secret key in the harness.
    static let secrets = try! SecretBox(key: Data(repeating: 7, count: 32))

    init() async throws {
        harness = try await Harness.start(
            configure: {
                $0.logLevel = .debug; $0.rateLimitPerMinute = 0
            }, logs: log)
        try await harness.makeApp()
        alice = try await harness.makeUser("alice")
    }

    func register(_ token: String, platform: String = "apns_ios_device", encryption: Any?) async throws -> RawHTTP.Response {
        var body: [String: Any] = ["fcmToken": token, "platform": platform, "providerId": platform == "fcm_ios" ? "fcm-1" : "apns-1"]
        if let encryption { body["encryption"] = encryption }
        return try await harness.client("POST", "/notifications/push/v1/tokens", session: alice, body)
    }

    func listing() async throws -> (tokens: [[String: Any]], text: String) {
        let response = try await harness.admin("GET", "/notifications/push/v1/tokens", appId: "app1")
        return (response.data["pushTokens"] as? [[String: Any]] ?? [], String(decoding: response.body, as: UTF8.self))
    }

    /// The raw `push_tokens` rows, every column, as the store export reads them.
    func rawTokenRows() throws -> [[StoreValue]] {
        var rows: [[StoreValue]] = []
        try harness.store.exportRows(table: .pushTokens, batchSize: 100) { rows += $0 }
        return rows
    }

    @Test(arguments: ["apns_ios_device", "apns_ios_voip", "fcm_ios"])
    func keysAreStoredWithTheAuthSecretSealedAndNeverShown(_ platform: String) async throws {
        let token = "ab12cd34" + platform.count.description
        let response = try await register(token, platform: platform, encryption: ["p256dh": Self.p256dh, "auth": Self.auth])
        #expect(response.status == 200)
        let answer = String(decoding: response.body, as: UTF8.self)
        #expect(!answer.contains(Self.auth) && !answer.contains(Self.p256dh), "the answer repeats no key")

        // Stored: the public key as is, the auth secret sealed for this app and token
        let raw = try #require(Base64URL.decode(Self.auth))
        let stored = try #require(try harness.store.encryptionKeys(appId: "app1", tokens: [token])[token])
        #expect(stored.p256dh == Data(try #require(Base64URL.decode(Self.p256dh))))
        #expect(stored.sealedAuth.count > raw.count)
        let opened = try TokenEncryptionKeys(secrets: Self.secrets).open(stored, appId: "app1", token: token)
        #expect(opened == (try WebPushKeys(p256dh: Self.p256dh, auth: Self.auth)))
        #expect(throws: (any Error).self, "sealed for this token only") {
            try TokenEncryptionKeys(secrets: Self.secrets).open(stored, appId: "app1", token: token + "0")
        }
        // The row holds the 16 raw bytes nowhere, nor their base64url
        let rows = try rawTokenRows()
        #expect(rows.count == 1)
        for value in rows.flatMap({ $0 }) {
            switch value {
            case .blob(let bytes): #expect(bytes.firstRange(of: Data(raw)) == nil, "a column holds the auth secret in clear")
            case .text(let text): #expect(!text.contains(Self.auth))
            default: break
            }
        }

        // The admin listing says only that the token is encrypted
        let (tokens, text) = try await listing()
        #expect(tokens.first?["encrypted"] as? Bool == true)
        #expect(!text.contains(Self.auth) && !text.contains(Self.p256dh))
        // and no log line carries either key
        let lines = log.lines.joined(separator: "\n")
        #expect(lines.contains("token registered"), "the log is captured")
        #expect(!lines.contains(Self.auth) && !lines.contains(Self.p256dh))
    }

    @Test func aRegistrationWithoutEncryptionClearsTheKeys() async throws {
        #expect(try await register("c1c1", encryption: ["p256dh": Self.p256dh, "auth": Self.auth]).status == 200)
        #expect(try await listing().tokens.first?["encrypted"] as? Bool == true)
        #expect(try await register("c1c1", encryption: nil).status == 200)
        #expect(try await listing().tokens.first?["encrypted"] as? Bool == false)
        #expect(try harness.store.encryptionKeys(appId: "app1", tokens: ["c1c1"]).isEmpty)
        // null is the field absent
        #expect(try await register("c1c1", encryption: ["p256dh": Self.p256dh, "auth": Self.auth]).status == 200)
        #expect(try await register("c1c1", encryption: NSNull()).status == 200)
        #expect(try harness.store.encryptionKeys(appId: "app1", tokens: ["c1c1"]).isEmpty)
    }

    /// Each bad value: 400 naming the field, nothing stored (not the token, and a token already
    /// registered keeps its keys), and neither the answer nor the log repeats the value.
    /// `encryption` values as JSON text, each with the field its 400 names.
    static let badKeys: [(String, String)] = {
        func keys(_ p256dh: String, _ auth: String) -> String { #"{"p256dh": "\#(p256dh)", "auth": "\#(auth)"}"# }
        return [
            (keys(Base64URL.encode([UInt8](repeating: 4, count: 64)), auth), "encryption.p256dh"),
            (keys(Base64URL.encode([4] + [UInt8](repeating: 0, count: 64)), auth), "encryption.p256dh"),
            (keys(Base64URL.encode([2] + [UInt8](repeating: 7, count: 64)), auth), "encryption.p256dh"),
            (keys("not*base64url!", auth), "encryption.p256dh"),
            (keys(p256dh, "%%%%"), "encryption.auth"),
            (keys(p256dh, Base64URL.encode([UInt8](repeating: 9, count: 15))), "encryption.auth"),
            (keys(p256dh, Base64URL.encode([UInt8](repeating: 9, count: 17))), "encryption.auth"),
            (keys(String(repeating: "A", count: 200), auth), "encryption.p256dh"),
            (keys(p256dh, ""), "encryption.auth"),
            (#"{"auth": "\#(auth)"}"#, "encryption.p256dh"),
            (#"{"p256dh": "\#(p256dh)"}"#, "encryption.auth"),
            (#"{"p256dh": 12, "auth": "\#(auth)"}"#, "encryption.p256dh"),
            (#""keys""#, "encryption"),
            ("[1, 2]", "encryption"),
            ("42", "encryption"),
        ]
    }()

    @Test(arguments: badKeys)
    func aBadKeyIsRefusedNamingItsField(_ encryption: String, _ field: String) async throws {
        let value = try JSONSerialization.jsonObject(with: Data(encryption.utf8), options: .fragmentsAllowed)
        try await expectRefused(value, field: field)
    }

    func expectRefused(_ encryption: Any, field: String) async throws {
        // A token already registered with keys
        #expect(try await register("d0d0", encryption: ["p256dh": Self.p256dh, "auth": Self.auth]).status == 200)
        let before = try harness.store.encryptionKeys(appId: "app1", tokens: ["d0d0"])
        for token in ["d0d0", "e0e0"] {
            let response = try await register(token, encryption: encryption)
            #expect(response.status == 400)
            #expect(response.errorCode == "ERR_BAD_REQUEST")
            let details = (response.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]
            #expect(Array(details.keys) == [field], "\(details)")
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(!text.contains(Self.auth) && !text.contains(Self.p256dh))
        }
        // Nothing stored: no new token, and the registered one keeps its keys
        #expect(try await listing().tokens.compactMap { $0["pushToken"] as? String } == ["d0d0"])
        #expect(try harness.store.encryptionKeys(appId: "app1", tokens: ["d0d0"]) == before)
        let lines = log.lines.joined(separator: "\n")
        #expect(!lines.contains(Self.auth) && !lines.contains(Self.p256dh))
    }
}

/// The app's privacy mode and placeholders in the admin API.
@Suite struct AppPrivacyAPITests {
    let harness: Harness

    init() async throws {
        harness = try await Harness.start()
    }

    @Test func privacyAndPlaceholdersRoundTrip() async throws {
        // A new app is standard, with the default placeholders
        let plain = try await harness.admin("POST", "/apps", ["appId": "plain"])
        #expect(plain.status == 200)
        #expect(plain.data["privacy"] as? String == "standard")
        #expect(plain.data["privatePlaceholder"] as? String == "New message")
        #expect(plain.data["privateCallPlaceholder"] as? String == "Incoming call")
        // Created private with placeholders (trimmed)
        let created = try await harness.admin(
            "POST", "/apps",
            ["appId": "secret", "privacy": "private", "privatePlaceholder": "  Nouveau message ", "privateCallPlaceholder": "Appel"])
        #expect(created.status == 200)
        let app = try await harness.admin("GET", "/apps/secret")
        #expect(app.data["privacy"] as? String == "private")
        #expect(app.data["privatePlaceholder"] as? String == "Nouveau message")
        #expect(app.data["privateCallPlaceholder"] as? String == "Appel")
        #expect(try harness.store.app(id: "secret")?.privacy == .private)
        // Updated: back to standard, one placeholder reset (null), the other kept
        let updated = try await harness.admin("PUT", "/apps/secret", ["privacy": "standard", "privatePlaceholder": NSNull()])
        #expect(updated.status == 200)
        #expect(updated.data["privacy"] as? String == "standard")
        #expect(updated.data["privatePlaceholder"] as? String == "New message")
        #expect(updated.data["privateCallPlaceholder"] as? String == "Appel")
        let stored = try #require(try harness.store.app(id: "secret"))
        #expect(stored.privacy == .standard && stored.privatePlaceholder == nil && stored.privateCallPlaceholder == "Appel")
        // An update that does not name them leaves them
        #expect(try await harness.admin("PUT", "/apps/secret", ["name": "Renamed"]).data["privateCallPlaceholder"] as? String == "Appel")
        let list = try await harness.admin("GET", "/apps").dataArray
        #expect(list.compactMap { $0["privacy"] as? String } == ["standard", "standard"])
    }

    @Test(arguments: [
        (#"{"privacy": "secret"}"#, "privacy"),
        (#"{"privacy": "PRIVATE"}"#, "privacy"),
        (#"{"privacy": 1}"#, "privacy"),
        (#"{"privacy": ""}"#, "privacy"),
        (#"{"privatePlaceholder": "   "}"#, "privatePlaceholder"),
        (#"{"privatePlaceholder": "\#(String(repeating: "x", count: 101))"}"#, "privatePlaceholder"),
        (#"{"privatePlaceholder": 5}"#, "privatePlaceholder"),
        (#"{"privatePlaceholder": ""}"#, "privatePlaceholder"),
        (#"{"privateCallPlaceholder": " \n "}"#, "privateCallPlaceholder"),
        (#"{"privateCallPlaceholder": "\#(String(repeating: "é", count: 101))"}"#, "privateCallPlaceholder"),
        (#"{"privateCallPlaceholder": "a\u0001b"}"#, "privateCallPlaceholder"),
    ])
    func aBadSettingIsRefusedNamingItsField(_ json: String, _ field: String) async throws {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        // On creation: no app
        let created = try await harness.admin("POST", "/apps", body.merging(["appId": "bad"]) { old, _ in old })
        #expect(created.status == 400)
        #expect((created.json["error"] as? [String: Any])?["details"] as? [String: String] != nil)
        #expect(Array(((created.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]).keys) == [field])
        #expect(try harness.store.app(id: "bad") == nil)
        // On update: nothing changes
        try await harness.makeApp()
        let before = try harness.store.app(id: "app1")
        let updated = try await harness.admin("PUT", "/apps/app1", body.merging(["name": "Changed"]) { old, _ in old })
        #expect(updated.status == 400)
        #expect(Array(((updated.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]).keys) == [field])
        #expect(try harness.store.app(id: "app1") == before)
    }

    /// 100 characters after trimming is the limit, counted in characters, not bytes.
    @Test func aPlaceholderOfAHundredCharactersIsAccepted() async throws {
        let text = String(repeating: "é", count: 100)
        let created = try await harness.admin("POST", "/apps", ["appId": "long", "privatePlaceholder": " " + text + " "])
        #expect(created.status == 200)
        #expect(created.data["privatePlaceholder"] as? String == text)
    }
}
