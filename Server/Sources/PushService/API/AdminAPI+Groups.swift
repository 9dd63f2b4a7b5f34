#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore
import ServerSupport

/// Group membership (issue 31, docs/design/group-sends.md): the app's back end keeps each
/// group's members in the service, so that one send can name the group instead of its uids
/// (`"recipients": {"group": "<guid>"}`). Members are uids that need not be users yet; only
/// users get pushes.
extension AdminAPI {
    /// The most uids one membership body carries: a larger group is built in several calls.
    static let maxGroupMembersPerCall = 5_000
    /// Members per page of `GET /groups/{guid}/members` when the call gives no `limit`.
    static let defaultGroupPage = 1_000
    /// The largest `limit` of `GET /groups/{guid}/members`.
    static let maxGroupPage = 5_000

    var groupRoutes: [Route] {
        [
            Route("PUT", "groups/:guid/members", .adminApp) { try setMembers($0, replace: true) },
            Route("POST", "groups/:guid/members", .adminApp) { try setMembers($0, replace: false) },
            Route("GET", "groups/:guid/members", .adminApp) { try listMembers($0) },
            Route("DELETE", "groups/:guid/members/:uid", .adminApp) { call in
                let guid = try Self.guid(call)
                let uid = call.parameter("uid")
                try Validate.identifier(uid, field: "uid")
                guard let change = try service.store.removeGroupMember(appId: call.appId, guid: guid, uid: uid, now: service.now) else {
                    throw APIError.groupNotFound(guid)
                }
                if change.removed > 0 {
                    service.logger.info("group member removed app=\(call.appId) group=\(guid) members=\(change.count)")
                }
                return ["guid": guid, "uid": uid, "removed": change.removed > 0, "count": change.count] as [String: Any]
            },
            Route("DELETE", "groups/:guid", .adminApp) { call in
                let guid = try Self.guid(call)
                guard try service.store.deleteGroup(appId: call.appId, guid: guid) else { throw APIError.groupNotFound(guid) }
                service.logger.info("group deleted app=\(call.appId) group=\(guid)")
                return ["guid": guid, "deleted": true] as [String: Any]
            },
        ]
    }

    /// `PUT` (replace) or `POST` (add) `{"uids": [...]}` → `{guid, count, added, removed}`; the
    /// group is created when it is new.
    private func setMembers(_ call: Call, replace: Bool) throws -> Any {
        let guid = try Self.guid(call)
        let uids = try Self.memberUids(call.body(), allowEmpty: replace)
        let change = try service.store.setGroupMembers(appId: call.appId, guid: guid, uids: uids, replace: replace, now: service.now)
        service.logger.info(
            "group members \(replace ? "replaced" : "added") app=\(call.appId) group=\(guid) added=\(change.added) "
                + "removed=\(change.removed) members=\(change.count)")
        return ["guid": guid, "count": change.count, "added": change.added, "removed": change.removed] as [String: Any]
    }

    /// `GET /groups/{guid}/members?after=<uid>&limit=<n>` → `{guid, members, next, count}`:
    /// members in uid order after `after`, `next` the uid to ask after for the next page (null
    /// on the last), `count` all of the group's members.
    private func listMembers(_ call: Call) throws -> Any {
        let guid = try Self.guid(call)
        let after = call.request.query["after"]
        if let after { try Validate.identifier(after, field: "after") }
        let limit = try Self.groupPageLimit(call.request.query["limit"])
        guard let page = try service.store.groupMembers(appId: call.appId, guid: guid, after: after, limit: limit) else {
            throw APIError.groupNotFound(guid)
        }
        return ["guid": guid, "members": page.uids, "next": page.next ?? JSONNull(), "count": page.count] as [String: Any]
    }

    /// The path's guid, checked as an id.
    static func guid(_ call: Call) throws(APIError) -> String {
        let guid = call.parameter("guid")
        try Validate.identifier(guid, field: "guid")
        return guid
    }

    /// `uids`: an array of 1 (0 when `allowEmpty`) to 5,000 ids, duplicates counted once (in
    /// the order first given).
    static func memberUids(_ body: JSONObject, allowEmpty: Bool) throws(APIError) -> [String] {
        let least = allowEmpty ? 0 : 1
        guard let items = body["uids"] as? [Any] else {
            throw .badRequest("The uids field must be an array of uids.", field: "uids", problem: "not an array")
        }
        guard (least...maxGroupMembersPerCall).contains(items.count) else {
            throw .badRequest(
                "The uids field must have \(least) to \(maxGroupMembersPerCall) uids; build a larger group with several calls "
                    + "(PUT the first uids, POST the others).", field: "uids", problem: "\(items.count) uids")
        }
        var uids: [String] = []
        var seen = Set<String>()
        for (index, item) in items.enumerated() {
            guard let uid = item as? String else {
                throw .badRequest("Item \(index) of uids must be a uid.", field: "uids[\(index)]", problem: "not a string")
            }
            try Validate.identifier(uid, field: "uids[\(index)]")
            if seen.insert(uid).inserted { uids.append(uid) }
        }
        return uids
    }

    /// `limit`: 1 to 5,000, default 1,000.
    static func groupPageLimit(_ text: String?) throws(APIError) -> Int {
        guard let text else { return defaultGroupPage }
        guard text.allSatisfy(\.isASCII), let value = Int(text), (1...maxGroupPage).contains(value) else {
            throw .badRequest("The limit parameter must be an integer from 1 to \(maxGroupPage).", field: "limit", problem: "out of range")
        }
        return value
    }
}
