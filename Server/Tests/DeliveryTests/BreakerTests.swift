import APNs
import Delivery
import Foundation
import PushCore
import Testing

/// The rules of ``ProviderBreakers``: answers that prove the provider wrong open it, one
/// user's refused tokens never do, a provider that never delivered is unknown (refused tokens
/// kept, jobs wait), and probes prefer tokens that delivered, of other users.
@Suite struct BreakerTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let refused = ProviderBreakers.Answer.token(.badDeviceToken)

    /// Breakers of a provider that last delivered `lastDelivery` (nil: never).
    static func breakers(lastDelivery: Date?) -> ProviderBreakers {
        ProviderBreakers(lastDelivery: { _, _ in lastDelivery })
    }

    static func record(
        _ breakers: ProviderBreakers, _ answer: ProviderBreakers.Answer, uid: String, delivered: Bool = false, at offset: Double = 0
    ) -> ProviderBreakers.Transition? {
        breakers.record(answer, uid: uid, tokenDelivered: delivered, appId: "a1", providerId: "p1", at: t0.addingTimeInterval(offset))
    }

    static func verdict(_ breakers: ProviderBreakers, delivered: Bool, at offset: Double = 0) -> ProviderBreakers.Verdict {
        breakers.verdict(
            tokenDelivered: delivered, appId: "a1", providerId: "p1", reason: .badDeviceToken, at: t0.addingTimeInterval(offset))
    }

    /// What an APNs answer tells the breaker (the policy's classification; AnswerPolicyTests has
    /// the whole table).
    static func of(_ status: Int, _ reason: APNsReason?) -> ProviderBreakers.Answer {
        AnswerPolicy.meaning(of: .answered(APNsAnswer(status: status, reason: reason))).breakerAnswer
    }

    @Test func answersAreSortedByWhatTheyProve() {
        #expect(Self.of(200, nil) == .accepted)
        #expect(Self.of(400, .badDeviceToken) == .token(.badDeviceToken))
        #expect(Self.of(400, .deviceTokenNotForTopic) == .token(.deviceTokenNotForTopic))
        #expect(Self.of(410, .unregistered) == .token(.unregistered))
        for reason in [APNsReason.badTopic, .topicDisallowed, .missingTopic] {
            #expect(Self.of(400, reason) == .provider(reason.rawValue))
        }
        #expect(Self.of(403, .invalidProviderToken) == .provider("InvalidProviderToken"))
        #expect(Self.of(403, .badEnvironmentKeyInToken) == .provider("BadEnvironmentKeyInToken"))
        #expect(Self.of(403, .unknown("NewReason")) == .provider("NewReason"))
        #expect(Self.of(403, nil) == .provider("HTTP 403"))
        #expect(Self.of(410, nil) == .token(.unregistered))
        #expect(Self.of(403, .expiredProviderToken) == .other)
        #expect(Self.of(429, .tooManyRequests) == .other)
        #expect(Self.of(400, .payloadEmpty) == .other)
    }

    /// The attack: one user's 40 made-up tokens, right after a restart of a provider that last
    /// delivered an hour ago (not healthy): the breaker stays closed and the tokens are dead.
    @Test func oneUsersRefusedTokensNeverOpenIt() {
        let breakers = Self.breakers(lastDelivery: Self.t0.addingTimeInterval(-3_600))
        for n in 0..<40 {
            #expect(Self.record(breakers, Self.refused, uid: "mallory", at: Double(n)) == nil)
            #expect(Self.verdict(breakers, delivered: false, at: Double(n)) == .dead)
        }
        #expect(breakers.status(appId: "a1", providerId: "p1") == .closed)
        #expect(breakers.admit(appId: "a1", providerId: "p1", uid: "bob", tokenDelivered: { true }, at: Self.t0).admitted)
    }

    /// A misconfiguration: most recent users' tokens refused, at least five of them.
    @Test func refusalsAcrossManyUsersOpenIt() {
        let breakers = Self.breakers(lastDelivery: Self.t0.addingTimeInterval(-3_600))
        for n in 0..<4 { #expect(Self.record(breakers, Self.refused, uid: "u\(n)", at: Double(n)) == nil) }
        guard case .opened(let reason)? = Self.record(breakers, Self.refused, uid: "u4", at: 4) else {
            Issue.record("five users' refused tokens did not open it")
            return
        }
        #expect(reason.contains("BadDeviceToken") && reason.contains("5 users"))
        #expect(breakers.status(appId: "a1", providerId: "p1") == .open)
        guard case .wait(let why) = Self.verdict(breakers, delivered: false, at: 5) else {
            Issue.record("a token was deleted while the breaker is open")
            return
        }
        #expect(why.hasPrefix(JobOutcome.waitingPrefix))
    }

    /// Five refused users are not enough when they are few of the users answered lately.
    @Test func refusedUsersMustBeMostOfTheRecentUsers() {
        let breakers = Self.breakers(lastDelivery: Self.t0.addingTimeInterval(-3_600))
        for n in 0..<6 { _ = Self.record(breakers, .other, uid: "busy\(n)", at: Double(n)) }
        for n in 0..<5 { #expect(Self.record(breakers, Self.refused, uid: "u\(n)", at: 10 + Double(n)) == nil) }
        #expect(breakers.status(appId: "a1", providerId: "p1") == .closed)
    }

    /// A refused token that delivered before counts, one user or not.
    @Test func aRefusedTokenThatDeliveredBeforeCounts() {
        let breakers = Self.breakers(lastDelivery: Self.t0.addingTimeInterval(-3_600))
        #expect(Self.record(breakers, Self.refused, uid: "bob", delivered: true) != nil)
        #expect(breakers.status(appId: "a1", providerId: "p1") == .open)
    }

    /// Never delivered since set up: unknown; refused tokens are kept and wait, nothing opens,
    /// however many users; the first 200 makes it known (its waiting jobs may go).
    @Test func aProviderThatNeverDeliveredIsUnknown() {
        let breakers = Self.breakers(lastDelivery: nil)
        #expect(breakers.status(appId: "a1", providerId: "p1") == .unknown)
        for n in 0..<20 {
            #expect(Self.record(breakers, Self.refused, uid: "u\(n)", at: Double(n)) == nil)
            guard case .wait = Self.verdict(breakers, delivered: false, at: Double(n)) else {
                Issue.record("a refused token of an unknown provider was deleted")
                return
            }
        }
        #expect(breakers.status(appId: "a1", providerId: "p1") == .unknown)
        // Unregistered comes only for a token of the provider's own topic: dead.
        #expect(breakers.verdict(tokenDelivered: false, appId: "a1", providerId: "p1", reason: .unregistered, at: Self.t0) == .dead)
        #expect(Self.record(breakers, .accepted, uid: "bob", at: 30) == .known)
        #expect(breakers.status(appId: "a1", providerId: "p1") == .closed)
        #expect(Self.verdict(breakers, delivered: false, at: 31) == .dead)
    }

    /// Answers that prove the provider wrong open it at once while it is not healthy.
    @Test func aProviderAnswerOpensItWhileNotHealthy() {
        let healthy = Self.breakers(lastDelivery: Self.t0.addingTimeInterval(-10))
        #expect(Self.record(healthy, .provider("InvalidProviderToken"), uid: "bob") == nil)
        let stale = Self.breakers(lastDelivery: nil)
        #expect(Self.record(stale, .provider("BadTopic"), uid: "bob") == .opened(reason: "BadTopic for 1 of its last 1 answers and no 200"))
    }

    /// Known and healthy (a recent 200): a refused token that delivered before is dead; not
    /// healthy, it waits.
    @Test func aTokenThatDeliveredBeforeIsDeadOnlyWhileHealthy() {
        let breakers = Self.breakers(lastDelivery: Self.t0.addingTimeInterval(-3_600))
        _ = Self.record(breakers, .other, uid: "bob")
        guard case .wait = Self.verdict(breakers, delivered: true) else {
            Issue.record("deleted without a recent 200")
            return
        }
        _ = Self.record(breakers, .accepted, uid: "carol", at: 1)
        #expect(Self.verdict(breakers, delivered: true, at: 2) == .dead)
    }

    /// While open, the probe goes to a token that delivered before, of another user than the
    /// last probe's; any job gets it once it waited a whole step for one.
    @Test func probesPreferTokensThatDeliveredOfOtherUsers() {
        var settings = ProviderBreakers.Settings()
        settings.probe.baseDelay = 10
        let breakers = ProviderBreakers(settings: settings, lastDelivery: { _, _ in nil })
        _ = Self.record(breakers, .provider("InvalidProviderToken"), uid: "bob")
        func admit(_ uid: String, delivered: Bool, at offset: Double) -> Bool {
            breakers.admit(appId: "a1", providerId: "p1", uid: uid, tokenDelivered: { delivered }, at: Self.t0.addingTimeInterval(offset))
                .admitted
        }
        #expect(!admit("bob", delivered: true, at: 5), "before the first step")
        #expect(!admit("mallory", delivered: false, at: 10), "a token that never delivered waits for a better one")
        #expect(admit("bob", delivered: true, at: 11))
        #expect(!admit("bob", delivered: true, at: 31), "the same user again: another user's token first")
        #expect(admit("carol", delivered: true, at: 32))
        // The next step is due at 72 (40 s after carol's probe); nothing better came for a
        // whole step after it: any job.
        #expect(!admit("mallory", delivered: false, at: 72))
        #expect(admit("mallory", delivered: false, at: 112))
    }

    @Test func anUpdateMakesItUnknownAndClosed() {
        let breakers = Self.breakers(lastDelivery: Self.t0)
        _ = Self.record(breakers, .provider("InvalidProviderToken"), uid: "bob", at: 1_000)
        #expect(breakers.status(appId: "a1", providerId: "p1") == .open)
        #expect(breakers.reset(appId: "a1", providerId: "p1"))
        #expect(breakers.status(appId: "a1", providerId: "p1") == .unknown)
    }
}
