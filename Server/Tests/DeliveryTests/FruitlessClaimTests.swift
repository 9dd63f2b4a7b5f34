import Delivery
import Foundation
import PushCore
import PushTestSupport
import ServerSupport
import Testing

/// While one provider holds its share of the sends in flight, the engine leaves it out of its
/// claims; a claim that then finds nothing must not be repeated after every answered chunk, for
/// each such claim reads the provider's whole backlog (issue 28's profile: three times the
/// claiming thread's CPU in a private run).
@Suite struct FruitlessClaimTests {
    /// An outbox in memory that counts its claims, and those that found nothing.
    final class CountingOutbox: OutboxStore, @unchecked Sendable {
        // @unchecked: every field is touched under `lock` only.
        private let lock = NSLock()
        private var pending: [PushJob]
        private var claims = 0
        private var emptyClaims = 0
        private var claimed = 0
        private var onEmptyClaim: (@Sendable () -> Void)?

        init(jobs: [PushJob]) { pending = jobs }

        /// Runs `action` once, inside the next claim that finds nothing (before it returns).
        func duringNextEmptyClaim(_ action: @escaping @Sendable () -> Void) { lock.withLock { onEmptyClaim = action } }

        func claimPushJobs(limit: Int, lease: TimeInterval, now: Date, excluding excluded: Set<ProviderRef>) throws -> [PushJob] {
            let (taken, action) = lock.withLock { () -> ([PushJob], (@Sendable () -> Void)?) in
                claims += 1
                var taken: [PushJob] = []
                pending.removeAll { job in
                    guard taken.count < limit, job.notBefore <= now,
                        !excluded.contains(ProviderRef(appId: job.appId, providerId: job.providerId))
                    else { return false }
                    taken.append(job)
                    return true
                }
                if taken.isEmpty { emptyClaims += 1 }
                claimed += taken.count
                let action = taken.isEmpty ? onEmptyClaim : nil
                if action != nil { onEmptyClaim = nil }
                return (taken, action)
            }
            action?()
            return taken
        }

        func finishPushJob(id: String, outcome: JobOutcome, now: Date) throws {}

        func pushJobCounts() throws -> OutboxCounts {
            OutboxCounts(pending: lock.withLock { pending.count }, inFlight: 0, delivered: 0, failed: 0)
        }

        /// Adds jobs (a new send).
        func add(_ jobs: [PushJob]) { lock.withLock { pending += jobs } }

        var counts: (claims: Int, empty: Int, claimed: Int) { lock.withLock { (claims, emptyClaims, claimed) } }
    }

    /// A sender that answers nothing until the test releases sends.
    final class HeldSender: PushSender, @unchecked Sendable {
        // @unchecked: `held` is touched under `lock` only.
        private let lock = NSLock()
        private var held: [@Sendable (JobOutcome) -> Void] = []

        func send(_ job: PushJob) async -> JobOutcome { .delivered }

        func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
            lock.withLock { held.append(completion) }
        }

        var count: Int { lock.withLock { held.count } }

