import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Urgency (issue 30 part 2): each alert's `interruption-level` and `relevance-score` from the
/// app's `deliveryPolicy`, decided per recipient on the send path, the recipient's preferences
/// winning, and the level and its reason in the delivery log and the trace. Built on
/// ``PreferencesTests``'s service (its clock is the test's: quiet hours are exact); runs on
/// SQLite, and on PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct UrgencyTests {
    let base: PreferencesTests
    var harness: Harness { base.harness }

    init() async throws {
        base = try await PreferencesTests()
        // Carol has an iPhone too (Bob's is registered by PreferencesTests).
        try await base.register("ca20000000000000000000000000000000000000000000000000000000000001", platform: "apns_ios_device", base.carol)
    }

    /// One pushed job: what the payload, the delivery log and the trace say about it.
    struct Pushed {
        var uid: String
        var state: String
        var rule: String?
        var aps: [String: Any]
        /// The log's `interruptionLevel` and `levelReason`.
        var level: String?
        var reason: String?
        /// The trace's device entry (nil for a skipped push, which the trace lists apart).
        var traced: [String: Any]?
    }

    /// Sets app1's `deliveryPolicy`.
    func setPolicy(_ policy: Any) async throws {
        let response = try await harness.admin("PUT", "/apps/app1", ["deliveryPolicy": policy])
        #expect(response.status == 200, "\(response.json)")
    }

    /// Sends and returns every job, in the order of the log.
    func send(_ body: [String: Any]) async throws -> [Pushed] {
        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(response.status == 200, "\(response.json)")
        let requestId = try #require(response.data["requestId"] as? String)
        let path = "/notifications/push/v1/send/\(requestId)"
        let log = try await harness.admin("GET", path + "/log", appId: "app1").dataArray
        let jobs = try await harness.admin("GET", path + "/jobs", appId: "app1").dataArray
        let trace = try await harness.admin("GET", path + "/trace", appId: "app1").data
        let devices = (trace["recipients"] as? [[String: Any]] ?? []).flatMap { $0["devices"] as? [[String: Any]] ?? [] }
        return log.map { entry in
            let id = entry["id"] as? String
            let payload = jobs.first { $0["id"] as? String == id }?["payload"] as? [String: Any] ?? [:]
            return Pushed(
                uid: entry["uid"] as? String ?? "", state: entry["state"] as? String ?? "", rule: entry["rule"] as? String,
                aps: payload["aps"] as? [String: Any] ?? [:], level: entry["interruptionLevel"] as? String,
                reason: entry["levelReason"] as? String, traced: devices.first { $0["pushId"] as? String == id })
        }
    }

    /// Expects a sent push with `level`, `relevance` and `reason` in its payload, log and trace.
    func expect(
        _ push: Pushed?, level: String, relevance: Double?, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let push else {
            Issue.record("no push", sourceLocation: sourceLocation)
            return
        }
        #expect(push.state == "pending", sourceLocation: sourceLocation)
        #expect(push.aps["interruption-level"] as? String == level, sourceLocation: sourceLocation)
        #expect((push.aps["relevance-score"] as? NSNumber)?.doubleValue == relevance, sourceLocation: sourceLocation)
        #expect(
            push.level == level && push.reason == reason, "log: \(push.level ?? "nil") \(push.reason ?? "nil")",
            sourceLocation: sourceLocation)
        #expect(push.traced?["interruptionLevel"] as? String == level, sourceLocation: sourceLocation)
        #expect(push.traced?["levelReason"] as? String == reason, sourceLocation: sourceLocation)
    }

    static func reaction(to recipients: [String] = ["bob"]) -> [String: Any] {
        var body = PreferencesTests.chat(to: recipients)
        var message = body["message"] as? [String: Any] ?? [:]
        message["category"] = "reaction"
        message["reaction"] = "👍"
        body["message"] = message
        return body
    }

    // MARK: The send path

    @Test func aReactionArrivesPassiveAndADirectMessageActive() async throws {
        let reaction = try await send(Self.reaction())
        #expect(reaction.count == 1)
        expect(reaction.first, level: "passive", relevance: 0.2, reason: "reaction")
        // Passive is quiet by itself on iOS 15 and later; the sound stays for older versions.
        #expect(reaction.first?.aps["sound"] as? String == "default")
        let message = try await send(PreferencesTests.chat())
        expect(message.first, level: "active", relevance: 0.7, reason: "direct")
        var action = PreferencesTests.chat(group: "team")
        action["message"] = (action["message"] as? [String: Any] ?? [:]).merging(["category": "action"]) { $1 }
        expect(try await send(action).first, level: "passive", relevance: 0.1, reason: "action")
    }

    @Test func aMentionBreaksThroughMentionsOnlyAndIsTimeSensitiveWhenAllowed() async throws {
        try await setPolicy(["timeSensitive": true])
        #expect(try await base.put("/groups/team", ["level": "mentions"]).status == 200)
        // A group message that mentions nobody: Bob (mentions only) skipped, Carol notified.
        let plain = try await send(PreferencesTests.chat(group: "team", to: ["bob", "carol"]))
        let skipped = try #require(plain.first { $0.uid == "bob" })
        #expect(skipped.state == "skipped" && skipped.rule == "group-mentions-only" && skipped.level == nil && skipped.traced == nil)
        expect(plain.first { $0.uid == "carol" }, level: "active", relevance: 0.5, reason: "group")
        // Mentioning Bob: it reaches him time-sensitive (through a Focus); for Carol it stays a
        // group message, decided per recipient.
        let mention = try await send(PreferencesTests.chat(group: "team", mentions: ["bob"], to: ["bob", "carol"]))
        expect(mention.first { $0.uid == "bob" }, level: "time-sensitive", relevance: 0.9, reason: "mention")
        #expect(mention.first { $0.uid == "bob" }?.rule == nil)
        expect(mention.first { $0.uid == "carol" }, level: "active", relevance: 0.5, reason: "group")
        // A 1:1 message that mentions the recipient is a mention too.
        expect(
            try await send(PreferencesTests.chat(mentions: ["bob"])).first, level: "time-sensitive", relevance: 0.9, reason: "mention")
    }

    @Test func quietHoursStillWin() async throws {
        try await setPolicy(["timeSensitive": true])
        // Now is 12:00 in Tokyo, 04:00 in Paris (Bob's zone).
        #expect(try await base.put("/quiet-hours", ["start": "02:00", "end": "06:00"]).status == 200)
        let mention = try await send(PreferencesTests.chat(group: "team", mentions: ["bob"]))
        expect(mention.first, level: "passive", relevance: 0.9, reason: "quiet-hours")
        #expect(mention.first?.rule == "quiet-hours")
        #expect(mention.first?.aps["sound"] == nil)
        // A ringing call to an alert token, with calls included: passive, silent.
        #expect(try await base.put("/quiet-hours", ["start": "02:00", "end": "06:00", "includeCalls": true]).status == 200)
        let call = try await send(PreferencesTests.call())
        expect(call.first, level: "passive", relevance: 1, reason: "quiet-hours-calls")
        #expect(call.first?.aps["sound"] == nil)
    }

    @Test func timeSensitiveNeedsTheCapability() async throws {
        // Without the capability the defaults are active; a time-sensitive level the app set
        // goes out active, and the trace says why.
        try await setPolicy(["levels": ["direct": "time-sensitive", "reaction": "active"], "relevance": ["reaction": 0.6]])
        expect(
            try await send(PreferencesTests.chat()).first, level: "active", relevance: 0.7,
            reason: "direct; time-sensitive not enabled")
        expect(try await send(Self.reaction()).first, level: "active", relevance: 0.6, reason: "reaction")
        expect(try await send(PreferencesTests.chat(mentions: ["bob"])).first, level: "active", relevance: 0.9, reason: "mention")
        try await setPolicy(["timeSensitive": true, "levels": ["mention": "active"]])
        expect(try await send(PreferencesTests.chat()).first, level: "time-sensitive", relevance: 0.7, reason: "direct")
        expect(try await send(PreferencesTests.chat(mentions: ["bob"])).first, level: "active", relevance: 0.9, reason: "mention")
        expect(try await send(PreferencesTests.chat(group: "team")).first, level: "active", relevance: 0.5, reason: "group")
    }

    @Test func aRingingCallToAnAlertTokenIsTimeSensitiveWhenAllowedAndVoIPHasNoLevel() async throws {
        expect(try await send(PreferencesTests.call()).first, level: "active", relevance: 1, reason: "call")
        try await setPolicy(["timeSensitive": true])
        expect(try await send(PreferencesTests.call()).first, level: "time-sensitive", relevance: 1, reason: "call")
        // Other call actions on alert tokens keep their plain alert.
        var ended = PreferencesTests.call()
        ended["call"] = (ended["call"] as? [String: Any] ?? [:]).merging(["callAction": "ended"]) { $1 }
        let update = try #require(try await send(ended).first)
        #expect(update.aps["interruption-level"] == nil && update.aps["relevance-score"] == nil)
        #expect(update.level == nil && update.traced?["interruptionLevel"] == nil)
        // With a VoIP token the call rings through PushKit: no `aps` keys, no level.
        try await base.register("b0b00000000000000000000000000000000000000000000000000000000000ff", platform: "apns_ios_voip", base.bob)
        let voip = try #require(try await send(PreferencesTests.call()).first)
        #expect(voip.aps.isEmpty)
        #expect(voip.level == nil && voip.reason == nil && voip.traced?["interruptionLevel"] == nil)
    }

    @Test func campaignsHaveNoLevel() async throws {
        try await setPolicy(["timeSensitive": true])
        let campaign = try #require(
            try await send([
                "type": "campaign", "recipients": [["uid": "bob"]],
                "campaign": ["id": "ann-1", "campaignId": "c-1", "title": "Sale", "body": "Half off"],
            ]).first)
        #expect(campaign.aps["interruption-level"] == nil && campaign.aps["relevance-score"] == nil && campaign.level == nil)
    }

    // MARK: The app's policy

    func app(_ id: String = "app1") async throws -> [String: Any] {
        try await harness.admin("GET", "/apps/\(id)").data
    }

    static func json(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else {
            return "nil"
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func thePolicyIsSetWithTheAppAndShownAsSetAndInEffect() async throws {
        let standard = try await app()
        #expect(Self.json(standard["deliveryPolicy"]) == #"{"levels":{},"relevance":{},"timeSensitive":false}"#)
        #expect(
            Self.json(standard["effectiveDeliveryPolicy"])
                == #"{"levels":{"action":"passive","call":"active","direct":"active","group":"active","mention":"active","reaction":"passive"},"#
                + #""relevance":{"action":0.1,"call":1,"direct":0.7,"group":0.5,"mention":0.9,"reaction":0.2},"timeSensitive":false}"#)

        let policy: [String: Any] = ["timeSensitive": true, "levels": ["reaction": "active"], "relevance": ["mention": 1]]
        let created = try await harness.admin("POST", "/apps", ["appId": "app2", "deliveryPolicy": policy])
        #expect(created.status == 200, "\(created.json)")
        #expect(Self.json(created.data["deliveryPolicy"]) == Self.json(policy))
        for shown in [created.data, try await app("app2")] {
            let effective = shown["effectiveDeliveryPolicy"] as? [String: Any] ?? [:]
            let levels = effective["levels"] as? [String: String] ?? [:]
            #expect(levels["direct"] == "time-sensitive" && levels["mention"] == "time-sensitive" && levels["call"] == "time-sensitive")
            #expect(levels["reaction"] == "active" && levels["group"] == "active")
            #expect(((effective["relevance"] as? [String: Any])?["mention"] as? NSNumber)?.doubleValue == 1)
        }
        // An update without the field keeps it; with it, replaces it; null restores the defaults.
        #expect(try await harness.admin("PUT", "/apps/app2", ["name": "Renamed"]).status == 200)
        #expect(Self.json(try await app("app2")["deliveryPolicy"]) == Self.json(policy))
        let replaced = try await harness.admin("PUT", "/apps/app2", ["deliveryPolicy": ["levels": ["group": "passive"]]])
        #expect(Self.json(replaced.data["deliveryPolicy"]) == #"{"levels":{"group":"passive"},"relevance":{},"timeSensitive":false}"#)
        #expect(Self.json(try await app("app2")["deliveryPolicy"]) == Self.json(replaced.data["deliveryPolicy"]))
        let cleared = try await harness.admin("PUT", "/apps/app2", ["deliveryPolicy": NSNull()])
        #expect(Self.json(cleared.data["deliveryPolicy"]) == Self.json(standard["deliveryPolicy"]))
        #expect(Self.json(try await app("app2")["effectiveDeliveryPolicy"]) == Self.json(standard["effectiveDeliveryPolicy"]))
    }

    /// A refused policy: 400 naming the field, on create and update, and nothing changes.
    @Test(arguments: [
        (#""loud""#, "deliveryPolicy"),
        (#"{"urgent":true}"#, "deliveryPolicy.urgent"),
        (#"{"timeSensitive":"yes"}"#, "deliveryPolicy.timeSensitive"),
        (#"{"levels":["active"]}"#, "deliveryPolicy.levels"),
        (#"{"levels":{"dm":"active"}}"#, "deliveryPolicy.levels.dm"),
        (#"{"levels":{"call":"critical"}}"#, "deliveryPolicy.levels.call"),
        (#"{"levels":{"call":"loud"}}"#, "deliveryPolicy.levels.call"),
        (#"{"levels":{"call":1}}"#, "deliveryPolicy.levels.call"),
        (#"{"relevance":{"mention":1.5}}"#, "deliveryPolicy.relevance.mention"),
        (#"{"relevance":{"mention":-0.1}}"#, "deliveryPolicy.relevance.mention"),
        (#"{"relevance":{"mention":true}}"#, "deliveryPolicy.relevance.mention"),
        (#"{"relevance":{"mention":"1"}}"#, "deliveryPolicy.relevance.mention"),
        (#"{"relevance":{"everyone":0.5}}"#, "deliveryPolicy.relevance.everyone"),
    ])
    func aBadPolicyIsRefusedNamingTheField(_ policy: String, _ field: String) async throws {
        let value = try JSONSerialization.jsonObject(with: Data(policy.utf8), options: [.fragmentsAllowed])
        let before = try await app()
        for (method, path, body) in [
            ("POST", "/apps", ["appId": "app3", "deliveryPolicy": value] as [String: Any]),
            ("PUT", "/apps/app1", ["name": "Changed", "deliveryPolicy": value]),
        ] {
            let response = try await harness.admin(method, path, body)
            #expect(response.status == 400, "\(method) \(policy)")
            #expect(response.errorCode == "ERR_BAD_REQUEST")
            let details = (response.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]
            #expect(Array(details.keys) == [field], "\(details)")
            if policy.contains("critical") {
                #expect(((response.json["error"] as? [String: Any])?["message"] as? String)?.contains("critical") == true)
            }
        }
        #expect(try await harness.admin("GET", "/apps/app3").status == 404)
        #expect(Self.json(try await app()) == Self.json(before))
    }

    // MARK: The policy itself

    @Test func theDefaultsRankMentionsAboveDirectAboveGroupAboveReactions() {
        let policy = DeliveryPolicy.standard
        let score = policy.relevanceScore
        #expect(score(.mention) > score(.direct) && score(.direct) > score(.group) && score(.group) > score(.reaction))
        #expect(DeliveryPolicy.Level.allCases.map(\.rawValue) == ["passive", "active", "time-sensitive"])
        // What a store keeps, and what it reads back; text it cannot read is the defaults.
        let set = DeliveryPolicy(timeSensitive: true, levels: [.reaction: .active], relevance: [.group: 0.25])
        #expect(DeliveryPolicy(storedText: set.storedText) == set)
        #expect(DeliveryPolicy.standard.storedText == nil)
        #expect(DeliveryPolicy(storedText: "{not json") == .standard)
        #expect(
            DeliveryPolicy(storedText: #"{"timeSensitive":true,"levels":{"reaction":"critical","later":"active"},"relevance":{"group":2}}"#)
                == DeliveryPolicy(timeSensitive: true))
    }
}
