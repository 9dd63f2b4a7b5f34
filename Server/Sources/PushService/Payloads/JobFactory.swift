#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import APNs
import PushCore
import PushStore

/// Turns an event and a recipient's tokens into outbox jobs, one per token, with the
/// payload and APNs headers each kind of token needs.
struct JobFactory {
    let service: ServiceContext
    let requestId: String
    let ttlSeconds: Int64
    /// Set for a `private` app: each job's payload is then the clear part only, and its
    /// ``PushJob/privatePush`` the standard payload (with keyed ids, fitted) to seal at send time.
    var privateMode: PrivateMode? = nil
    /// The app's urgency policy: each alert's `interruption-level` and `relevance-score` (``Urgency``).
    var deliveryPolicy: DeliveryPolicy = .standard
    /// The app's texts per language and `loc-key` choice: each token's payload is written in
    /// its registered languages (``PushTemplates``).
    var localization: AppLocalization = .standard
    /// When the send was accepted, when its jobs are made later (a group send's background
    /// batch): an alert's `apns-expiration` counts `ttlSeconds` from then, not from the batch.
    var acceptedAt: Date? = nil

    /// Which tokens get the event: VoIP tokens only for calls (and then only them when the
    /// user has any); device and FCM tokens for everything else.
    static func targets(for event: SendRequest.Event, tokens: [PushTokenRecord]) -> [PushTokenRecord] {
        let alertTokens = tokens.filter { $0.platform != .apnsVoIP }
        if case .call = event {
            let voip = tokens.filter { $0.platform == .apnsVoIP }
            return voip.isEmpty ? alertTokens : voip
        }
        return alertTokens
    }

    /// The jobs for one recipient. `treatment` is what the recipient's notification preferences
    /// make of the push: skipped jobs are recorded (state `skipped`) but never sent; quiet pushes
    /// are passive and silent; a quiet call goes to alert tokens only (VoIP tokens skipped).
    func jobs(
        for event: SendRequest.Event, uid: String, badge: Int?, tokens: [PushTokenRecord],
        treatment: PreferenceRules.Treatment = .normal
    ) -> [PushJob] {
        let now = service.now
        // The payload depends only on the event, the badge, VoIP-or-not and the token's
        // language: encode it once per recipient and such pair, not once per token (JSON
        // encoding dominates a large send).
        var built: [Variant: Built] = [:]
        var renderers: [[String]: PushTemplates.Renderer] = [:]
        let keyed = privateMode?.recipient(uid)
        // Decided once per recipient (a mention is one for this recipient only); alerts only.
        let urgency = Urgency.decide(event: event, recipient: uid, policy: deliveryPolicy, treatment: treatment)
        func build(voip: Bool, languages: [String]) -> Built {
            let renderer: PushTemplates.Renderer
            if let known = renderers[languages] {
                renderer = known
            } else {
                renderer = PushTemplates.Renderer(preferred: languages, localization: localization)
                renderers[languages] = renderer
            }
            let variant = Variant(voip: voip, language: renderer.language)
            if let done = built[variant] { return done }
            var payload: [String: Any]
            let kind: PushKind
            var collapseId: String?
            switch event {
            case .chat(let chat):
                payload = PayloadBuilder.chat(chat, badge: badge, quiet: treatment == .quiet, urgency: urgency, renderer: renderer)
                kind = .chat
                collapseId = CollapseId.chat(id: chat.id, category: chat.category, keyed: keyed)
            case .call(let call):
                payload = PayloadBuilder.call(
                    call, voip: voip, badge: badge, quiet: treatment == .quietCall, urgency: voip ? nil : urgency, renderer: renderer)
                kind = .call
                collapseId = voip ? nil : CollapseId.call(sessionId: call.sessionId, keyed: keyed)
            case .campaign(let campaign):
                payload = PayloadBuilder.campaign(campaign, badge: badge)
                kind = .campaign
                collapseId = CollapseId.of(.campaign, id: campaign.id, keyed: keyed)
            }
            let headers = Self.headers(voip: voip, kind: kind, collapseId: collapseId, now: acceptedAt ?? now, ttlSeconds: ttlSeconds)
            let done: Built
            if let privateMode, let keyed {
                payload = PrivatePayload.keyingThread(payload, with: keyed)
                let shape: PrivatePayload.Shape =
                    voip ? .voip : .alert(placeholder: kind == .call ? privateMode.callPlaceholder : privateMode.placeholder)
                let parts = PrivatePayload.build(payload, shape: shape, voip: voip)
                done = Built(payload: parts.clear, kind: kind, headers: headers, sealed: (parts.plaintext, parts.trimmed))
            } else {
                done = Built(payload: JSON.encode(payload), kind: kind, headers: headers, sealed: nil)
            }
            built[variant] = done
            return done
        }
        var targets = Self.targets(for: event, tokens: tokens).map { ($0, skipped: false) }
        switch treatment {
        case .skipped: targets = targets.map { ($0.0, skipped: true) }
        case .quietCall:
            // Alert tokens get a passive alert; VoIP tokens (which would ring) are skipped.
            targets = tokens.map { ($0, skipped: $0.platform == .apnsVoIP) }
        case .normal, .quiet: break
        }
        return targets.map { token, skipped in
            let built = build(voip: token.platform == .apnsVoIP, languages: token.languages)
            let id = service.newId()
            var job = PushJob(
                id: id, appId: token.appId, requestId: requestId, uid: uid, token: token.token, platform: token.platform,
                kind: built.kind, providerId: token.providerId, payload: PayloadBuilder.stamp(built.payload, pushId: id),
                headers: built.headers, notBefore: now, createdAt: now, environment: token.environment, rule: treatment.rule,
                skipped: skipped)
            // The level the push carries and why, for the trace (a skipped push carries none).
            if let urgency, !skipped, token.platform != .apnsVoIP {
                job.interruptionLevel = urgency.level.rawValue
                job.levelReason = urgency.reason
            }
            if let (plaintext, trimmed) = built.sealed {
                job.privatePush = PrivatePush(plaintext: PayloadBuilder.stamp(plaintext, pushId: id), trimmed: trimmed)
            }
            return job
        }
    }

