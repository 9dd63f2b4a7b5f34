import Foundation
import PushCore
import PushService
import PushTestSupport
import Testing

/// The dashboard's pages and assets as served (the browser test drives them in Chromium:
/// Server/Scripts/dashboard-test.sh), and the admin JSON it reads.
@Suite struct DashboardTests {
    @Test func everyPageAndAssetIsServedWithAStrictPolicy() async throws {
        let harness = try await Harness.start()
        for path in Dashboard.paths + ["/dashboard/", "/dashboard/providers?app=x"] {
            let response = try await harness.request("GET", path)
            #expect(response.status == 200, "\(path)")
            let policy = response.headers["content-security-policy"] ?? ""
            #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && !policy.contains("unsafe"), "\(path)")
            #expect(response.headers["x-frame-options"] == "DENY" && response.headers["x-content-type-options"] == "nosniff")
            #expect(response.headers["cache-control"] == "no-store")
            let body = String(decoding: response.body, as: UTF8.self)
            if path.hasSuffix(".js") {
                #expect(response.headers["content-type"]?.hasPrefix("text/javascript") == true)
            } else if path.hasSuffix(".css") {
                #expect(response.headers["content-type"]?.hasPrefix("text/css") == true)
            } else {
                #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
                // Only the dashboard's own script, nothing inline (the policy would refuse it anyway).
                #expect(
                    body.components(separatedBy: "<script").count == 2
                        && body.contains(#"<script src="/dashboard/assets/dashboard.js" defer></script>"#))
                #expect(!body.contains(" style=") && !body.contains(" onclick="))
                #expect(body.contains(#"<html lang="en">"#) && body.contains(#"<main id="main""#))
            }
        }
        #expect(try await harness.request("GET", "/dashboard/nope").status == 404)
        #expect(try await harness.request("POST", "/dashboard").status == 405)
    }

    /// Server values reach the page as text only: the script never parses HTML.
    @Test func theScriptNeverWritesHTML() async throws {
        let harness = try await Harness.start()
        let script = String(
            decoding: try await harness.request("GET", "/dashboard/assets/dashboard.js").body, as: UTF8.self)
        #expect(script.count > 1000)
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
            #expect(!script.contains(sink), "the script uses \(sink)")
        }
        #expect(script.contains("sessionStorage") && !script.contains("localStorage") && !script.contains("document.cookie"))
        #expect(script.contains(#"credentials: "omit""#))
        // The apps page's editors (issue 30) use the admin API's own routes.
        for route in [#""/template-preview""#, #""/templates/""#, "badge: value", "locKeys: locKeys.checked"] {
            #expect(script.contains(route), "the script lacks \(route)")
        }
        // The user pushes page (issue 31 part 3): a user's pushes a page at a time, the stats
        // of the last hour, and its charts drawn as SVG elements (no markup, no library).
        for route in [
            #""/pushes?limit=""#, #""&before=""#, #""/notifications/push/v1/stats?minutes=""#, "createElementNS",
            #""http://www.w3.org/2000/svg""#,
        ] {
            #expect(script.contains(route), "the script lacks \(route)")
        }
    }

    /// What the user pushes page reads (issue 31 part 3): the user's pushes with each one's
    /// trace and the `next` cursor, the API's message for an unknown uid (shown as it is), and
    /// every minute of the last hour's stats with the counts the charts draw.
    @Test func theUserPushesPageReadsTheHistoryAndTheStats() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp("app1")
        let alice = try await harness.makeUser("alice")
        try await harness.register(String(repeating: "a1", count: 32), platform: "apns_ios_device", session: alice)
        let page = String(decoding: try await harness.request("GET", "/dashboard/pushes").body, as: UTF8.self)
        #expect(page.contains(#"<a data-slug="pushes" href="/dashboard/pushes" aria-current="page">User pushes</a>"#))
        #expect(page.contains(#"data-page="pushes""#))

