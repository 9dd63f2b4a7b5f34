import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// The delivery log: what the delivery engine recorded for every job of a send request.
extension AdminAPI {
    var deliveryLogRoutes: [Route] {
        [
            Route("GET", "notifications/push/v1/send/:requestId/log", .adminApp) { call in
                try service.store.pushJobLog(appId: call.appId, requestId: call.parameter("requestId")).map(Self.logJSON)
            }
        ]
    }

    static func logJSON(_ entry: PushJobLogEntry) -> [String: Any] {
        [
            "id": entry.id, "uid": entry.uid, "token": entry.token, "platform": entry.platform.rawValue,
            "kind": entry.kind.rawValue, "state": entry.state, "attempts": entry.attempts,
            "lastError": entry.lastError ?? JSONNull(), "createdAt": seconds(entry.createdAt),
            "finishedAt": entry.finishedAt.map { seconds($0) as Any } ?? JSONNull(), "rule": entry.rule ?? JSONNull(),
            "interruptionLevel": entry.interruptionLevel ?? JSONNull(), "levelReason": entry.levelReason ?? JSONNull(),
        ]
    }
}
