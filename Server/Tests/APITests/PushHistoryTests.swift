import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// "What happened to Alice's push?" (issue 31 part 3): a user's pushes, newest first, each with
/// its trace, paged without losing pushes created in the same millisecond; and an app's pushes
/// per minute for the dashboard's charts. Built on ``PreferencesTests``'s service (a fixed
/// clock: every push of a test is made in the same millisecond); runs on SQLite, and on
/// PostgreSQL with `PUSH_TEST_DATABASE_URL`.
@Suite struct PushHistoryTests {
    let base: PreferencesTests
    var harness: Harness { base.harness }

    init() async throws {
        base = try await PreferencesTests()
        // Bob has an iPad too (his iPhone is registered by PreferencesTests).
        try await base.register("b0b0000000000000000000000000000000000000000000000000000000000002", platform: "apns_ios_device", base.bob)
    }

    func send(_ body: [String: Any]) async throws -> String {
        let response = try await harness.admin("POST", "/notifications/push/v1/send", appId: "app1", body)
        #expect(response.status == 200, "\(response.json)")
        return try #require(response.data["requestId"] as? String)
    }

    func pushes(_ query: String = "") async throws -> RawHTTP.Response {
        try await harness.admin("GET", "/users/bob/pushes" + query, appId: "app1")
    }

    @Test func aUsersPushesComeNewestFirstWithTheirTraceAndEveryPageFollowsWithoutALoss() async throws {
        // Three sends to Bob's two devices, all in one millisecond (the test's clock stands still).
        var requests: [String] = []
        for _ in 0..<3 { requests.append(try await send(PreferencesTests.chat())) }
        // Carol's push is not Bob's.
        _ = try await send(PreferencesTests.chat(to: ["carol"]))
        // Bob opens one push: its trace says so.
        let first = try #require(
            try await harness.admin("GET", "/notifications/push/v1/send/\(requests[0])/jobs", appId: "app1").dataArray.first)
        let openedId = try #require(first["id"] as? String)
        #expect(try await harness.client("POST", "/notifications/push/v1/pushes/\(openedId)/opened", session: base.bob).status == 200)

        // Pages of two, then of one: six pushes, each once, in order (created, then id, descending).
        var seen: [[String: Any]] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await pushes("?limit=\(pages == 0 ? 2 : 1)" + (cursor.map { "&before=\($0)" } ?? ""))
            #expect(page.status == 200, "\(page.json)")
            seen += page.data["pushes"] as? [[String: Any]] ?? []
            cursor = page.data["next"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        let ids = seen.compactMap { $0["pushId"] as? String }
        #expect(ids.count == 6 && Set(ids).count == 6, "\(ids)")
        // 2 + 1 + 1 + 1 + 1: the last page says there is none after it.
        #expect(pages == 5)
        #expect(Set(seen.compactMap { $0["requestId"] as? String }) == Set(requests))
        let keys = seen.map { ($0["createdAt"] as? Int64 ?? Int64($0["createdAt"] as? Int ?? 0), $0["pushId"] as? String ?? "") }
        #expect(keys.map(\.1) == keys.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 > $1.1 }.map(\.1))
        // Each entry carries its device's trace; the opened one its `opened` step.
        let opened = try #require(seen.first { $0["pushId"] as? String == openedId })
        let steps = ((opened["device"] as? [String: Any])?["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
        #expect(steps == ["accepted", "preferences", "opened"])
        #expect((opened["device"] as? [String: Any])?["interruptionLevel"] as? String == "active")
    }

    @Test func aSkippedPushEndsAtThePreferencesWithItsRule() async throws {
        #expect(try await base.put("/mutes", ["receiverType": "user", "receiver": "alice"]).status == 200)
        _ = try await send(PreferencesTests.chat())
        let page = try await pushes()
        let entries = page.data["pushes"] as? [[String: Any]] ?? []
        #expect(entries.count == 2)
        for entry in entries {
            #expect(entry["state"] as? String == "skipped" && entry["rule"] as? String == "muted")
            let device = entry["device"] as? [String: Any] ?? [:]
            #expect((device["steps"] as? [[String: Any]])?.compactMap { $0["step"] as? String } == ["accepted", "preferences"])
            #expect((device["stoppedAt"] as? [String: Any])?["reason"] as? String == "muted")
        }
        #expect(page.data["next"] is NSNull)
    }

    @Test func refusalsNameTheParameterAndAnUnknownUserIs404() async throws {
        for query in ["?limit=0", "?limit=101", "?limit=x", "?before=12", "?before=x.y.z", "?before=-1.abc"] {
            let refused = try await pushes(query)
            #expect(refused.status == 400, "\(query)")
            let field = query.dropFirst().split(separator: "=").first.map(String.init)
            #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: String])?.keys.first == field, "\(query)")
        }
        #expect(try await harness.admin("GET", "/users/nobody/pushes", appId: "app1").status == 404)
        #expect(try await harness.admin("GET", "/notifications/push/v1/stats?minutes=0", appId: "app1").status == 400)
        #expect(try await harness.admin("GET", "/notifications/push/v1/stats?minutes=1441", appId: "app1").status == 400)
    }

    @Test func theAppsPushesPerMinuteCountEveryMinuteOfTheWindowAndWhatBecameOfThem() async throws {
        _ = try await send(PreferencesTests.chat())
        #expect(try await base.put("/mutes", ["receiverType": "user", "receiver": "alice"]).status == 200)
        _ = try await send(PreferencesTests.chat())
        let stats = try await harness.admin("GET", "/notifications/push/v1/stats?minutes=5", appId: "app1")
        #expect(stats.status == 200, "\(stats.json)")
        let minutes = stats.data["minutes"] as? [[String: Any]] ?? []
        #expect(minutes.count == 5)
        // Minute by minute, oldest first, the last one now's.
        let starts = minutes.compactMap { ($0["at"] as? Int).map(Int64.init) ?? $0["at"] as? Int64 }
        #expect(starts == starts.sorted() && Set(starts.map { $0 % 60_000 }) == [0])
        let now = Int64(base.clock.now.timeIntervalSince1970 * 1000)
        #expect(starts.last.map { now - $0 }.map { (0..<60_000).contains($0) } == true)
        let totals = stats.data["totals"] as? [String: Int] ?? [:]
        #expect(totals["accepted"] == 4 && totals["skipped"] == 2 && totals["inFlight"] == 2 && totals["delivered"] == 0, "\(totals)")
        #expect(minutes.last?["accepted"] as? Int == 4)
        // Another app's pushes are not this app's.
        #expect(try await harness.admin("GET", "/notifications/push/v1/stats", appId: "app2").status != 200)
    }
}
