import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

/// The `callAction: rejected` (or `busy`) push a decline sends back to the caller.
struct CallDeclinePush {
    let service: ServiceContext

    /// What is kept of a call so the decline can be built later.
    static func details(of call: CallEvent) -> Data {
        JSON.encode([
            "callType": call.callType, "receiverType": call.receiverType,
            "sender": call.sender.json, "receiver": call.receiver.json,
        ])
    }

    func jobs(for record: CallRecord, status: String, decliner: String) throws -> [PushJob] {
        guard let details = try? JSONCodec.parse(record.details) as? [String: Any],
            let caller = party(details["sender"]), let receiver = party(details["receiver"])
        else { return [] }
        let receiverType = details["receiverType"] as? String ?? "user"
        let declinerParty: Party
        if receiverType == "user", receiver.id == decliner {
            declinerParty = receiver
        } else {
            let user = try service.store.user(appId: record.appId, uid: decliner)
            declinerParty = Party(id: decliner, name: user?.name ?? decliner, avatar: user?.avatar)
        }
        let event = CallEvent(
            sessionId: record.sessionId, callAction: status, callType: details["callType"] as? String ?? "audio",
            sender: declinerParty, receiver: receiverType == "group" ? receiver : caller, receiverType: receiverType,
            sentAt: Int64(service.now.timeIntervalSince1970 * 1000))
        let tokens = try service.store.tokens(appId: record.appId, uid: record.callerUid)
        let app = try service.store.app(id: record.appId)
        let factory = JobFactory(
            service: service, requestId: "decline-" + service.newId(), ttlSeconds: 60,
            privateMode: PrivateMode(app: app, ids: service.pushIds), localization: app?.localization ?? .standard)
        return factory.jobs(for: .call(event), uid: record.callerUid, badge: nil, tokens: tokens)
    }

    private func party(_ value: Any?) -> Party? {
        guard let object = value as? [String: Any], let id = object["id"] as? String else { return nil }
        return Party(id: id, name: object["name"] as? String ?? id, avatar: object["avatar"] as? String)
    }
}
