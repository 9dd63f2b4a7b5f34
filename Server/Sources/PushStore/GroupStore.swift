#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a change of a group's membership did (``GroupStore``).
public struct GroupChange: Sendable, Hashable {
    /// Members this change added (uids that were not members before).
    public var added: Int
    /// Members this change removed.
    public var removed: Int
    /// The group's members after the change.
    public var count: Int

    /// Creates a record.
    public init(added: Int, removed: Int, count: Int) {
        self.added = added
        self.removed = removed
        self.count = count
    }
}

/// One page of a group's members, in uid order (byte order, as both stores compare text).
public struct GroupMembersPage: Sendable, Hashable {
    /// The page's members.
    public var uids: [String]
    /// The uid to page on from (the page's last) when more members follow; nil on the last page.
    public var next: String?
    /// All of the group's members.
    public var count: Int

    /// Creates a record.
    public init(uids: [String], next: String?, count: Int) {
        self.uids = uids
        self.next = next
        self.count = count
    }
}

/// What every ``ServiceStore`` keeps of an app's groups (issue 31, docs/design/group-sends.md):
/// each group's members, uids that need not be users of the app yet. Each method is one
/// transaction, so a membership change of several thousand uids is all or nothing.
///
/// Deleting the app deletes its groups; deleting a user removes them from every group of the
/// app (``ServiceStore/deleteUser(appId:uid:)``); deleting a group deletes its members.
public protocol GroupStore: Sendable {
    /// Sets a group's members to `uids` (`replace`) or adds `uids` to them, creating the group
    /// when it is new. Duplicates in `uids` count once.
    func setGroupMembers(appId: String, guid: String, uids: [String], replace: Bool, now: Date) throws -> GroupChange

    /// Removes one member; nil when the app has no such group (a uid that is no member removes
    /// nothing: `removed` 0).
    func removeGroupMember(appId: String, guid: String, uid: String, now: Date) throws -> GroupChange?

    /// At most `limit` members after `after` (from the first when nil), in uid order; nil when
    /// the app has no such group.
    func groupMembers(appId: String, guid: String, after: String?, limit: Int) throws -> GroupMembersPage?

    /// Deletes a group and its members; false when there was none.
    func deleteGroup(appId: String, guid: String) throws -> Bool
}
