import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Pushes in the user's language (issue 30, languages) through the service: the languages a
/// device registers, each token's payload written in them, an app's texts set with the app or
/// one language at a time (checked, listed, previewed), `loc-key`/`loc-args`, and an edit
/// written in each device's language. Built on ``PreferencesTests``'s service (Bob has an
/// iPhone); runs on SQLite, and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct LanguagesTests {
    let base: PreferencesTests
    var harness: Harness { base.harness }
    static let bobsPhone = "b0b0000000000000000000000000000000000000000000000000000000000001"
    static let bobsIPad = "b0b0000000000000000000000000000000000000000000000000000000000002"

    init() async throws {
        base = try await PreferencesTests()
        // Bob's iPhone reads German (Swiss first), his iPad English.
        try await register(Self.bobsPhone, languages: ["de-CH", "de", "en"])
        try await register(Self.bobsIPad, languages: ["en-GB", "en"])
    }

    @discardableResult
    func register(_ token: String, languages: Any?, expecting status: Int = 200) async throws -> RawHTTP.Response {
        var body: [String: Any] = ["fcmToken": token, "platform": "apns_ios_device", "providerId": "apns-1"]
        if let languages { body["languages"] = languages }
        let response = try await harness.client("POST", "/notifications/push/v1/tokens", session: base.bob, body)
        #expect(response.status == status, "\(response.json)")
        return response
    }

    /// Bob's tokens as the admin listing shows them.
    func listed() async throws -> [String: [String: Any]] {
        let listing = try await harness.admin("GET", "/notifications/push/v1/tokens?uid=bob", appId: "app1")
        let tokens = (listing.data["pushTokens"] as? [[String: Any]]) ?? []
        return Dictionary(uniqueKeysWithValues: tokens.map { ($0["pushToken"] as? String ?? "", $0) })
    }

    /// Sends and returns each job's payload by token.
    func send(_ body: [String: Any]) async throws -> [String: [String: Any]] {
        try await sendRequest(body).payloads
    }

    /// Sends; the request id and each job's payload by token.
    func sendRequest(_ body: [String: Any]) async throws -> (requestId: String, payloads: [String: [String: Any]]) {
        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(response.status == 200, "\(response.json)")
        let requestId = try #require(response.data["requestId"] as? String)
        return (requestId, try await payloads(requestId))
    }

    /// The payloads of a send's jobs by token, as stored now.
    func payloads(_ requestId: String) async throws -> [String: [String: Any]] {
        let jobs = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/jobs", appId: "app1").dataArray
        return Dictionary(
            jobs.map { ($0["token"] as? String ?? "", $0["payload"] as? [String: Any] ?? [:]) }, uniquingKeysWith: { first, _ in first })
    }

    static func alert(_ payload: [String: Any]?) -> [String: Any] {
        (payload?["aps"] as? [String: Any])?["alert"] as? [String: Any] ?? [:]
    }

    static func body(_ payload: [String: Any]?) -> String? { alert(payload)["body"] as? String }

    static func reaction(group: String? = nil) -> [String: Any] {
        var body = PreferencesTests.chat(group: group)
        var message = body["message"] as? [String: Any] ?? [:]
        message["category"] = "reaction"
        message["reaction"] = "👍"
        body["message"] = message
        return body
    }

    // MARK: Registration

    @Test func theLanguagesAreKeptPerTokenListedAndClearedByARegistrationWithoutThem() async throws {
        var tokens = try await listed()
        #expect(tokens[Self.bobsPhone]?["languages"] as? [String] == ["de-CH", "de", "en"])
        #expect(tokens[Self.bobsIPad]?["languages"] as? [String] == ["en-GB", "en"])
        // Duplicates (in any case) are dropped; the order is kept.
        try await register(Self.bobsIPad, languages: ["fr-CA", "FR-ca", "en"])
        tokens = try await listed()
        #expect(tokens[Self.bobsIPad]?["languages"] as? [String] == ["fr-CA", "en"])
        try await register(Self.bobsIPad, languages: nil)
        tokens = try await listed()
        #expect(tokens[Self.bobsIPad]?["languages"] == nil)
    }

    @Test(arguments: [
        #"["de", 7]"#, #"["english_us"]"#, #"[""]"#, #"["en","en","en","en","en","en","en","en","en","en","en"]"#, #"["de-"]"#, #""de""#,
    ])
    func aBadListIsRefusedNamingLanguagesAndNothingIsStored(_ languages: String) async throws {
        let value = try JSONSerialization.jsonObject(with: Data(languages.utf8), options: .fragmentsAllowed)
        let refused = try await register(Self.bobsPhone, languages: value, expecting: 400)
        #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: String])?.keys.first == "languages")
        #expect(try await listed()[Self.bobsPhone]?["languages"] as? [String] == ["de-CH", "de", "en"])
    }

    // MARK: Payloads

    @Test func theSameCallReactionAndGroupMessageReachEachDeviceInItsLanguage() async throws {
        let call = try await send(PreferencesTests.call())
        #expect(Self.body(call[Self.bobsPhone]) == "Audioanruf")
        #expect(call[Self.bobsPhone]?["body"] as? String == "Audioanruf")
        #expect(Self.body(call[Self.bobsIPad]) == "AUDIO CALL")
        var video = PreferencesTests.call()
        video["call"] = (video["call"] as? [String: Any] ?? [:]).merging(["callType": "video"]) { $1 }
        #expect(Self.body(try await send(video)[Self.bobsPhone]) == "Videoanruf")

        let reaction = try await send(Self.reaction())
        #expect(Self.body(reaction[Self.bobsPhone]) == "Alice hat mit 👍 reagiert: Hello")
        #expect(Self.body(reaction[Self.bobsIPad]) == "Alice reacted 👍 to: Hello")
        let group = try await send(PreferencesTests.chat(group: "team"))
        #expect(Self.body(group[Self.bobsPhone]) == "Alice: Hello")
        // No loc-key unless the app asks for it.
        #expect(Self.alert(group[Self.bobsPhone])["loc-key"] == nil)
    }

    @Test func aVoIPTokenGetsTheCallInItsLanguage() async throws {
        let voip = "b0b0000000000000000000000000000000000000000000000000000000000003"
        var body: [String: Any] = ["fcmToken": voip, "platform": "apns_ios_voip", "providerId": "apns-1", "languages": ["es-MX"]]
        #expect(try await harness.client("POST", "/notifications/push/v1/tokens", session: base.bob, body).status == 200)
        let call = try await send(PreferencesTests.call())
        #expect(call[voip]?["body"] as? String == "Llamada de voz")
        body["languages"] = ["pt-BR"]
        #expect(try await harness.client("POST", "/notifications/push/v1/tokens", session: base.bob, body).status == 200)
        #expect(try await send(PreferencesTests.call())[voip]?["body"] as? String == "Chamada de voz")
    }

    // MARK: The app's texts

    @Test func anAppsTextsOverrideAndExtendAndAMissingOneFallsBack() async throws {
        let saved = try await harness.admin(
            "PUT", "/apps/app1",
            ["templates": ["DE": ["reaction": "{sender} mag {text} {reaction}"], "it": ["callAudio": "Chiamata vocale"]]])
        #expect(saved.status == 200, "\(saved.json)")
        #expect(
            (saved.data["templates"] as? [String: Any])?["de"] as? [String: String] == ["reaction": "{sender} mag {text} {reaction}"])
        try await register(Self.bobsIPad, languages: ["it-IT", "en"])
        let reaction = try await send(Self.reaction())
        #expect(Self.body(reaction[Self.bobsPhone]) == "Alice mag Hello 👍")
        // Italian is the app's language; the reaction it did not write is English's.
        #expect(Self.body(reaction[Self.bobsIPad]) == "Alice reacted 👍 to: Hello")
        let call = try await send(PreferencesTests.call())
        #expect(Self.body(call[Self.bobsPhone]) == "Audioanruf")
        #expect(Self.body(call[Self.bobsIPad]) == "Chiamata vocale")

        // One language at a time: replaced, then removed (the built-in German is back).
        let german = try await harness.admin("PUT", "/apps/app1/templates/de", ["callAudio": "Anruf von {sender}"])
        #expect(german.status == 200, "\(german.json)")
        #expect((german.data["templates"] as? [String: Any])?["de"] as? [String: String] == ["callAudio": "Anruf von {sender}"])
        #expect(Self.body(try await send(PreferencesTests.call())[Self.bobsPhone]) == "Anruf von Alice")
        #expect(try await harness.admin("DELETE", "/apps/app1/templates/de").status == 200)
        #expect(try await harness.admin("DELETE", "/apps/app1/templates/de").status == 404)
        #expect(Self.body(try await send(Self.reaction())[Self.bobsPhone]) == "Alice hat mit 👍 reagiert: Hello")
        // The listing: the app's texts beside the built-in ones and each text's placeholders.
        let listing = try await harness.admin("GET", "/apps/app1/templates")
        #expect((listing.data["templates"] as? [String: Any])?.keys.sorted() == ["it"])
        #expect(((listing.data["builtIn"] as? [String: Any])?["de"] as? [String: String])?["callVideo"] == "Videoanruf")
        #expect(
            ((listing.data["names"] as? [String: Any])?["reaction"] as? [String: Any])?["placeholders"] as? [String]
                == ["sender", "reaction", "text"])
        // null removes every text.
        #expect(try await harness.admin("PUT", "/apps/app1", ["templates": NSNull()]).status == 200)
        #expect(Self.body(try await send(PreferencesTests.call())[Self.bobsIPad]) == "AUDIO CALL")
    }

    @Test(arguments: [
        (#"{"de": {"reaction": "{sender} {emoji}"}}"#, "templates.de.reaction", "unknown placeholder {emoji}"),
        (#"{"de": {"callAudio": "{sender}: {text}"}}"#, "templates.de.callAudio", "unknown placeholder {text}"),
        (#"{"de": {"reaction": "{sender"}}"#, "templates.de.reaction", "a { that no } closes"),
        (#"{"de": {"ringtone": "x"}}"#, "templates.de.ringtone", "unknown"),
        (#"{"de": {"reaction": "\#(String(repeating: "x", count: 257))"}}"#, "templates.de.reaction", "longer than 256 bytes"),
        (#"{"de": {"reaction": " "}}"#, "templates.de.reaction", "empty"),
        (#"{"de": {"reaction": 7}}"#, "templates.de.reaction", "not a string"),
        (#"{"de_CH": {"reaction": "x"}}"#, "templates.de_CH", "not a language tag"),
        (#"{"de": "x"}"#, "templates.de", "not an object"),
    ])
    func aBadTemplateIsRefusedNamingItAndNothingIsSaved(_ json: String, _ field: String, _ problem: String) async throws {
        let templates = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let refused = try await harness.admin("PUT", "/apps/app1", ["templates": templates, "name": "Renamed"])
        #expect(refused.status == 400)
        let details = (refused.json["error"] as? [String: Any])?["details"] as? [String: String]
        #expect(details?[field]?.hasPrefix(problem) == true, "\(refused.json)")
        let app = try await harness.admin("GET", "/apps/app1")
        #expect(app.data["name"] as? String != "Renamed")
        #expect((app.data["templates"] as? [String: Any])?.isEmpty == true)
        // The same through the per-language route.
        if let texts = templates["de"] as? [String: Any] {
            #expect(try await harness.admin("PUT", "/apps/app1/templates/de", texts).status == 400)
        }
    }

    @Test func aPreviewRendersADraftWithoutSavingIt() async throws {
        let preview = try await harness.admin(
            "POST", "/apps/app1/template-preview",
            [
                "languages": ["de-CH", "en"], "templates": ["de": ["reaction": "{sender} ❤️ {text}"]],
                "sample": ["sender": "Jonas", "text": "Bis morgen"],
            ])
        #expect(preview.status == 200, "\(preview.json)")
        #expect(preview.data["language"] as? String == "de")
        let texts = preview.data["texts"] as? [String: [String: Any]] ?? [:]
        #expect(texts["reaction"]?["text"] as? String == "Jonas ❤️ Bis morgen" && texts["reaction"]?["source"] as? String == "app")
        #expect(texts["callVideo"]?["text"] as? String == "Videoanruf" && texts["callVideo"]?["source"] as? String == "built-in")
        #expect((try await harness.admin("GET", "/apps/app1").data["templates"] as? [String: Any])?.isEmpty == true)
        // Right to left.
        let arabic = try await harness.admin("POST", "/apps/app1/template-preview", ["languages": ["ar"]])
        #expect(arabic.data["rightToLeft"] as? Bool == true)
        // A bad draft is refused as a save would be.
        let bad = try await harness.admin(
            "POST", "/apps/app1/template-preview", ["languages": ["de"], "templates": ["de": ["reaction": "{x}"]]])
        #expect(bad.status == 400)
        #expect(try await harness.admin("POST", "/apps/app1/template-preview", ["languages": "de"]).status == 400)
    }

    @Test func locKeysLetTheAppLocalizeOnTheDevice() async throws {
        #expect(try await harness.admin("PUT", "/apps/app1", ["locKeys": true]).status == 200)
        let group = try await send(PreferencesTests.chat(group: "team"))
        let alert = Self.alert(group[Self.bobsPhone])
        #expect(alert["loc-key"] as? String == "PN_GROUP_MESSAGE")
        #expect(alert["loc-args"] as? [String] == ["Alice", "Hello", "Team"])
        // The rendered text stays, for a device that does not localize.
        #expect(alert["body"] as? String == "Alice: Hello")
        let call = Self.alert(try await send(PreferencesTests.call())[Self.bobsIPad])
        #expect(call["loc-key"] as? String == "PN_AUDIO_CALL" && call["loc-args"] as? [String] == ["Alice"])
        // A direct message's body is its text: nothing to localize.
        #expect(Self.alert(try await send(PreferencesTests.chat())[Self.bobsPhone])["loc-key"] == nil)
        #expect(try await harness.admin("GET", "/apps/app1").data["locKeys"] as? Bool == true)
    }

    @Test func anEditOfAPendingGroupMessageIsWrittenInEachDevicesLanguage() async throws {
        #expect(try await harness.admin("PUT", "/apps/app1/templates/de", ["groupMessage": "{sender} schreibt: {text}"]).status == 200)
        var message = PreferencesTests.chat(group: "team")
        let sent = try await sendRequest(message)
        #expect(Self.body(sent.payloads[Self.bobsPhone]) == "Alice schreibt: Hello")
        #expect(Self.body(sent.payloads[Self.bobsIPad]) == "Alice: Hello")
        var edited = message["message"] as? [String: Any] ?? [:]
        edited["text"] = "Hello again"
        edited["action"] = "edited"
        message["message"] = edited
        let edit = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", message)
        #expect(edit.status == 200, "\(edit.json)")
        // No sender runs here: the original jobs are still pending and are rewritten in place,
        // each in its device's language.
        let rewritten = try await payloads(sent.requestId)
        #expect(Self.body(rewritten[Self.bobsPhone]) == "Alice schreibt: Hello again")
        #expect(Self.body(rewritten[Self.bobsIPad]) == "Alice: Hello again")
    }
}
