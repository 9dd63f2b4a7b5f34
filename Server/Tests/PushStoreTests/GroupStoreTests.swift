import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// Group membership (issue 31) in the store, on SQLite and (with `PUSH_TEST_DATABASE_URL`)
/// PostgreSQL: replace and add in one transaction each, members in byte order a page at a time,
/// members who are not users, and what deleting a user, a group and an app does to them.
@Suite struct GroupStoreTests {
    final class Fixture: @unchecked Sendable {
        // @unchecked: immutable.
        let directory = NSTemporaryDirectory() + "push-groups-" + UUID().uuidString
        let database: TestDatabase
        let store: any ServiceStore

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            database = try TestDatabase(directory: directory)
            store = try database.open()
            for app in ["a1", "a2"] {
                try store.createApp(AppRecord(id: app, name: "App", createdAt: Self.t0))
                try store.createUser(UserRecord(appId: app, uid: "u1", name: "Ann", createdAt: Self.t0))
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    }

    /// Every member of a group, paging `limit` at a time.
    static func allMembers(_ store: any ServiceStore, app: String = "a1", guid: String, limit: Int) throws -> [String] {
        var uids: [String] = []
        var after: String?
        while true {
            let page = try #require(try store.groupMembers(appId: app, guid: guid, after: after, limit: limit))
            #expect(page.uids.count <= limit)
            uids += page.uids
            guard let next = page.next else { return uids }
            #expect(next == page.uids.last)
            after = next
        }
    }