        var requests: [String] = []
        for _ in 0..<3 {
            let sent = try await harness.admin(
                "POST", "/notifications/push/v1/send", appId: "app1", PreferencesTests.chat(from: "bob", to: ["alice"]))
            requests.append(try #require(sent.data["requestId"] as? String))
        }
        let first = try await harness.admin("GET", "/users/alice/pushes?limit=2", appId: "app1")
        #expect(first.status == 200, "\(first.json)")
        let pushes = first.data["pushes"] as? [[String: Any]] ?? []
        #expect(pushes.count == 2 && first.data["uid"] as? String == "alice")
        let push = try #require(pushes.first)
        for key in ["requestId", "pushId", "kind", "state", "createdAt", "rule", "device"] {
            #expect(push[key] != nil, "a push lacks \(key)")
        }
        #expect(push["kind"] as? String == "chat" && push["rule"] is NSNull)
        let device = push["device"] as? [String: Any] ?? [:]
        #expect((device["steps"] as? [[String: Any]])?.compactMap { $0["step"] as? String }.prefix(2) == ["accepted", "preferences"])
        #expect(device["token"] as? String == "a1a1a1a1…" && device["platform"] as? String == "apns_ios_device")
        #expect(device["interruptionLevel"] as? String == "active" && device["levelReason"] is String)
        let next = try #require(first.data["next"] as? String)
        let second = try await harness.admin("GET", "/users/alice/pushes?limit=2&before=" + next, appId: "app1")
        let older = second.data["pushes"] as? [[String: Any]] ?? []
        #expect(older.count == 1 && second.data["next"] is NSNull)
        // Newest first (by creation, then id: sends of one millisecond keep a fixed order).
        let all = pushes + older
        #expect(Set(all.compactMap { $0["requestId"] as? String }) == Set(requests))
        let keys = all.map { ($0["createdAt"] as? Int ?? 0, $0["pushId"] as? String ?? "") }
        #expect(keys.map(\.1) == keys.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 > $1.1 }.map(\.1))

        let unknown = try await harness.admin("GET", "/users/nobody/pushes?limit=10", appId: "app1")
        let error = unknown.json["error"] as? [String: Any] ?? [:]
        #expect(
            unknown.status == 404 && error["code"] as? String == "ERR_UID_NOT_FOUND"
                && error["message"] as? String == "No user has this uid.")