        /// Answers the oldest `count` sends as delivered.
        func release(_ count: Int) {
            let answered = lock.withLock { () -> [@Sendable (JobOutcome) -> Void] in
                let first = Array(held.prefix(count))
                held.removeFirst(first.count)
                return first
            }
            for completion in answered { completion(.delivered) }
        }
    }

    static func jobs(_ count: Int, provider: String, at time: Date) -> [PushJob] {
        (0..<count).map { index in
            PushJob(
                id: "\(provider)-\(index)", appId: "app", requestId: "r", uid: "u\(index)", token: "t\(provider)\(index)",
                platform: .apnsDevice, kind: .chat, providerId: provider, payload: Data(#"{"aps":{}}"#.utf8),
                headers: PushHeaders(pushType: .alert, priority: 10, expiration: 0, collapseId: nil, topicSuffix: ""),
                notBefore: time, createdAt: time)
        }
    }

    /// maxInFlight 32: a provider's share is 28, a chunk 2, so the provider is left out of
    /// claims from 27 sends in flight, and claims resume when it is back to 26.
    static let configuration = DeliveryEngine.Configuration(batchSize: 100, maxInFlight: 32, lease: 60, idleWait: 0.2)

    /// A running engine on a manual clock over `busyJobs` due jobs of one provider, its sends held.
    static func start(busyJobs: Int) -> (PushTestSupport.ManualClock, CountingOutbox, HeldSender, DeliveryEngine) {
        let clock = PushTestSupport.ManualClock()
        let outbox = CountingOutbox(jobs: jobs(busyJobs, provider: "busy", at: clock.now))
        let sender = HeldSender()
        let engine = DeliveryEngine(store: outbox, sender: sender, configuration: configuration, logger: .silent, clock: clock)
        engine.start()
        return (clock, outbox, sender, engine)
    }

    @Test func aProviderAtItsShareIsNotSearchedForAfterEveryChunk() async throws {
        let (_, outbox, sender, engine) = Self.start(busyJobs: 200)
        defer { engine.stop(timeout: 0) }

        // The first claim fills the provider's share; the next, leaving it out, finds nothing.
        #expect(await eventually(timeout: 30) { sender.count == 28 && outbox.counts.empty == 1 })
        // Ten answered chunks: each frees room for one more chunk, claimed at once. The time
        // does not move, so nothing else can end the wait that the claim finding nothing began.
        for round in 1...10 {
            sender.release(2)
            #expect(await eventually(timeout: 30) { outbox.counts.claimed == 28 + 2 * round })
        }
        #expect(await eventually(timeout: 30) { sender.count == 28 })
        let counts = outbox.counts
        #expect(counts.empty == 1, "a claim that found nothing was repeated after an answered chunk: \(counts)")
        #expect(counts.claims == 12)
    }

    @Test func aNewSendOrTheTimeEndsTheWaitForOtherProviders() async throws {
        let (clock, outbox, sender, engine) = Self.start(busyJobs: 100)
        defer { engine.stop(timeout: 0) }
        #expect(await eventually(timeout: 30) { sender.count == 28 && outbox.counts.empty == 1 })

        // Another provider's send: claimed at once although the busy one is still at its share.
        outbox.add(Self.jobs(1, provider: "quiet", at: clock.now))
        engine.wake()
        #expect(await eventually(timeout: 30) { sender.count == 29 })

        // A job of another provider that falls due later, with no send to wake the engine: it
        // is claimed once the wait after the claim that found nothing is over (a second, as
        // before the engine remembered such claims).
        #expect(await eventually(timeout: 30) { outbox.counts.empty == 2 && clock.waiters > 0 })
        outbox.add(Self.jobs(1, provider: "late", at: clock.now.addingTimeInterval(0.5)))
        clock.advance(by: 0.6)
        #expect(await eventually(timeout: 30) { clock.waiters > 0 })
        #expect(sender.count == 29)
        clock.advance(by: 0.5)
        #expect(await eventually(timeout: 30) { sender.count == 30 })
    }

    @Test func aSendWhileTheClaimThatFindsNothingReadsIsClaimedAtOnce() async throws {
        let (_, outbox, sender, engine) = Self.start(busyJobs: 100)
        defer { engine.stop(timeout: 0) }
        #expect(await eventually(timeout: 30) { sender.count == 28 && outbox.counts.empty == 1 })
        // A wake with nothing new: the claim it starts leaves the busy provider out and finds
        // nothing; while it reads, another provider's send is accepted. That claim's result
        // predates the send, so its job must not wait for the idle second (the time does not
        // move here: it would wait for ever).
        outbox.duringNextEmptyClaim { [weak engine] in
            outbox.add(Self.jobs(1, provider: "quiet", at: Date(timeIntervalSince1970: 0)))
            engine?.wake()
        }
        engine.wake()
        #expect(await eventually(timeout: 30) { sender.count == 29 && outbox.counts.claimed == 29 })
        // The claim after it, leaving the busy provider out again, finds nothing: remembered.
        #expect(await eventually(timeout: 30) { outbox.counts.empty == 3 })
    }
}
