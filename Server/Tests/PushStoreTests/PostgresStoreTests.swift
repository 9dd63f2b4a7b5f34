import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// What a scenario observed, step by step: each store call's result (records, counts, ids)
/// or the kind of error it threw. The same scenario on SQLiteStore and PostgresStore must
/// observe the same.
final class StoreTranscript {
    private(set) var steps: [AnyHashable] = []

    /// Records what `body` returns, or its error's kind.
    func step<T: Hashable>(_ label: String, _ body: () throws -> T) {
        do {
            let value = try body()
            steps.append(AnyHashable([AnyHashable(label), AnyHashable(value)]))
        } catch let error as StoreError {
            switch error {
            case .conflict: steps.append(AnyHashable([label, "conflict"]))
            case .notFound: steps.append(AnyHashable([label, "notFound"]))
            case .database: steps.append(AnyHashable([label, "database error"]))
            }
        } catch {
            steps.append(AnyHashable([label, "other error: \(error)"]))
        }
    }

    func run(_ label: String, _ body: () throws -> Void) {
        step(label) { () throws -> String in
            try body()
            return "ok"
        }
    }
}

/// Store scenarios run on both stores.
enum StoreScenarios {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func job(
        _ id: String, request: String = "r1", token: String = "live", kind: PushKind = .chat, notBefore: Date = t0,
        payload: Data = Data("{}".utf8), environment: TokenEnvironment? = nil, provider: String = "p1"
    ) -> PushJob {
        .test(
            id, requestId: request, token: token, kind: kind, providerId: provider, payload: payload, expiration: 42,
            collapseId: id == "j1" ? "c" : nil, notBefore: notBefore, createdAt: t0, environment: environment)
    }

    static func webhook(_ id: String, app: String = "a1", body: Data = Data("{\"e\":1}".utf8), notBefore: Date = t0) -> WebhookJob {
        WebhookJob(id: id, appId: app, event: "call.declined", body: body, notBefore: notBefore, createdAt: t0)
    }

    static func token(
        _ token: String, uid: String = "u1", hash: Data = Data([1]), environment: TokenEnvironment? = nil, at offset: Double = 0
    )
        -> PushTokenRecord
    {
        PushTokenRecord(
            appId: "a1", uid: uid, token: token, platform: .apnsDevice, providerId: "p1", timezone: offset == 0 ? nil : "Europe/Paris",
            authTokenHash: hash, authTokenHint: "hint", createdAt: t0.addingTimeInterval(offset), updatedAt: t0.addingTimeInterval(offset),
            environment: environment)
    }