        let stats = try await harness.admin("GET", "/notifications/push/v1/stats?minutes=60", appId: "app1")
        #expect(stats.status == 200, "\(stats.json)")
        let minutes = stats.data["minutes"] as? [[String: Any]] ?? []
        let counts = ["accepted", "delivered", "failed", "expired", "skipped", "inFlight"]
        #expect(minutes.count == 60 && minutes.allSatisfy { minute in (["at"] + counts).allSatisfy { minute[$0] is Int } })
        #expect((minutes.first?["at"] as? Int).map(Int64.init) == (stats.data["since"] as? Int).map(Int64.init))
        let totals = stats.data["totals"] as? [String: Int] ?? [:]
        #expect(Set(totals.keys) == Set(counts) && totals["accepted"] == 3 && totals["inFlight"] == 3, "\(totals)")
        #expect(minutes.reduce(0) { $0 + ($1["accepted"] as? Int ?? 0) } == 3)
    }

    /// What the apps page's badge select and texts editor read and write (issue 30): the app's
    /// `badge` and `locKeys`, the built-in texts and placeholders, the preview, and a refusal
    /// whose `details` key ends with the template's name (the editor shows it next to that
    /// input, for a preview's draft and for a save alike).
    @Test func theAppsPageReadsTheBadgeDefaultAndTheTexts() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp("app1")
        let apps = try await harness.admin("GET", "/apps")
        let app = apps.dataArray.first ?? [:]
        #expect(app["badge"] as? String == "caller" && app["locKeys"] as? Bool == false)
        #expect(try await harness.admin("PUT", "/apps/app1", ["badge": "auto"]).data["badge"] as? String == "auto")

        let texts = try await harness.admin("GET", "/apps/app1/templates")
        let names = texts.data["names"] as? [String: [String: Any]] ?? [:]
        #expect(names.keys.sorted() == ["callAudio", "callVideo", "groupMessage", "reaction"])
        #expect(names["reaction"]?["placeholders"] as? [String] == ["sender", "reaction", "text"])
        let builtIn = texts.data["builtIn"] as? [String: [String: String]] ?? [:]
        #expect(builtIn["de"]?["reaction"] == "{sender} hat mit {reaction} reagiert: {text}" && builtIn["ar"] != nil)
        #expect(texts.data["fallbackLanguage"] as? String == "en")

        let sample = ["sender": "Ana", "text": "See you at 5?", "group": "Hiking club", "reaction": "👍"]
        let preview = try await harness.admin(
            "POST", "/apps/app1/template-preview",
            ["languages": ["de"], "templates": ["de": ["reaction": "{sender} findet {text} {reaction}"]], "sample": sample])
        let reaction = (preview.data["texts"] as? [String: [String: Any]])?["reaction"] ?? [:]
        #expect(reaction["text"] as? String == "Ana findet See you at 5? 👍" && reaction["source"] as? String == "app")
        let arabic = try await harness.admin("POST", "/apps/app1/template-preview", ["languages": ["ar-EG"], "sample": sample])
        #expect(arabic.data["rightToLeft"] as? Bool == true && arabic.data["language"] as? String == "ar")

        func details(_ response: RawHTTP.Response) -> [String: String] {
            ((response.json["error"] as? [String: Any])?["details"] as? [String: String]) ?? [:]
        }
        let refused = try await harness.admin(
            "POST", "/apps/app1/template-preview", ["languages": ["de"], "templates": ["de": ["reaction": "{sender} {emoji}"]]])
        #expect(refused.status == 400 && details(refused).keys.map { $0.split(separator: ".").last } == ["reaction"])
        #expect(details(refused).values.first?.contains("unknown placeholder {emoji}") == true)
        let save = try await harness.admin("PUT", "/apps/app1/templates/de", ["reaction": "{sender} {emoji}"])
        #expect(save.status == 400 && details(save).keys.map { $0.split(separator: ".").last } == ["reaction"])
        #expect((try await harness.admin("GET", "/apps/app1/templates").data["templates"] as? [String: Any])?.isEmpty == true)
    }

    @Test func navigationMarksTheCurrentPage() async throws {
        let harness = try await Harness.start()
        let page = String(decoding: try await harness.request("GET", "/dashboard/tokens").body, as: UTF8.self)
        #expect(page.contains(#"<a data-slug="tokens" href="/dashboard/tokens" aria-current="page">Tokens</a>"#))
        #expect(page.components(separatedBy: "aria-current").count == 2)
        #expect(page.contains(#"data-page="tokens""#) && page.contains(#"id="sign-out""#))
        let signIn = String(decoding: try await harness.request("GET", "/dashboard").body, as: UTF8.self)
        #expect(signIn.contains(#"data-page="signin""#) && !signIn.contains("sign-out"))
    }

    /// What the engine knows, through the admin API; never a secret.
    struct FixedStatus: DeliveryStatus {
        let health: ProviderHealth
        func providerHealth(appId: String, providerId: String) -> ProviderHealth {
            providerId == "apns-1" ? health : ProviderHealth()
        }
    }

    @Test func providerHealthWithoutAndWithTheEngine() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp("app1")
        #expect(try await harness.admin("GET", "/admin/providers/health").status == 401)
        #expect(try await harness.json("GET", "/admin/providers/health", headers: ["appid": "app1"]).status == 401)

        let idle = try await harness.admin("GET", "/admin/providers/health", appId: "app1")
        #expect(idle.status == 200)
        #expect(idle.data["engine"] as? String == "none")
        let providers = idle.data["providers"] as? [[String: Any]] ?? []
        #expect(providers.map { $0["providerId"] as? String } == ["apns-1", "fcm-1"])
        let apns = providers[0]
        #expect(apns["environment"] as? String == "sandbox" && apns["key"] as? String == "sealed")
        #expect(apns["lastSuccessAt"] is NSNull && apns["lastErrorReason"] is NSNull && apns["jwtAgeSeconds"] is NSNull)
        #expect(apns["circuitBreaker"] as? String == "n/a" && apns["connections"] as? Int == 0)
        #expect(!String(decoding: idle.body, as: UTF8.self).contains("PRIVATE KEY"))
        let outbox = try await harness.admin("GET", "/admin/outbox")
        #expect(outbox.data["deliveryEngine"] as? String == "none")

        var health = ProviderHealth()
        let now = Date()
        health.lastSuccessAt = now.addingTimeInterval(-5)
        health.lastErrorAt = now.addingTimeInterval(-3)
        health.lastErrorReason = "BadDeviceToken"
        health.delivered = 7
        health.failed = 2
        health.tokenIssuedAt = now.addingTimeInterval(-125)
        health.connections = 4
        health.connectionsUp = 3
        harness.app.attach(deliveryStatus: FixedStatus(health: health))
        let live = try await harness.admin("GET", "/admin/providers/health", appId: "app1")
        #expect(live.data["engine"] as? String == "none", "the sender the engine drives")
        let entry = (live.data["providers"] as? [[String: Any]] ?? []).first ?? [:]
        #expect(entry["lastSuccessAt"] as? Int == Int(now.timeIntervalSince1970) - 5)
        #expect(entry["lastErrorReason"] as? String == "BadDeviceToken" && entry["delivered"] as? Int == 7 && entry["failed"] as? Int == 2)
        #expect((124...127).contains(entry["jwtAgeSeconds"] as? Int ?? 0))
        #expect(entry["connections"] as? Int == 4 && entry["connectionsUp"] as? Int == 3)
        #expect(try await harness.admin("GET", "/admin/outbox").data["deliveryEngine"] as? String == "none")
    }
}
