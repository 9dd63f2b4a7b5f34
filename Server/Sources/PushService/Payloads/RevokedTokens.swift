#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushStore

extension JobFactory {
    /// Skipped jobs (rule `revoked`, never sent) for the recipient's push tokens that a revocation
    /// deleted and that are not registered again (`registered`): the send's log and trace then
    /// say why those devices get nothing.
    func revokedJobs(
        for event: SendRequest.Event, uid: String, badge: Int?, revoked: [RevokedPushToken], registered: [PushTokenRecord]
    ) -> [PushJob] {
        let live = Set(registered.map(\.token))
        let gone = revoked.filter { !live.contains($0.token) }.map {
            PushTokenRecord(
                appId: $0.appId, uid: $0.uid, token: $0.token, platform: $0.platform, providerId: $0.providerId, timezone: nil,
                authTokenHash: Data(), authTokenHint: "", createdAt: $0.revokedAt, updatedAt: $0.revokedAt, environment: $0.environment)
        }
        guard !gone.isEmpty else { return [] }
        return jobs(for: event, uid: uid, badge: badge, tokens: gone, treatment: .skipped(rule: Revocation.rule))
    }
}