    /// Apps, users, auth tokens and providers: conflicts, not found, foreign keys, cascades.
    static func accounts(_ store: any ServiceStore) -> [AnyHashable] {
        let log = StoreTranscript()
        let app = AppRecord(
            id: "a1", name: "App", webhookURL: "https://hooks.example/x", sealedWebhookSecret: Data([0, 1, 2]), createdAt: t0)
        log.run("create app") { try store.createApp(app) }
        log.run("create app again") { try store.createApp(app) }
        log.run("create a2") { try store.createApp(AppRecord(id: "a2", name: "Other", createdAt: t0)) }
        log.step("app") { try store.app(id: "a1") }
        log.step("missing app") { try store.app(id: "nope") }
        log.step("apps") { try store.apps() }
        log.run("update app") { try store.updateApp(AppRecord(id: "a1", name: "Renamed", createdAt: t0)) }
        log.run("update missing app") { try store.updateApp(AppRecord(id: "nope", name: "x", createdAt: t0)) }
        log.step("updated app") { try store.app(id: "a1") }
        log.run("create u1") { try store.createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: t0)) }
        log.run("create u2") {
            try store.createUser(UserRecord(appId: "a1", uid: "u2", name: "Bob", avatar: "https://a/b.png", createdAt: t0))
        }
        log.run("create u0") { try store.createUser(UserRecord(appId: "a1", uid: "U0", name: "Cid", createdAt: t0)) }
        log.run("create u1 again") { try store.createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: t0)) }
        log.run("user of a missing app") { try store.createUser(UserRecord(appId: "nope", uid: "u1", name: "Ann", createdAt: t0)) }
        log.step("user") { try store.user(appId: "a1", uid: "u2") }
        log.step("users by uid") { try store.users(appId: "a1") }
        for (index, hash) in [Data([1]), Data([2]), Data([3])].enumerated() {
            let uid = index == 2 ? "u2" : "u1"
            log.run("add auth token \(index)") {
                try store.addAuthToken(
                    AuthTokenRecord(hash: hash, appId: "a1", uid: uid, hint: "h\(index)", createdAt: t0.addingTimeInterval(Double(index))))
            }
        }
        log.run("add auth token again") {
            try store.addAuthToken(AuthTokenRecord(hash: Data([1]), appId: "a1", uid: "u1", hint: "h", createdAt: t0))
        }
        log.run("auth token of a missing user") {
            try store.addAuthToken(AuthTokenRecord(hash: Data([9]), appId: "a1", uid: "ghost", hint: "h", createdAt: t0))
        }
        log.step("auth token") { try store.authToken(hash: Data([1])) }
        log.step("auth tokens") { try store.authTokens(appId: "a1", uid: "u1") }
        log.step("revoke one") { try store.revokeAuthToken(appId: "a1", uid: "u1", hash: Data([1]), now: t0) }
        log.step("revoke it again") { try store.revokeAuthToken(appId: "a1", uid: "u1", hash: Data([1]), now: t0) }
        log.step("revoke all") { try store.revokeAuthTokens(appId: "a1", uid: "u1", now: t0) }
        let provider = ProviderRecord(
            appId: "a1", id: "p1", kind: .apns, settings: Data("{\"k\":1}".utf8), sealedSecret: Data([7, 0, 7]), createdAt: t0,
            updatedAt: t0)
        log.run("create provider") { try store.createProvider(provider) }
        log.run("create fcm provider") {
            try store.createProvider(
                ProviderRecord(appId: "a1", id: "p0", kind: .fcm, settings: Data(), sealedSecret: Data(), createdAt: t0, updatedAt: t0))
        }
        log.run("create provider again") { try store.createProvider(provider) }
        log.run("provider of a missing app") {
            var other = provider
            other.appId = "nope"
            try store.createProvider(other)
        }
        log.step("provider") { try store.provider(appId: "a1", id: "p1") }
        log.step("providers by id") { try store.providers(appId: "a1") }
        log.run("update provider") {
            var changed = provider
            changed.settings = Data("{\"k\":2}".utf8)
            changed.updatedAt = t0.addingTimeInterval(60)
            try store.updateProvider(changed)
        }
        log.run("update missing provider") {
            var missing = provider
            missing.id = "nope"
            try store.updateProvider(missing)
        }
        log.step("updated provider") { try store.provider(appId: "a1", id: "p1") }
        log.step("delete provider") { try store.deleteProvider(appId: "a1", id: "p0") }
        log.step("delete it again") { try store.deleteProvider(appId: "a1", id: "p0") }
        log.step("register u2 token") { try store.registerToken(token("t-u2", uid: "u2", hash: Data([3])), maxPerUser: 10) }
        log.step("delete u2") { try store.deleteUser(appId: "a1", uid: "u2") }
        log.step("delete u2 again") { try store.deleteUser(appId: "a1", uid: "u2") }
        log.step("u2's auth token went with u2") { try store.authToken(hash: Data([3])) }
        log.step("u2's push token went with u2") { try store.tokens(appId: "a1", uid: nil) }
        log.step("delete app") { try store.deleteApp(id: "a1") }
        log.step("delete app again") { try store.deleteApp(id: "a1") }
        log.step("users after") { try store.users(appId: "a1") }
        log.step("providers after") { try store.providers(appId: "a1") }
        log.step("apps after") { try store.apps() }
        return log.steps
    }

    /// Push tokens: upsert, moving to another user, pruning beyond maxPerUser by
    /// registration order, environments, deletes.
    static func tokens(_ store: any ServiceStore) -> [AnyHashable] {
        let log = StoreTranscript()
        log.run("setup") {
            try store.createApp(AppRecord(id: "a1", name: "App", createdAt: t0))
            try store.createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: t0))
            try store.createUser(UserRecord(appId: "a1", uid: "u2", name: "Bob", createdAt: t0))
        }
        log.step("register 1") { try store.registerToken(token("tok1", environment: .sandbox), maxPerUser: 3) }
        log.step("register 2") { try store.registerToken(token("tok2", at: 1), maxPerUser: 3) }
        log.step("register 3") { try store.registerToken(token("tok3", hash: Data([2]), at: 2), maxPerUser: 3) }
        log.step("register 1 again (now the newest)") { try store.registerToken(token("tok1", at: 3), maxPerUser: 3) }
        log.step("register 4 (prunes the oldest: 2)") { try store.registerToken(token("tok4", at: 4), maxPerUser: 3) }
        log.step("u1's tokens by registration") { try store.tokens(appId: "a1", uid: "u1").map(\.token) }
        log.step("move tok3 to u2") { try store.registerToken(token("tok3", uid: "u2", environment: .production, at: 5), maxPerUser: 3) }
        log.step("move it back keeps its environment") { try store.registerToken(token("tok3", at: 6), maxPerUser: 3) }
        log.step("maxPerUser 0 refuses and changes nothing") { try store.registerToken(token("tok5", at: 7), maxPerUser: 0) }
        log.step("negative maxPerUser keeps all") { try store.registerToken(token("tok6", at: 8), maxPerUser: -1) }
        log.step("token of a missing user") { try store.registerToken(token("tok7", uid: "ghost"), maxPerUser: 3) }
        log.step("all tokens") { try store.tokens(appId: "a1", uid: nil) }
        log.run("record environment") { try store.recordTokenEnvironment(appId: "a1", token: "tok4", environment: .production) }
        // What the providers' circuit breakers keep: tokens that delivered, providers' last delivery.
        log.step("tok4 never delivered, p1 neither") {
            [
                try store.tokenHasDelivered(appId: "a1", token: "tok4") ? "delivered" : "-",
                try store.providerLastDelivered(appId: "a1", providerId: "p1").map { "\($0)" } ?? "-",
            ]
        }
        log.run("record deliveries") {
            try store.recordDeliveries(
                tokens: [TokenRef(appId: "a1", token: "tok4"), TokenRef(appId: "a1", token: "gone")],
                providers: [ProviderRef(appId: "a1", providerId: "p1"), ProviderRef(appId: "a1", providerId: "gone")], at: t0)
            try store.recordDeliveries(tokens: [TokenRef(appId: "a1", token: "tok4")], providers: [], at: t0.addingTimeInterval(9))
        }
        log.step("tok4 delivered (first time kept), tok6 not; p1's last delivery") {
            [
                try store.tokenHasDelivered(appId: "a1", token: "tok4") ? "delivered" : "-",
                try store.tokenHasDelivered(appId: "a1", token: "tok6") ? "delivered" : "-",
                try store.providerLastDelivered(appId: "a1", providerId: "p1").map { "\($0.timeIntervalSince(t0))" } ?? "-",
            ]
        }
        log.run("update p1") {
            guard var changed = try store.provider(appId: "a1", id: "p1") else { throw StoreError.notFound }
            changed.updatedAt = t0.addingTimeInterval(20)
            try store.updateProvider(changed)
        }
        log.step("an update forgets p1's last delivery") {
            try store.providerLastDelivered(appId: "a1", providerId: "p1").map { "\($0)" } ?? "-"
        }
        log.step("u1's tokens") { try store.tokens(appId: "a1", uid: "u1") }
        log.step("delete by auth token") { try store.deleteTokens(appId: "a1", authTokenHash: Data([2])) }
        log.step("delete one") { try store.deleteToken(appId: "a1", token: "tok1") }
        log.step("delete it again") { try store.deleteToken(appId: "a1", token: "tok1") }
        log.step("left") { try store.tokens(appId: "a1", uid: nil).map(\.token) }
        return log.steps
    }

    /// Sends, claims (calls first, leases, expired leases), outcomes, waiting jobs,
    /// environments, the delivery log, webhooks, calls and the shared provider token.
    /// Notification preferences, and jobs a preference skipped (stored, never claimed or counted).
    static func preferences(_ store: any ServiceStore) -> [AnyHashable] {
        let log = StoreTranscript()
        log.run("setup") {
            try store.createApp(AppRecord(id: "a1", name: "App", createdAt: t0))
            try store.createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: t0))
            try store.createUser(UserRecord(appId: "a1", uid: "u2", name: "Bob", createdAt: t0))
        }
        log.step("none set") { try store.preferences(appId: "a1", uid: "u1") }
        log.run("set") {
            try store.setMute(
                appId: "a1", uid: "u1",
                mute: PushPreferences.Mute(receiverType: "user", receiver: "u2", until: t0.addingTimeInterval(60.123)),
                now: t0)
            try store.setMute(
                appId: "a1", uid: "u1", mute: PushPreferences.Mute(receiverType: "group", receiver: "g1", until: nil), now: t0)
            try store.setGroupLevel(appId: "a1", uid: "u1", guid: "g2", level: "mentions", now: t0)
            try store.setQuietHours(
                appId: "a1", uid: "u1", quietHours: PushPreferences.QuietHours(start: 1_320, end: 420, includeCalls: true, timezone: nil),
                now: t0)
        }
        log.step("read") { try store.preferences(appId: "a1", uid: "u1") }
        log.run("replace") {
            try store.setMute(appId: "a1", uid: "u1", mute: PushPreferences.Mute(receiverType: "user", receiver: "u2", until: nil), now: t0)
            try store.setGroupLevel(appId: "a1", uid: "u1", guid: "g2", level: "none", now: t0)
            try store.setQuietHours(
                appId: "a1", uid: "u1",
                quietHours: PushPreferences.QuietHours(start: 60, end: 120, includeCalls: false, timezone: "Asia/Tokyo"), now: t0)
        }
        log.step("read again") { try store.preferences(appId: "a1", uid: "u1") }
        log.step("another user's") { try store.preferences(appId: "a1", uid: "u2") }
        log.step("unmute") { try store.deleteMute(appId: "a1", uid: "u1", receiverType: "group", receiver: "g1") }
        log.step("unmute again") { try store.deleteMute(appId: "a1", uid: "u1", receiverType: "group", receiver: "g1") }
        log.run("clear quiet hours") { try store.setQuietHours(appId: "a1", uid: "u1", quietHours: nil, now: t0) }
        log.step("after") { try store.preferences(appId: "a1", uid: "u1") }
        var skipped = job("s1")
        skipped.skipped = true
        skipped.rule = "muted"
        var quiet = job("s2")
        quiet.rule = "quiet-hours"
        log.step("accept a skipped and a quiet job") {
            try store.acceptSend(
                appId: "a1", idempotencyKey: "k1", requestHash: Data([1]), jobs: [skipped, quiet], webhooks: [], response: Data(), now: t0)
        }
        log.step("counts") { try store.pushJobCounts() }
        log.step("active counts") { try store.activePushJobCounts() }
        log.step("claim: only the quiet job") { try store.claimPushJobs(limit: 10, lease: 30, now: t0.addingTimeInterval(3600)) }
        log.step("log") { try store.pushJobLog(appId: "a1", requestId: "r1") }
        log.step("jobs") { try store.pushJobs(requestId: "r1") }
        log.run("delete the user") { _ = try store.deleteUser(appId: "a1", uid: "u1") }
        log.step("gone with the user") { try store.preferences(appId: "a1", uid: "u1") }
        return log.steps
    }

    static func outbox(_ store: any ServiceStore) -> [AnyHashable] {
        let log = StoreTranscript()
        let now = t0.addingTimeInterval(10)
        log.run("setup") {
            try store.createApp(AppRecord(id: "a1", name: "App", createdAt: t0))
            try store.createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: t0))
            _ = try store.registerToken(token("live"), maxPerUser: 10)
            _ = try store.registerToken(token("dead", at: 1), maxPerUser: 10)
        }
        let jobs = [
            job("j1", notBefore: t0), job("j2", token: "dead", notBefore: t0.addingTimeInterval(1)),
            job("j3", notBefore: t0.addingTimeInterval(30)),
        ]
        log.step("accept") {
            try store.acceptSend(
                appId: "a1", idempotencyKey: "k1", requestHash: Data([1, 1]), jobs: jobs, webhooks: [webhook("w1", body: Data())],
                response: Data("{\"requestId\":\"r1\"}".utf8), now: now)
        }
        log.step("same key, same request: replayed") {
            try store.acceptSend(
                appId: "a1", idempotencyKey: "k1", requestHash: Data([1, 1]), jobs: [job("jx")], webhooks: [], response: Data("other".utf8),
                now: now)
        }
        log.step("same key, other request: reused") {
            try store.acceptSend(
                appId: "a1", idempotencyKey: "k1", requestHash: Data([2]), jobs: [job("jy")], webhooks: [], response: Data(), now: now)
        }
        log.step("same key in another app is another key") {
            try store.acceptSend(
                appId: "a2", idempotencyKey: "k1", requestHash: Data([2]), jobs: [], webhooks: [], response: Data([5]), now: now)
        }
        log.step("a job id twice: conflict, nothing kept") {
            try store.acceptSend(
                appId: "a1", idempotencyKey: "k2", requestHash: Data([3]), jobs: [job("j1")], webhooks: [], response: Data(), now: now)
        }
        log.step("k2 was rolled back") {
            try store.acceptSend(
                appId: "a1", idempotencyKey: "k2", requestHash: Data([4]), jobs: [], webhooks: [], response: Data([4]), now: now)
        }
        log.step("jobs of r1") { try store.pushJobs(requestId: "r1") }
        log.run("enqueue a call and a webhook") {
            try store.enqueue(
                webhooks: [webhook("w2", notBefore: t0.addingTimeInterval(1))],
                pushJobs: [job("c1", request: "r2", kind: .call, notBefore: t0.addingTimeInterval(5))])
        }
        log.step("counts") { try store.pushJobCounts() }
        log.step("claim 2: the call first") { try store.claimPushJobs(limit: 2, lease: 30, now: now) }
        log.step("claim the rest due") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(1)) }
        log.step("leased jobs are not claimed") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(5)) }
        log.step("claim 0") { try store.claimPushJobs(limit: 0, lease: 30, now: now.addingTimeInterval(100)) }
        log.step("active counts") { try store.activePushJobCounts() }
        log.run("finish a batch") {
            try store.finishPushJobs(
                [
                    ("c1", .delivered), ("j1", .retry(notBefore: now.addingTimeInterval(10), reason: "503")),
                    ("j2", .tokenInvalid(reason: "Unregistered")),
                ], now: now.addingTimeInterval(2))
        }
        log.step("the dead token is gone") { try store.tokens(appId: "a1", uid: nil).map(\.token) }
        log.step("counts after") { try store.pushJobCounts() }
        log.step("claim after the retry is due") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(20)) }
        log.run("fail and expire") {
            try store.finishPushJob(id: "j3", outcome: .failed(reason: "BadTopic"), now: now.addingTimeInterval(21))
            try store.finishPushJob(id: "j1", outcome: .expired(reason: "past expiration"), now: now.addingTimeInterval(21))
        }
        log.step("nothing left") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(100)) }
        log.run("enqueue j4") { try store.enqueue(webhooks: [], pushJobs: [job("j4", request: "r3", notBefore: now)]) }
        log.step("claim j4") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(101)) }
        log.step("its lease runs out: claimed again") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(200)) }
        log.step("own leases are not abandoned") { try store.releaseAbandonedLeases(now: now.addingTimeInterval(201)) }
        log.run("j4 waits for its provider") {
            try store.finishPushJob(
                id: "j4", outcome: .retry(notBefore: now.addingTimeInterval(9_000), reason: JobOutcome.waitingPrefix + ": bad key"),
                now: now.addingTimeInterval(202))
        }
        log.step("release for another provider") {
            try store.releaseWaitingJobs(appId: "a1", providerId: "p9", now: now.addingTimeInterval(300))
        }
        log.step("release for its provider") {
            try store.releaseWaitingJobs(appId: "a1", providerId: "p1", now: now.addingTimeInterval(300))
        }
        log.run("enqueue j5 and j6") {
            try store.enqueue(
                webhooks: [],
                pushJobs: [
                    job("j5", request: "r4", notBefore: now.addingTimeInterval(500)),
                    job("j6", request: "r4", token: "other", notBefore: now.addingTimeInterval(500)),
                ])
        }
        log.run("record environment") { try store.recordTokenEnvironment(appId: "a1", token: "live", environment: .sandbox) }
        log.step("pending jobs took it") { try store.pushJobs(requestId: "r4").map { [$0.id, $0.environment?.rawValue ?? "-"] } }
        log.step("claim j4 (released)") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(301)) }
        log.step("log of r1") { try store.pushJobLog(appId: "a1", requestId: "r1") }
        log.step("log of r1 in another app") { try store.pushJobLog(appId: "a2", requestId: "r1") }
        log.step("final counts") { try store.pushJobCounts() }
        log.step("final active counts") { try store.activePushJobCounts() }
        log.run("finish j4 twice: delivered, then a late retry") {
            try store.finishPushJob(id: "j4", outcome: .delivered, now: now.addingTimeInterval(302))
            try store.finishPushJob(
                id: "j4", outcome: .retry(notBefore: now.addingTimeInterval(303), reason: "late"), now: now.addingTimeInterval(302))
        }
        log.step("the late retry made j4 pending again") { try store.pushJobLog(appId: "a1", requestId: "r3") }
        log.step("counts after the late retry") { try store.pushJobCounts() }
        log.step("j4 is claimed once more") { try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(400)) }
        log.run("a failure ends j4") {
            try store.finishPushJob(id: "j4", outcome: .failed(reason: "BadDeviceToken"), now: now.addingTimeInterval(401))
        }
        // A claim can leave out providers (the engine's per-provider share): their jobs stay due.
        log.run("enqueue j7 (p1), j8 (p2), a call j9 (p2)") {
            let due = now.addingTimeInterval(500)
            try store.enqueue(
                webhooks: [],
                pushJobs: [
                    job("j7", request: "r5", notBefore: due), job("j8", request: "r5", notBefore: due, provider: "p2"),
                    job("j9", request: "r5", kind: .call, notBefore: due, provider: "p2"),
                ])
        }
        let p2 = ProviderRef(appId: "a1", providerId: "p2")
        log.step("claim without p2: only the due jobs of p1") {
            try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(501), excluding: [p2]).map(\.id).sorted()
        }
        log.step("claim without p1 and p2: nothing") {
            try store.claimPushJobs(
                limit: 10, lease: 30, now: now.addingTimeInterval(502), excluding: [p2, ProviderRef(appId: "a1", providerId: "p1")]
            ).map(\.id)
        }
        log.step("p2's jobs were left due, attempts untouched") {
            try store.claimPushJobs(limit: 10, lease: 30, now: now.addingTimeInterval(503), excluding: []).map {
                [$0.id, "\($0.attempts)"]
            }.sorted {
                $0[0] < $1[0]
            }
        }
        log.run("finish j7, j8, j9") {
            try store.finishPushJobs(["j7", "j8", "j9"].map { ($0, JobOutcome.delivered) }, now: now.addingTimeInterval(504))
        }
        log.step("every job as exported") { try store.allPushJobs() }
        log.step("j4's log") { try store.pushJobLog(appId: "a1", requestId: "r3") }
        // Webhooks
        log.step("pending webhooks") { try store.pendingWebhookJobCount() }
        log.step("claim 1 webhook (oldest)") { try store.claimWebhookJobs(limit: 1, lease: 30, now: now) }
        log.step("claim the others") { try store.claimWebhookJobs(limit: 10, lease: 30, now: now) }
        log.run("retry w1") { try store.finishWebhookJob(id: "w1", retryAt: now.addingTimeInterval(60), error: "HTTP 500") }
        log.step("w1 not yet due, w2 leased") { try store.claimWebhookJobs(limit: 10, lease: 30, now: now.addingTimeInterval(10)) }
        log.step("w1 due, w2's lease over") { try store.claimWebhookJobs(limit: 10, lease: 30, now: now.addingTimeInterval(61)) }
        log.run("deliver both") {
            try store.finishWebhookJob(id: "w1", retryAt: nil, error: nil)
            try store.finishWebhookJob(id: "w2", retryAt: nil, error: nil)
        }
        log.step("pending webhooks after") { try store.pendingWebhookJobCount() }
        log.step("no webhooks left") { try store.claimWebhookJobs(limit: 10, lease: 30, now: now.addingTimeInterval(1_000)) }
        // Webhook claims share themselves among apps: at most `perApp` minus what is in flight.
        log.run("enqueue three of a1, two of a2") {
            let due = now.addingTimeInterval(2_000)
            try store.enqueue(
                webhooks: ["w3", "w4", "w5"].map { webhook($0, notBefore: due) }
                    + ["w6", "w7"].map { webhook($0, app: "a2", notBefore: due) },
                pushJobs: [])
        }
        func shared(_ busy: [String: Int]) throws -> [String] {
            try store.claimWebhookJobs(limit: 10, lease: 30, now: now.addingTimeInterval(2_001), perApp: 2, busy: busy).map(\.id)
        }
        log.step("a1 has one in flight: one more of a1, both of a2") { try shared(["a1": 1]) }
        log.step("a1 at its limit: none of a1") { try shared(["a1": 2]) }
        log.step("a1 free again: its other two") { try shared([:]) }
        // Calls
        log.run("record a call") {
            try store.recordCall(CallRecord(appId: "a1", sessionId: "s1", callerUid: "u1", details: Data([1]), createdAt: t0))
        }
        log.run("replace it") {
            try store.recordCall(
                CallRecord(appId: "a1", sessionId: "s1", callerUid: "u9", details: Data(), createdAt: t0.addingTimeInterval(5)))
        }
        log.step("call") { try store.call(appId: "a1", sessionId: "s1") }
        log.step("missing call") { try store.call(appId: "a1", sessionId: "s2") }
        log.step("nobody answers a call without recipients") { try store.recordCallAnswer(appId: "a1", sessionId: "s1", uid: "u1") }
        log.run("a call to u2 and u3") {
            try store.recordCall(
                CallRecord(appId: "a1", sessionId: "s3", callerUid: "u1", details: Data([2]), createdAt: t0, recipients: ["u2", "u3"]))
        }
        for uid in ["u2", "u2", "u3", "u1", "u"] {
            log.step("\(uid) answers s3") { try store.recordCallAnswer(appId: "a1", sessionId: "s3", uid: uid) }
        }
        log.step("nobody answers a missing call") { try store.recordCallAnswer(appId: "a1", sessionId: "s9", uid: "u2") }
        log.run("s3 pushed again keeps who answered") {
            try store.recordCall(
                CallRecord(appId: "a1", sessionId: "s3", callerUid: "u1", details: Data([3]), createdAt: t0, recipients: ["u2", "u3"]))
        }
        log.step("u2 answers s3 again") { try store.recordCallAnswer(appId: "a1", sessionId: "s3", uid: "u2") }
        // The shared provider token
        let first = SharedProviderToken(sealed: Data([0, 9, 0]), issuedAt: t0)
        log.step("first token") { try store.withSharedProviderToken(teamId: "T", keyId: "K") { $0 == nil ? first : nil } }
        log.step("kept") { try store.withSharedProviderToken(teamId: "T", keyId: "K") { _ in nil } }
        log.step("replaced") {
            try store.withSharedProviderToken(teamId: "T", keyId: "K") {
                $0 == first ? SharedProviderToken(sealed: Data(), issuedAt: now) : nil
            }
        }
        log.step("other key") { try store.withSharedProviderToken(teamId: "T", keyId: "K2") { _ in nil } }
        log.step("an update that throws stores nothing") {
            try store.withSharedProviderToken(teamId: "T", keyId: "K3") { _ in throw StoreError.notFound }
        }
        // Push events (the trace): the first report of a step wins.
        func entry(_ pushId: String, app: String = "a1") throws -> [AnyHashable] {
            guard let (requestId, entry) = try store.pushJobEntry(appId: app, pushId: pushId) else { return [] }
            return [requestId, entry]
        }
        log.step("job of a push") { try entry("j1") }
        log.step("no job in another app") { try entry("j1", app: "a2") }
        log.step("no such push") { try entry("nope") }
        func record(_ step: String, at offset: Double, detail: String?) throws -> [AnyHashable] {
            let (stored, added) = try store.recordPushEvent(
                PushEvent(appId: "a1", pushId: "j1", requestId: "r1", step: step, at: t0.addingTimeInterval(offset), detail: detail))
            return [stored, added]
        }
        log.step("delivered") { try record("delivered", at: 20, detail: "extension") }
        log.step("delivered again") { try record("delivered", at: 21, detail: "app") }
        log.step("opened") { try record("opened", at: 22, detail: nil) }
        log.step("events") { try store.pushEvents(appId: "a1", requestId: "r1") }
        log.step("no events of another request") { try store.pushEvents(appId: "a1", requestId: "r2") }
        log.step("rows") { try StoreTable.allCases.map { try store.rowCount(table: $0) } }
        // Deleting the app takes its tokens, idempotency keys, calls and webhook jobs (not its push jobs).
        log.step("delete app") { try store.deleteApp(id: "a1") }
        log.step("rows after") { try StoreTable.allCases.map { try store.rowCount(table: $0) } }
        return log.steps
    }
}

