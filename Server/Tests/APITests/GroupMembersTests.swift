import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Group membership through the admin API (issue 31): `PUT`/`POST /groups/{guid}/members`
/// replace and add (creating the group), `DELETE …/members/{uid}` removes one, `GET` pages in
/// uid order, `DELETE /groups/{guid}` deletes; at most 5,000 uids per body, each checked as an
/// id, refusals naming the field; unknown groups 404 `ERR_GROUP_NOT_FOUND`. Both stores.
@Suite struct GroupMembersTests {
    /// `details` of an error answer.
    static func details(_ response: RawHTTP.Response) -> [String: Any] {
        (response.json["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:]
    }

    static func started() async throws -> Harness {
        let harness = try await Harness.start()
        try await harness.makeApp()
        return harness
    }

    @Test func replaceAddRemoveListAndDelete() async throws {
        let harness = try await Self.started()
        // PUT creates the group; members need not be users (none of these is one).
        var answer = try await harness.admin("PUT", "/groups/team/members", appId: "app1", ["uids": ["carol", "alice", "bob", "alice"]])
        #expect(answer.status == 200, "\(answer.json)")
        #expect(answer.data["guid"] as? String == "team")
        #expect(answer.data["count"] as? Int == 3)
        #expect(answer.data["added"] as? Int == 3)
        #expect(answer.data["removed"] as? Int == 0)
        // POST adds; uids already members change nothing.
        answer = try await harness.admin("POST", "/groups/team/members", appId: "app1", ["uids": ["dave", "bob"]])
        #expect(answer.status == 200 && answer.data["count"] as? Int == 4 && answer.data["added"] as? Int == 1, "\(answer.json)")
        // GET lists in uid order, a page at a time.
        var page = try await harness.admin("GET", "/groups/team/members?limit=3", appId: "app1")
        #expect(page.status == 200, "\(page.json)")
        #expect(page.data["members"] as? [String] == ["alice", "bob", "carol"])
        #expect(page.data["next"] as? String == "carol")
        #expect(page.data["count"] as? Int == 4)
        page = try await harness.admin("GET", "/groups/team/members?after=carol&limit=3", appId: "app1")
        #expect(page.data["members"] as? [String] == ["dave"])
        #expect(page.data["next"] is NSNull, "the last page: next is null")
        // PUT replaces: those not named again go.
        answer = try await harness.admin("PUT", "/groups/team/members", appId: "app1", ["uids": ["bob", "erin"]])
        #expect(answer.data["count"] as? Int == 2 && answer.data["added"] as? Int == 1 && answer.data["removed"] as? Int == 3)
        page = try await harness.admin("GET", "/groups/team/members", appId: "app1")
        #expect(page.data["members"] as? [String] == ["bob", "erin"])
        // DELETE one member; again: still 200, nothing removed.
        answer = try await harness.admin("DELETE", "/groups/team/members/bob", appId: "app1")
        #expect(answer.status == 200 && answer.data["removed"] as? Bool == true && answer.data["count"] as? Int == 1, "\(answer.json)")
        answer = try await harness.admin("DELETE", "/groups/team/members/bob", appId: "app1")
        #expect(answer.status == 200 && answer.data["removed"] as? Bool == false && answer.data["count"] as? Int == 1)
        // DELETE the group: then it is unknown.
        answer = try await harness.admin("DELETE", "/groups/team", appId: "app1")
        #expect(answer.status == 200 && answer.data["deleted"] as? Bool == true, "\(answer.json)")
        for (method, path) in [
            ("GET", "/groups/team/members"), ("DELETE", "/groups/team/members/erin"), ("DELETE", "/groups/team"),
        ] {
            let unknown = try await harness.admin(method, path, appId: "app1")
            #expect(unknown.status == 404, "\(method) \(path)")
            #expect(unknown.errorCode == "ERR_GROUP_NOT_FOUND", "\(method) \(path): \(unknown.json)")
        }
        #expect(try harness.store.rowCount(table: .pushGroupMembers) == 0)
    }

    /// Groups are per app: another app's group of the same guid is another group, and the
    /// admin key without `appid` is refused.
    @Test func groupsArePerApp() async throws {
        let harness = try await Self.started()
        try await harness.makeApp("app2")
        _ = try await harness.admin("PUT", "/groups/team/members", appId: "app1", ["uids": ["alice"]])
        let other = try await harness.admin("GET", "/groups/team/members", appId: "app2")
        #expect(other.status == 404 && other.errorCode == "ERR_GROUP_NOT_FOUND")
        let noApp = try await harness.admin("GET", "/groups/team/members")
        #expect(noApp.status == 401 && noApp.errorCode == "AUTH_ERR_EMPTY_APPID")
        let noKey = try await harness.json("GET", "/groups/team/members", headers: ["appid": "app1"])
        #expect(noKey.status == 401 && noKey.errorCode == "AUTH_ERR_EMPTY_APIKEY")
    }

    /// Each refusal is a 400 naming the field, and changes nothing.
    @Test func refusalsNameTheField() async throws {
        let harness = try await Self.started()
        _ = try await harness.admin("PUT", "/groups/team/members", appId: "app1", ["uids": ["zoe"]])
        let cases: [(String, String, [String: Any]?, String)] = [
            ("PUT", "/groups/team/members", ["uids": "alice"], "uids"),
            ("PUT", "/groups/team/members", ["members": ["alice"]], "uids"),
            ("POST", "/groups/team/members", ["uids": [String]()], "uids"),
            ("PUT", "/groups/team/members", ["uids": ["alice", 7] as [Any]], "uids[1]"),
            ("PUT", "/groups/team/members", ["uids": ["alice", "a b"]], "uids[1]"),
            ("POST", "/groups/team/members", ["uids": ["ok", "a/b"]], "uids[1]"),
            ("PUT", "/groups/team/members", ["uids": [String(repeating: "x", count: 129)]], "uids[0]"),
            ("PUT", "/groups/team/members", ["uids": [""]], "uids[0]"),
            ("PUT", "/groups/a%20b/members", ["uids": ["alice"]], "guid"),
            ("GET", "/groups/team/members?limit=0", nil, "limit"),
            ("GET", "/groups/team/members?limit=5001", nil, "limit"),
            ("GET", "/groups/team/members?limit=ten", nil, "limit"),
            ("GET", "/groups/team/members?after=a%20b", nil, "after"),
            ("DELETE", "/groups/team/members/a%20b", nil, "uid"),
            ("DELETE", "/groups/a%20b", nil, "guid"),
        ]
        for (method, path, body, field) in cases {
            let answer = try await harness.admin(method, path, appId: "app1", body)
            #expect(answer.status == 400, "\(method) \(path): \(answer.json)")
            #expect(answer.errorCode == "ERR_BAD_REQUEST")
            #expect(Self.details(answer)[field] != nil, "\(method) \(path): \(answer.json)")
        }
        #expect(try harness.store.groupMembers(appId: "app1", guid: "team", after: nil, limit: 10)?.uids == ["zoe"])
    }

    /// 5,000 uids per body; the 5,001st is refused whole (naming `uids`). A group of 20,000 is
    /// four calls, and pages back complete and in order.
    @Test func fiveThousandPerCallAndLargerGroupsInSeveralCalls() async throws {
        let harness = try await Self.started()
        let uids = (0..<20_000).map { String(format: "m%05d", $0) }
        let tooMany = try await harness.admin("PUT", "/groups/big/members", appId: "app1", ["uids": Array(uids[0...5_000])])
        #expect(tooMany.status == 400 && Self.details(tooMany)["uids"] as? String == "5001 uids", "\(tooMany.json)")
        let none = try await harness.admin("GET", "/groups/big/members", appId: "app1")
        #expect(none.status == 404, "the refused call created nothing")
        for start in stride(from: 0, to: uids.count, by: 5_000) {
            let answer = try await harness.admin(
                start == 0 ? "PUT" : "POST", "/groups/big/members", appId: "app1", ["uids": Array(uids[start..<start + 5_000])])
            #expect(answer.status == 200 && answer.data["count"] as? Int == start + 5_000, "\(answer.json)")
        }
        var listed: [String] = []
        var after: String?
        while true {
            let page = try await harness.admin(
                "GET", "/groups/big/members?limit=5000" + (after.map { "&after=\($0)" } ?? ""), appId: "app1")
            #expect(page.status == 200 && page.data["count"] as? Int == 20_000)
            listed += page.data["members"] as? [String] ?? []
            guard let next = page.data["next"] as? String else { break }
            after = next
        }
        #expect(listed == uids)
    }

    /// Members need not be users; a user's deletion takes them out of the app's groups, an
    /// app's deletion takes its groups.
    @Test func membersNeedNotBeUsersAndGoWithTheirUserOrApp() async throws {
        let harness = try await Self.started()
        _ = try await harness.makeUser("bob")
        _ = try await harness.admin("PUT", "/groups/team/members", appId: "app1", ["uids": ["bob", "not-yet"]])
        #expect(try await harness.admin("DELETE", "/users/bob", appId: "app1").status == 200)
        var page = try await harness.admin("GET", "/groups/team/members", appId: "app1")
        #expect(page.data["members"] as? [String] == ["not-yet"])
        // The user created later is a member again only when the back end adds them.
        _ = try await harness.makeUser("bob")
        page = try await harness.admin("GET", "/groups/team/members", appId: "app1")
        #expect(page.data["members"] as? [String] == ["not-yet"])
        #expect(try await harness.admin("DELETE", "/apps/app1").status == 200)
        try await harness.makeApp()
        page = try await harness.admin("GET", "/groups/team/members", appId: "app1")
        #expect(page.status == 404 && page.errorCode == "ERR_GROUP_NOT_FOUND")
    }
}
