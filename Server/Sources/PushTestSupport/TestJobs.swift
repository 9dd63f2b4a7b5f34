#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore

extension PushJob {
    /// A job for a test, as the service would make it for one token: every field has a default
    /// that a test overrides where it matters. The token kind follows the push (a call goes to a
    /// VoIP token unless `platform` says otherwise), and so do the headers: a call or a VoIP token
    /// gets `voip`, anything else `alert`, priority 10, a VoIP token the `.voip` topic suffix.
    /// `notBefore` is `createdAt` unless given. The tests' one job factory.
    public static func test(
        _ id: String = UUID().uuidString, appId: String = "a1", requestId: String = "r1", uid: String = "u1", token: String = "tok",
        kind: PushKind = .chat, platform: TokenPlatform? = nil, providerId: String = "p1", payload: Data = Data("{}".utf8),
        expiration: Int64 = 0, collapseId: String? = nil, attempts: Int = 0, notBefore: Date? = nil, createdAt: Date = Date(),
        environment: TokenEnvironment? = nil, rule: String? = nil, skipped: Bool = false
    ) -> PushJob {
        let platform = platform ?? (kind == .call ? .apnsVoIP : .apnsDevice)
        let voip = platform == .apnsVoIP || kind == .call
        return PushJob(
            id: id, appId: appId, requestId: requestId, uid: uid, token: token, platform: platform, kind: kind, providerId: providerId,
            payload: payload,
            headers: PushHeaders(
                pushType: voip ? .voip : .alert, priority: 10, expiration: expiration, collapseId: collapseId,
                topicSuffix: platform == .apnsVoIP ? ".voip" : ""),
            attempts: attempts, notBefore: notBefore ?? createdAt, createdAt: createdAt, environment: environment, rule: rule,
            skipped: skipped)
    }
}