/// ``PostgresStore`` against a real PostgreSQL (`PUSH_TEST_DATABASE_URL`), each test in a
/// schema of its own: the same behaviour as ``SQLiteStore`` (the scenarios above run on both),
/// and what only several instances show: claims that never overlap, leases of a closed store
/// released by another, notifications, the shared provider token, migrations at once.
@Suite(.enabled(if: PGTest.isConfigured, "PUSH_TEST_DATABASE_URL is not set (Server/Scripts/ci.sh sets it)"))
struct PostgresStoreTests {
    static func sqlite() throws -> SQLiteStore {
        try SQLiteStore(path: NSTemporaryDirectory() + "pg-mirror-" + UUID().uuidString + ".sqlite", synchronousFull: false)
    }

    static func compare(_ scenario: (any ServiceStore) -> [AnyHashable]) throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let postgres = try schema.open()
        defer { postgres.close() }
        let expected = scenario(try sqlite())
        let observed = scenario(postgres)
        #expect(observed.count == expected.count)
        for (index, (mine, theirs)) in zip(observed, expected).enumerated() {
            #expect(mine == theirs, "step \(index)")
        }
    }

    @Test func accountsBehaveAsOnSQLite() throws {
        try Self.compare(StoreScenarios.accounts)
    }

    @Test func tokensBehaveAsOnSQLite() throws {
        try Self.compare(StoreScenarios.tokens)
    }

    @Test func preferencesBehaveAsOnSQLite() throws {
        try Self.compare(StoreScenarios.preferences)
    }

    @Test func outboxBehavesAsOnSQLite() throws {
        try Self.compare(StoreScenarios.outbox)
    }

    @Test func migratesOnceWhenThreeInstancesOpenAtOnce() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let opened = Locked<[Result<PostgresStore, any Error>]>([])
        Self.onThreads(3) { _ in
            let result = Result { try schema.open(poolSize: 2) }
            opened.withLock { $0.append(result) }
        }
        let stores = try opened.withLock { $0 }.map { try $0.get() }
        defer { stores.forEach { $0.close() } }
        #expect(stores.allSatisfy { $0.schemaVersion == 22 })
        #expect(
            try schema.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations")
                == "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22"
        )
        // Migration 22: room on each page for a finish to rewrite its job rows in place (HOT).
        #expect(
            try schema.psql(
                """
                SELECT string_agg(relname || ':' || array_to_string(reloptions, ','), ' ' ORDER BY relname) FROM pg_class
                WHERE relnamespace = current_schema()::regnamespace AND relname IN ('push_jobs', 'push_tokens')
                """) == "push_jobs:fillfactor=45 push_tokens:fillfactor=70")
        let reopened = try schema.open(poolSize: 1)
        defer { reopened.close() }
        #expect(reopened.schemaVersion == 22)
        #expect(try schema.psql("SELECT count(*) FROM schema_migrations") == "22")
        #expect(try schema.psql("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == "25")
    }

    /// A database of schema 6 (job leases in `push_jobs`) with jobs in every state: migration 7
    /// moves the pending and leased ones into `push_queue`, and the store then sees every job
    /// as before (state, attempts, lease), claims them in the same order, honours the leases
    /// that still run and takes over those of an owner that is gone.
    @Test func migratingFromSchema6KeepsPendingAndLeasedJobs() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        #expect(try PostgresStore.migrate(url: schema.url, to: 6) == 6)
        let t0 = Int64(StoreScenarios.t0.timeIntervalSince1970 * 1000)
        func job(
            _ id: String, kind: String = "chat", state: String, attempts: Int, notBefore: Int64, leaseUntil: Int64? = nil,
            owner: String? = nil, error: String? = nil, finishedAt: Int64? = nil
        ) -> String {
            func text(_ value: String?) -> String { value.map { "'\($0)'" } ?? "NULL" }
            func int(_ value: Int64?) -> String { value.map(String.init) ?? "NULL" }
            return """
                ('\(id)', 'a1', 'r1', 'u1', 'tok', 'apns_ios_device', '\(kind)', 'p1', '\\x7b7d', 'alert', 10, 0, NULL, '', '\(state)',
                \(attempts), \(notBefore), \(int(leaseUntil)), \(text(error)), \(t0), \(int(finishedAt)), \(text(owner)), NULL, NULL)
                """
        }
        let rows = [
            job("j-pending", state: "pending", attempts: 0, notBefore: t0 + 2),
            job("j-call", kind: "call", state: "pending", attempts: 0, notBefore: t0 + 3),
            job("j-retry", state: "pending", attempts: 2, notBefore: t0 + 600_000, error: "503"),
            job("j-expired", state: "leased", attempts: 1, notBefore: t0, leaseUntil: t0 + 5_000, owner: "old-owner"),
            job("j-gone", state: "leased", attempts: 3, notBefore: t0 + 20_000, leaseUntil: t0 + 300_000, owner: "gone-owner"),
            job("j-done", state: "delivered", attempts: 1, notBefore: t0, finishedAt: t0 + 50),
            job("j-skipped", state: "skipped", attempts: 0, notBefore: t0, finishedAt: t0),
        ]
        // The columns of schema 6 (those of migrations 13 and 14 came later).
        let later = ["private_plaintext", "trimmed", "interruption_level", "level_reason"]
        let schema6Columns = StoreTable.pushJobs.columns.filter { !later.contains($0) }
        try schema.psql("INSERT INTO push_jobs (\(schema6Columns.joined(separator: ", "))) VALUES " + rows.joined(separator: ", "))
        let columns = schema6Columns.map { "coalesce(\($0)::text, '-')" }.joined(separator: ", ")
        let before = try schema.psql("SELECT string_agg(concat_ws('|', \(columns)), E'\\n' ORDER BY id) FROM push_jobs")

        let store = try schema.open(poolSize: 2)
        defer { store.close() }
        #expect(store.schemaVersion == 22)
        // Every job reads as before, through the export and the counts.
        #expect(try schema.psql("SELECT string_agg(concat_ws('|', \(columns)), E'\\n' ORDER BY id) FROM push_job_rows") == before)
        #expect(
            try schema.psql("SELECT string_agg(id || ':' || lane, ',' ORDER BY id) FROM push_queue")
                == "j-call:0,j-expired:2,j-gone:2,j-pending:1,j-retry:1")
        #expect(try store.pushJobCounts() == OutboxCounts(pending: 3, inFlight: 2, delivered: 1, failed: 0))
        #expect(try store.activePushJobCounts() == OutboxCounts(pending: 3, inFlight: 2, delivered: 0, failed: 0))
        let leased = try store.pushJobLog(appId: "a1", requestId: "r1").filter { $0.state == "leased" }.map(\.id)
        #expect(leased == ["j-expired", "j-gone"])

        // Ten seconds on: the call, the due job and the lease that ran out (calls first, then by
        // due time); not the retry (due later) nor the lease that still runs.
        let now = StoreScenarios.t0.addingTimeInterval(10)
        let claimed = try store.claimPushJobs(limit: 10, lease: 30, now: now)
        #expect(claimed.map(\.id) == ["j-call", "j-expired", "j-pending"])
        #expect(claimed.map(\.attempts) == [1, 2, 1])
        // gone-owner holds no advisory lock: its lease is taken over at once, keeping its attempts
        // (and due now, though it was claimed for later by a clock ahead of this one).
        #expect(try store.releaseAbandonedLeases(now: now) == 1)
        let takenOver = try store.claimPushJobs(limit: 10, lease: 30, now: now)
        #expect(takenOver.map(\.id) == ["j-gone"] && takenOver.map(\.attempts) == [4])
        #expect(takenOver.map { Int64(($0.notBefore.timeIntervalSince1970 * 1000).rounded()) } == [t0 + 10_000])
        try store.finishPushJobs(claimed.map { ($0.id, .delivered) } + [("j-gone", .failed(reason: "BadTopic"))], now: now)
        #expect(try store.pushJobCounts() == OutboxCounts(pending: 1, inFlight: 0, delivered: 4, failed: 1))
        #expect(
            try schema.psql("SELECT string_agg(id || ':' || state || ':' || attempts, ',' ORDER BY id) FROM push_jobs")
                == "j-call:delivered:1,j-done:delivered:1,j-expired:delivered:2,j-gone:failed:4,j-pending:delivered:1,"
                + "j-retry:pending:2,j-skipped:skipped:0")
    }

    @Test func concurrentClaimsFromTwoInstancesNeverShareAJob() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let stores = [try schema.open(poolSize: 3), try schema.open(poolSize: 3)]
        defer { stores.forEach { $0.close() } }
        let total = 2_000
        let jobs = (0..<total).map {
            StoreScenarios.job(
                String(format: "job-%05d", $0), kind: $0 % 10 == 0 ? .call : .chat,
                notBefore: StoreScenarios.t0.addingTimeInterval(Double($0 % 7)))
        }
        try stores[0].enqueue(webhooks: [], pushJobs: jobs)
        let claimed = Locked<[String]>([])
        let failures = Locked<[String]>([])
        let now = StoreScenarios.t0.addingTimeInterval(60)
        Self.onThreads(6) { worker in
            let store = stores[worker % 2]
            do {
                while true {
                    let batch = try store.claimPushJobs(limit: 25, lease: 300, now: now)
                    if batch.isEmpty {
                        if try store.activePushJobCounts().pending == 0 { return }
                        continue
                    }
                    claimed.withLock { $0 += batch.map(\.id) }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let ids = claimed.withLock { $0 }
        #expect(ids.count == total, "every job claimed exactly once")
        #expect(Set(ids).count == ids.count, "no job claimed twice")
        #expect(try stores[1].pushJobCounts().inFlight == total)
    }

    @Test func leasesOfAClosedInstanceAreReleasedThoseOfALiveOneAreNot() async throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let gone = try schema.open(poolSize: 2)
        let live = try schema.open(poolSize: 2)
        let other = try schema.open(poolSize: 2)
        defer {
            live.close()
            other.close()
        }
        let now = StoreScenarios.t0.addingTimeInterval(60)
        try other.enqueue(
            webhooks: [StoreScenarios.webhook("w1"), StoreScenarios.webhook("w2")],
            pushJobs: (1...4).map { StoreScenarios.job("j\($0)", notBefore: StoreScenarios.t0.addingTimeInterval(Double($0))) })
        let goneJobs = try gone.claimPushJobs(limit: 2, lease: 300, now: now).map(\.id)
        let liveJobs = try live.claimPushJobs(limit: 2, lease: 300, now: now).map(\.id)
        let goneHooks = try gone.claimWebhookJobs(limit: 1, lease: 300, now: now).map(\.id)
        _ = try live.claimWebhookJobs(limit: 1, lease: 300, now: now)
        #expect(goneJobs == ["j1", "j2"] && liveJobs == ["j3", "j4"])
        // While both run, nothing is abandoned.
        #expect(try other.releaseAbandonedLeases(now: now) == 0)
        gone.close()
        // The server ends the closed store's session (and its lock) a moment after it hangs up.
        var released = 0
        _ = try await eventually(timeout: 10) {
            released += try other.releaseAbandonedLeases(now: now)
            return released >= 3
        }
        #expect(released == 3)
        #expect(try other.pushJobCounts() == OutboxCounts(pending: 2, inFlight: 2, delivered: 0, failed: 0))
        // The released jobs are due at once (well before their lease would have run out).
        #expect(try other.claimPushJobs(limit: 10, lease: 300, now: now).map(\.id) == goneJobs)
        #expect(try other.claimWebhookJobs(limit: 10, lease: 300, now: now).map(\.id) == goneHooks)
        #expect(try live.releaseAbandonedLeases(now: now) == 0)
    }

    @Test func byteaRoundTripsEveryByteAndEmptyData() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let store = try schema.open()
        defer { store.close() }
        let every = Data((0...255).map { UInt8($0) })
        try store.createApp(AppRecord(id: "a1", name: "App", sealedWebhookSecret: Data(), createdAt: StoreScenarios.t0))
        try store.createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: StoreScenarios.t0))
        #expect(try store.app(id: "a1")?.sealedWebhookSecret == Data(), "empty, not NULL")
        try store.addAuthToken(AuthTokenRecord(hash: every, appId: "a1", uid: "u1", hint: "h", createdAt: StoreScenarios.t0))
        #expect(try store.authToken(hash: every)?.hash == every)
        try store.createProvider(
            ProviderRecord(
                appId: "a1", id: "p1", kind: .apns, settings: every, sealedSecret: Data(), createdAt: StoreScenarios.t0,
                updatedAt: StoreScenarios.t0))
        #expect(try store.provider(appId: "a1", id: "p1")?.settings == every)
        #expect(try store.provider(appId: "a1", id: "p1")?.sealedSecret == Data())
        try store.enqueue(
            webhooks: [StoreScenarios.webhook("w1", body: every), StoreScenarios.webhook("w2", body: Data())],
            pushJobs: [StoreScenarios.job("j1", payload: every), StoreScenarios.job("j2", payload: Data())])
        let jobs = try store.claimPushJobs(limit: 10, lease: 30, now: StoreScenarios.t0)
        #expect(Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0.payload) }) == ["j1": every, "j2": Data()])
        let hooks = try store.claimWebhookJobs(limit: 10, lease: 30, now: StoreScenarios.t0)
        #expect(Dictionary(uniqueKeysWithValues: hooks.map { ($0.id, $0.body) }) == ["w1": every, "w2": Data()])
        let token = try store.withSharedProviderToken(teamId: "T", keyId: "K") { _ in
            SharedProviderToken(sealed: every, issuedAt: StoreScenarios.t0)
        }
        #expect(token?.sealed == every)
        #expect(try store.withSharedProviderToken(teamId: "T", keyId: "K") { _ in nil }?.sealed == every)
        // Text round-trips as UTF-8, whatever the script.
        try store.createUser(UserRecord(appId: "a1", uid: "ü-😀-ß", name: "Zoë \u{202E}", createdAt: StoreScenarios.t0))
        #expect(try store.user(appId: "a1", uid: "ü-😀-ß")?.name == "Zoë \u{202E}")
    }

    @Test func textWithNULIsRefusedNotCut() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let store = try schema.open()
        defer { store.close() }
        try store.createApp(AppRecord(id: "a1", name: "App", createdAt: StoreScenarios.t0))
        let error = #expect(throws: StoreError.self) {
            try store.createUser(UserRecord(appId: "a1", uid: "u\u{0}x", name: "Ann", createdAt: StoreScenarios.t0))
        }
        guard case .database(let message)? = error else {
            Issue.record("expected a database error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("NUL"), "\(message)")
        #expect(try store.users(appId: "a1").isEmpty, "nothing stored, not even the text before the NUL")
        // In an array parameter too (a send's jobs).
        #expect(throws: StoreError.self) {
            try store.enqueue(webhooks: [], pushJobs: [StoreScenarios.job("j\u{0}1")])
        }
        #expect(try store.pushJobCounts() == OutboxCounts(pending: 0, inFlight: 0, delivered: 0, failed: 0))
    }

    @Test func addedJobsWakeEveryInstanceOnTheSchema() async throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let sender = try schema.open(poolSize: 2)
        let listener = try schema.open(poolSize: 2)
        defer {
            sender.close()
            listener.close()
        }
        let wakes = Locked(0)
        listener.onJobsAdded { wakes.withLock { $0 += 1 } }
        // enqueue, then acceptSend: each commit wakes the other instance.
        try sender.enqueue(webhooks: [], pushJobs: [StoreScenarios.job("j1")])
        #expect(await eventually(timeout: 10) { wakes.withLock { $0 } >= 1 })
        let before = wakes.withLock { $0 }
        _ = try sender.acceptSend(
            appId: "a1", idempotencyKey: "k", requestHash: Data([1]), jobs: [StoreScenarios.job("j2")], webhooks: [], response: Data(),
            now: StoreScenarios.t0)
        #expect(await eventually(timeout: 10) { wakes.withLock { $0 } > before })
        let afterSend = wakes.withLock { $0 }
        try sender.enqueue(webhooks: [StoreScenarios.webhook("w1")], pushJobs: [])
        #expect(await eventually(timeout: 10) { wakes.withLock { $0 } > afterSend })
    }

    @Test func aStoreOutlivesItsConnectionsBeingKilled() async throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let application = "victim_" + schema.name
        let log = RecordingLogHandler()
        let store = try schema.open(poolSize: 2, application: application, logger: log.logger())
        let other = try schema.open(poolSize: 1)
        defer {
            store.close()
            other.close()
        }
        let wakes = Locked(0)
        store.onJobsAdded { wakes.withLock { $0 += 1 } }
        #expect(try store.pushJobCounts().pending == 0)
        let killed = try PGTest.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'")
        #expect(Int(killed) ?? 0 >= 2, "the pool's connection and the listener's")
        // The pool reopens its connection on the next call.
        #expect(try store.pushJobCounts().pending == 0)
        // The listener reconnects and says so (notifications may have been missed), and the log
        // tells the loss once as a warning and the reconnection as info.
        #expect(await eventually(timeout: 10) { wakes.withLock { $0 } >= 1 })
        #expect(log.records(containing: "listener lost its connection").map(\.level) == [.warning])
        #expect(log.records(containing: "listener is connected again").map(\.level) == [.info])
        let before = wakes.withLock { $0 }
        try other.enqueue(webhooks: [], pushJobs: [StoreScenarios.job("j1")])
        #expect(await eventually(timeout: 10) { wakes.withLock { $0 } > before })
        // …and holds its lease lock again: its leases are not abandoned.
        _ = try store.claimPushJobs(limit: 1, lease: 300, now: StoreScenarios.t0.addingTimeInterval(60))
        #expect(try other.releaseAbandonedLeases(now: StoreScenarios.t0) == 0)
    }

    @Test func concurrentRegistrationsKeepAtMostMaxPerUser() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let stores = [try schema.open(poolSize: 4), try schema.open(poolSize: 4)]
        defer { stores.forEach { $0.close() } }
        try stores[0].createApp(AppRecord(id: "a1", name: "App", createdAt: StoreScenarios.t0))
        try stores[0].createUser(UserRecord(appId: "a1", uid: "u1", name: "Ann", createdAt: StoreScenarios.t0))
        let failures = Locked<[String]>([])
        Self.onThreads(8) { worker in
            for index in 0..<10 {
                do {
                    _ = try stores[worker % 2].registerToken(StoreScenarios.token("t\(worker)-\(index)"), maxPerUser: 3)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try stores[1].tokens(appId: "a1", uid: "u1").count == 3)
    }

    @Test func aSharedProviderTokenIsSignedOnceUnderContention() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let stores = try (0..<3).map { _ in try schema.open(poolSize: 4) }
        defer { stores.forEach { $0.close() } }
        let signed = Locked(0)
        let seen = Locked<Set<Data>>([])
        let failures = Locked<[String]>([])
        Self.onThreads(12) { worker in
            do {
                let token = try stores[worker % 3].withSharedProviderToken(teamId: "TEAM", keyId: "KEY") { stored in
                    if let stored, Date().timeIntervalSince(stored.issuedAt) < 1_200 { return nil }
                    let number = signed.withLock { count -> Int in
                        count += 1
                        return count
                    }
                    usleep(20_000)  // signing takes a while: others must wait, not sign too
                    return SharedProviderToken(sealed: Data("token-\(number)".utf8), issuedAt: Date())
                }
                if let token { seen.withLock { _ = $0.insert(token.sealed) } }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(signed.withLock { $0 } == 1)
        #expect(seen.withLock { $0 } == [Data("token-1".utf8)])
    }

    @Test func rowsMoveFromSQLiteToPostgreSQLAndBack() throws {
        let schema = try PGTestSchema()
        defer { schema.drop() }
        let postgres = try schema.open()
        defer { postgres.close() }
        let source = try Self.sqlite()
        try Self.fill(source)
        let back = try Self.sqlite()
        let original = try Self.rows(of: source)
        #expect(StoreTable.allCases.allSatisfy { !(original[$0] ?? []).isEmpty }, "every table has rows")
        try Self.copy(from: source, to: postgres)
        let copied = try Self.rows(of: postgres)
        for table in StoreTable.allCases {
            #expect(Set(copied[table] ?? []) == Set(original[table] ?? []), "\(table.rawValue)")
            #expect(try postgres.rowCount(table: table) == original[table]?.count)
        }
        try Self.copy(from: postgres, to: back)
        let returned = try Self.rows(of: back)
        for table in StoreTable.allCases {
            #expect(Set(returned[table] ?? []) == Set(original[table] ?? []), "\(table.rawValue)")
        }
        // The copy works: a duplicate import is a conflict, registration numbers follow the imported ones.
        #expect(throws: StoreError.conflict) { try Self.copy(from: source, to: postgres, tables: [.apps]) }
        let registered = try postgres.registerToken(StoreScenarios.token("after-import", at: 50), maxPerUser: 100)
        #expect(try postgres.tokens(appId: "a1", uid: "u1").last == registered)
        #expect(try postgres.claimPushJobs(limit: 100, lease: 30, now: StoreScenarios.t0.addingTimeInterval(10_000)).count > 0)
    }

    /// A store with rows in every table (in every state), through the store's own API.
    static func fill(_ store: any ServiceStore) throws {
        _ = StoreScenarios.tokens(store)
        let t0 = StoreScenarios.t0
        try store.createProvider(
            ProviderRecord(
                appId: "a1", id: "p1", kind: .apns, settings: Data([0, 255]), sealedSecret: Data(), createdAt: t0, updatedAt: t0))
        try store.addAuthToken(AuthTokenRecord(hash: Data([0, 1, 0]), appId: "a1", uid: "u1", hint: "h", createdAt: t0))
        try store.addAuthToken(AuthTokenRecord(hash: Data([0xff]), appId: "a1", uid: "u2", hint: "h2", createdAt: t0))
        for index in 0..<7 {
            _ = try store.acceptSend(
                appId: "a1", idempotencyKey: "k\(index)", requestHash: Data([UInt8(index)]),
                jobs: (0..<3).map {
                    StoreScenarios.job(
                        "j\(index)-\($0)", request: "r\(index)", kind: $0 == 0 ? .call : .chat, environment: $0 == 1 ? .sandbox : nil)
                },
                webhooks: [StoreScenarios.webhook("w\(index)")], response: Data("{}".utf8), now: t0)
        }
        let claimed = try store.claimPushJobs(limit: 12, lease: 30, now: t0.addingTimeInterval(1))
        try store.finishPushJobs(
            claimed.enumerated().map { index, job in
                switch index % 4 {
                case 0: return (job.id, .delivered)
                case 1: return (job.id, .retry(notBefore: t0.addingTimeInterval(5), reason: "503"))
                case 2: return (job.id, .failed(reason: "BadTopic"))
                default: return (job.id, .expired(reason: "late"))
                }
            }, now: t0.addingTimeInterval(2))
        _ = try store.claimPushJobs(limit: 3, lease: 30, now: t0.addingTimeInterval(6))
        _ = try store.claimWebhookJobs(limit: 3, lease: 30, now: t0)
        try store.recordCall(CallRecord(appId: "a1", sessionId: "s1", callerUid: "u1", details: Data([1, 0]), createdAt: t0))
        try store.recordCall(CallRecord(appId: "a1", sessionId: "s2", callerUid: "u2", details: Data(), createdAt: t0))
        for (index, step) in ["delivered", "opened", "replied"].enumerated() {
            _ = try store.recordPushEvent(
                PushEvent(
                    appId: "a1", pushId: "j0-1", requestId: "r0", step: step, at: t0.addingTimeInterval(Double(index)),
                    detail: index == 1 ? nil : "d"))
        }
        for key in ["K1", "K2", "K3"] {
            _ = try store.withSharedProviderToken(teamId: "TEAM", keyId: key) { _ in
                SharedProviderToken(sealed: Data(key.utf8), issuedAt: t0)
            }
        }
        // Preferences, and a job a preference skipped.
        try store.setMute(appId: "a1", uid: "u1", mute: PushPreferences.Mute(receiverType: "user", receiver: "u2", until: t0), now: t0)
        try store.setMute(appId: "a1", uid: "u1", mute: PushPreferences.Mute(receiverType: "group", receiver: "g", until: nil), now: t0)
        try store.setGroupLevel(appId: "a1", uid: "u2", guid: "g", level: "mentions", now: t0)
        try store.setQuietHours(
            appId: "a1", uid: "u1", quietHours: PushPreferences.QuietHours(start: 1, end: 2, includeCalls: true, timezone: "UTC"), now: t0)
        try store.setQuietHours(
            appId: "a1", uid: "u2", quietHours: PushPreferences.QuietHours(start: 3, end: 2, includeCalls: false, timezone: nil), now: t0)
        var skipped = StoreScenarios.job("skipped-1", request: "r-skip")
        skipped.skipped = true
        skipped.rule = "group-none"
        try store.enqueue(webhooks: [], pushJobs: [skipped])
        // The changes feed (an old change purged: its user keeps the position) and a revoked session.
        let old = t0.addingTimeInterval(-86_400)
        try store.record(
            changes: [
                PushChange(
                    appId: "a1", uid: "u1", kind: .edited, conversationId: "u1_user_u2", messageId: "m1", notificationId: "msg-1",
                    title: "T", body: "B", at: old, createdAt: old),
                PushChange(appId: "a1", uid: "u1", kind: .read, conversationId: "group_g", unreadCount: 0, at: t0, createdAt: t0),
                PushChange(
                    appId: "a1", uid: "u2", kind: .deleted, conversationId: "u1_user_u2", messageId: "m2", notificationId: "msg-2", at: t0,
                    createdAt: t0),
            ], pushJobs: [])
        #expect(try store.purgeFinished(before: t0.addingTimeInterval(-3_600), batchSize: 10).changes == 1)
        try store.addAuthToken(AuthTokenRecord(hash: Data([0xaa]), appId: "a1", uid: "u2", hint: "h3", createdAt: t0))
        _ = try store.registerToken(StoreScenarios.token("revoked-tok", uid: "u2", hash: Data([0xaa])), maxPerUser: 100)
        #expect(try store.revokeAuthToken(appId: "a1", uid: "u2", hash: Data([0xaa]), now: t0)?.pushTokens == 1)
        // Private push (issue 28): an app's privacy, a token's keys, a job's plaintext and trimmed fields.
        // The badge the service counts (issue 30): the app's default and a user's unread messages.
        if var app = try store.app(id: "a1") {
            app.privacy = .private
            app.badge = .auto
            app.privatePlaceholder = "New"
            try store.updateApp(app)
        }
        _ = try store.addUnread(
            appId: "a1", messages: [UnreadMessage(uid: "u2", conversationId: "u1_user_u2", messageId: "m1")], totalsOf: [], now: t0)
        // Issue 31: u2 reads on the web, and a push of theirs waits.
        try store.setActivity(
            appId: "a1", uid: "u2", source: UserActivity.backEnd, conversationId: "u1_user_u2", expiresAt: t0.addingTimeInterval(60),
            now: t0)
        try store.recordHeldPushes(
            appId: "a1", uid: "u2", conversationId: "u1_user_u2", jobIds: ["held-1"], until: t0.addingTimeInterval(15), now: t0)
        var keyed = StoreScenarios.token("keyed-tok", at: 60)
        keyed.encryption = StoredEncryptionKeys(p256dh: Data([4, 0, 255]), sealedAuth: Data([1, 2, 0]))
        _ = try store.registerToken(keyed, maxPerUser: 100)
        var sealed = StoreScenarios.job("private-1", request: "r-private")
        sealed.privatePush = PrivatePush(plaintext: Data([0, 123, 255]), trimmed: ["message", "body"])
        try store.enqueue(webhooks: [], pushJobs: [sealed])
        // Groups (issue 31): members that are users and one that is not yet.
        _ = try store.setGroupMembers(appId: "a1", guid: "team", uids: ["u1", "u2", "not-yet-a-user"], replace: true, now: t0)
        _ = try store.setGroupMembers(appId: "a1", guid: "empty", uids: [], replace: true, now: t0)
        // A group send expanded in the background, one batch of its two members stored.
        let send = GroupSend(id: "gs1", appId: "a1", guid: "team", request: Data("{}".utf8), createdAt: t0)
        _ = try store.acceptGroupSend(send, sender: "u1", idempotencyKey: "group-1", requestHash: Data([9]), now: t0) { _ in Data("{}".utf8)
        }
        let groupSend = try #require(try store.claimGroupSend(lease: 30, now: t0))
        let first = try store.groupSendMembers(id: groupSend.id, after: nil, limit: 1)
        #expect(
            try store.commitGroupSendBatch(GroupSendBatch(id: "gs1", appId: "a1", after: nil, uids: first), lease: 30, now: t0) { _ in
                [StoreScenarios.job("group-job", request: "gs1")]
            })
    }

    static func rows(of store: any ServiceStore) throws -> [StoreTable: [[StoreValue]]] {
        var all: [StoreTable: [[StoreValue]]] = [:]
        for table in StoreTable.allCases {
            var rows: [[StoreValue]] = []
            try store.exportRows(table: table, batchSize: 3) { page in
                #expect(page.count <= 3)
                rows += page
            }
            all[table] = rows
        }
        return all
    }

    static func copy(from source: any ServiceStore, to target: any ServiceStore, tables: [StoreTable] = StoreTable.allCases) throws {
        for table in tables {
            try source.exportRows(table: table, batchSize: 4) { try target.importRows(table: table, rows: $0) }
        }
    }

    /// Runs `body` on `count` threads at once and waits for all.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }
}

/// What needs no database: the URL (which may hold a password) never shows in an error.
@Suite struct PostgresStoreURLTests {
    @Test func errorsNeverShowTheURLOrItsPassword() throws {
        for url in [
            "postgres://push:s3cr3t-pw@127.0.0.1:1/push?connect_timeout=2",  // nothing listens on port 1
            "postgres://push:s3cr3t-pw%zz@127.0.0.1:1/push",  // not a valid URL
            "postgres://push:s3cr3t-pw@127.0.0.1:1/push?bogus_option=s3cr3t-pw",
        ] {
            do {
                _ = try PostgresStore(url: url, poolSize: 1, logger: .silent)
                Issue.record("opened \(url.count)-byte URL that cannot work")
            } catch let error as StoreError {
                guard case .database(let message) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(!message.contains("s3cr3t"), "\(message)")
                #expect(!message.contains("postgres://"))
                #expect(!message.isEmpty)
            }
        }
    }
}