    @Test func replaceAndAddCountWhatChangedAndPagesAreInByteOrder() throws {
        let fixture = try Fixture()
        let store = fixture.store
        #expect(try store.groupMembers(appId: "a1", guid: "team", after: nil, limit: 10) == nil, "no group yet")
        // Created by its first change; duplicates count once; members need not be users.
        var change = try store.setGroupMembers(
            appId: "a1", guid: "team", uids: ["u1", "b", "B", "_x", "b"], replace: true, now: Fixture.t0)
        #expect(change == GroupChange(added: 4, removed: 0, count: 4))
        // Byte order (as SQLite's BINARY and PostgreSQL's COLLATE "C" compare): "B" < "_x" < "b" < "u1".
        #expect(try store.groupMembers(appId: "a1", guid: "team", after: nil, limit: 10)?.uids == ["B", "_x", "b", "u1"])
        // Adding: what is new counts; replacing: who is not named again goes, who is stays.
        change = try store.setGroupMembers(appId: "a1", guid: "team", uids: ["b", "c"], replace: false, now: Fixture.t0)
        #expect(change == GroupChange(added: 1, removed: 0, count: 5))
        change = try store.setGroupMembers(appId: "a1", guid: "team", uids: ["c", "d", "u1"], replace: true, now: Fixture.t0)
        #expect(change == GroupChange(added: 1, removed: 3, count: 3))
        #expect(try Self.allMembers(store, guid: "team", limit: 2) == ["c", "d", "u1"])
        let first = try #require(try store.groupMembers(appId: "a1", guid: "team", after: nil, limit: 2))
        #expect(first == GroupMembersPage(uids: ["c", "d"], next: "d", count: 3))
        #expect(
            try store.groupMembers(appId: "a1", guid: "team", after: "d", limit: 2) == GroupMembersPage(uids: ["u1"], next: nil, count: 3))
        #expect(try store.groupMembers(appId: "a1", guid: "team", after: "u1", limit: 2) == GroupMembersPage(uids: [], next: nil, count: 3))
        // Exactly `limit` left: the last page says so (no empty page after it).
        #expect(try store.groupMembers(appId: "a1", guid: "team", after: "c", limit: 2)?.next == nil)
        // Removing one member; again: nothing more; a group that is not there: nil.
        #expect(
            try store.removeGroupMember(appId: "a1", guid: "team", uid: "d", now: Fixture.t0) == GroupChange(added: 0, removed: 1, count: 2)
        )
        #expect(
            try store.removeGroupMember(appId: "a1", guid: "team", uid: "d", now: Fixture.t0) == GroupChange(added: 0, removed: 0, count: 2)
        )
        #expect(try store.removeGroupMember(appId: "a1", guid: "nope", uid: "d", now: Fixture.t0) == nil)
        // An empty replace leaves the group, empty; another app's group of the same guid is another group.
        #expect(try store.setGroupMembers(appId: "a1", guid: "team", uids: [], replace: true, now: Fixture.t0).count == 0)
        #expect(try store.groupMembers(appId: "a1", guid: "team", after: nil, limit: 5) == GroupMembersPage(uids: [], next: nil, count: 0))
        #expect(try store.groupMembers(appId: "a2", guid: "team", after: nil, limit: 5) == nil)
        #expect(try store.deleteGroup(appId: "a1", guid: "team"))
        #expect(try !store.deleteGroup(appId: "a1", guid: "team"))
        #expect(try store.rowCount(table: .pushGroupMembers) == 0)
    }

    /// Members are uids, not users: a user's deletion takes them out of their app's groups (and
    /// no other app's), a group's deletion and its app's take all its members.
    @Test func deletingAUserAGroupOrAnAppTakesTheirMembershipsAlong() throws {
        let fixture = try Fixture()
        let store = fixture.store
        for app in ["a1", "a2"] {
            for guid in ["g1", "g2"] {
                _ = try store.setGroupMembers(appId: app, guid: guid, uids: ["u1", "later"], replace: true, now: Fixture.t0)
            }
        }
        #expect(try store.rowCount(table: .pushGroupMembers) == 8)
        #expect(try store.deleteUser(appId: "a1", uid: "u1"))
        #expect(try store.groupMembers(appId: "a1", guid: "g1", after: nil, limit: 5)?.uids == ["later"])
        #expect(try store.groupMembers(appId: "a1", guid: "g2", after: nil, limit: 5)?.uids == ["later"])
        #expect(try store.groupMembers(appId: "a2", guid: "g1", after: nil, limit: 5)?.uids == ["later", "u1"])
        // A uid that is not a user is not deleted as one: its memberships stay.
        #expect(try !store.deleteUser(appId: "a1", uid: "later"))
        #expect(try store.rowCount(table: .pushGroupMembers) == 6)
        #expect(try store.deleteGroup(appId: "a2", guid: "g2"))
        #expect(try store.rowCount(table: .pushGroupMembers) == 4)
        #expect(try store.deleteApp(id: "a1"))
        #expect(try store.rowCount(table: .pushGroups) == 1)
        #expect(try store.rowCount(table: .pushGroupMembers) == 2)
        #expect(try store.groupMembers(appId: "a2", guid: "g1", after: nil, limit: 5)?.count == 2)
    }

    /// Tens of thousands of members, built 5,000 at a time (as the API takes them), each change
    /// one transaction; a replace of such a group with another 5,000 keeps the ones named again.
    @Test func aGroupOfFortyThousandIsBuiltInCallsOfFiveThousand() throws {
        let fixture = try Fixture()
        let store = fixture.store
        let uids = (0..<40_000).map { String(format: "m%06d", $0) }
        for (index, start) in stride(from: 0, to: uids.count, by: 5_000).enumerated() {
            let change = try store.setGroupMembers(
                appId: "a1", guid: "big", uids: Array(uids[start..<start + 5_000]), replace: index == 0, now: Fixture.t0)
            #expect(change == GroupChange(added: 5_000, removed: 0, count: start + 5_000))
        }
        #expect(try Self.allMembers(store, guid: "big", limit: 5_000) == uids)
        let page = try #require(try store.groupMembers(appId: "a1", guid: "big", after: "m019999", limit: 3))
        #expect(page == GroupMembersPage(uids: ["m020000", "m020001", "m020002"], next: "m020002", count: 40_000))
        let kept = Array(uids[35_000..<40_000])
        #expect(
            try store.setGroupMembers(appId: "a1", guid: "big", uids: kept, replace: true, now: Fixture.t0)
                == GroupChange(added: 0, removed: 35_000, count: 5_000))
        #expect(try store.deleteGroup(appId: "a1", guid: "big"))
        #expect(try store.rowCount(table: .pushGroupMembers) == 0)
    }
}