    /// What a recipient's payloads differ by: VoIP or not, and the language of the text.
    private struct Variant: Hashable {
        var voip: Bool
        var language: String
    }

    /// One payload as built for a recipient: the encoded payload (the clear part for a private
    /// app) without `pushId`, and for a private app the fitted plaintext and what was trimmed.
    private struct Built {
        var payload: Data
        var kind: PushKind
        var headers: PushHeaders
        var sealed: (plaintext: Data, trimmed: [String])?
    }

    /// Why APNs would refuse a job (``APNsLimits/problem(payloadBytes:voip:background:priority:collapseId:)``,
    /// the check the APNs client makes before sending), or nil. The send API refuses a send
    /// with such a job instead of storing it.
    /// A private job is measured as it will be sent: its clear part with `enc` (``PrivateFit``).
    static func apnsProblem(_ job: PushJob) -> APNsReason? {
        APNsLimits.problem(
            payloadBytes: sentBytes(job), voip: job.headers.pushType == .voip, background: job.headers.pushType == .background,
            priority: job.headers.priority, collapseId: job.headers.collapseId)
    }

    /// The payload bytes APNs receives for `job`: its payload, or for a private job the sealed size.
    static func sentBytes(_ job: PushJob) -> Int {
        PrivateFit.sealedSize(of: job) ?? job.payload.count
    }

    /// APNs headers: VoIP → `voip`, priority 10, expiration 0, topic + `.voip`; alerts →
    /// `alert`, priority 10, expiration now + TTL (calls: 60 s).
    static func headers(voip: Bool, kind: PushKind, collapseId: String?, now: Date, ttlSeconds: Int64) -> PushHeaders {
        if voip {
            return PushHeaders(pushType: .voip, priority: 10, expiration: 0, collapseId: nil, topicSuffix: ".voip")
        }
        let ttl = kind == .call ? min(ttlSeconds, 60) : ttlSeconds
        let expiration = ttl == 0 ? 0 : Int64(now.timeIntervalSince1970) + ttl
        return PushHeaders(pushType: .alert, priority: 10, expiration: expiration, collapseId: collapseId, topicSuffix: "")
    }
}
