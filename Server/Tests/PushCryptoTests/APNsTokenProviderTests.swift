import Foundation
import Synchronization
import Testing
import PushCrypto

@Suite struct APNsTokenProviderTests {
    let key: PrivateKey
    let clock = ManualClock()

    init() throws { key = try PrivateKey(pem: try TestKeys.shared.get().ecPrivatePEM) }

    func provider() throws -> APNsTokenProvider {
        let clock = self.clock
        return try APNsTokenProvider(key: key, keyId: "K", teamId: "T", now: { clock.now })
    }

    func advance(minutes: Double) { clock.advance(minutes * 60) }

    @Test func tokenIsReusedWithinTheWindowAndRefreshedBeforeAnHour() throws {
        let tokens = try provider()
        let first = try tokens.token()
        advance(minutes: 19)
        #expect(try tokens.token() == first)
        advance(minutes: 30)  // 49 minutes old: still reused
        #expect(try tokens.token() == first)
        advance(minutes: 2)  // 51 minutes: refreshed before Apple's 60-minute limit
        let second = try tokens.token()
        #expect(second != first)
        #expect(tokens.tokensSigned == 2)
    }

    @Test func invalidatingTheRejectedTokenSignsOneNewToken() throws {
        let tokens = try provider()
        let first = try tokens.token()
        advance(minutes: 1)
        tokens.invalidate(first)
        let second = try tokens.token()
        #expect(second != first)
        // A late rejection of the old token must not cause another refresh.
        tokens.invalidate(first)
        #expect(try tokens.token() == second)
        #expect(tokens.tokensSigned == 2)
    }

    @Test func aShortReuseIntervalIsClampedToTwentyMinutes() throws {
        let clock = self.clock
        let tokens = try APNsTokenProvider(
            key: key, keyId: "K", teamId: "T", reuseInterval: 60, now: { clock.now })
        let first = try tokens.token()
        advance(minutes: 10)
        #expect(try tokens.token() == first)
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let time = Mutex<Date>(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// The seam to a shared token: what the provider does while another thread refreshes.
@Suite struct APNsTokenProviderSharingTests {
    let key: PrivateKey
    let clock = ManualClock()

    init() throws { key = try PrivateKey(pem: try TestKeys.shared.get().ecPrivatePEM) }

    @Test func aDueTokenStaysInUseWhileAnotherThreadAsksTheSharedPlace() throws {
        // Given a provider whose token is due, and a shared place that is slow to answer
        let sharing = GatedSharing()
        let clock = self.clock
        let tokens = try APNsTokenProvider(key: key, keyId: "K", teamId: "T", sharing: sharing, now: { clock.now })
        let old = try tokens.token()
        clock.advance(51 * 60)
        sharing.close()

        // When one thread refreshes (and waits for the shared place)
        let refreshed = DispatchSemaphore(value: 0)
        let fresh = Slot()
        Thread.detachNewThread {
            fresh.value = try? tokens.token()
            refreshed.signal()
        }
        #expect(sharing.waitUntilEntered(timeout: 10))

        // Then another thread keeps the due token meanwhile instead of waiting
        let other = DispatchSemaphore(value: 0)
        let meanwhile = Slot()
        Thread.detachNewThread {
            meanwhile.value = try? tokens.token()
            other.signal()
        }
        let answered = other.wait(timeout: .now() + 10) == .success
        sharing.open()
        #expect(answered, "a thread waited for the refresh although it had a valid token")
        #expect(refreshed.wait(timeout: .now() + 10) == .success)
        if !answered { _ = other.wait(timeout: .now() + 10) }
        #expect(meanwhile.value == old)

        // And the refresh brought a new token, used by everyone from then on
        let new = try #require(fresh.value)
        #expect(new != old)
        #expect(try tokens.token() == new)
        #expect(tokens.tokensSigned == 2)
    }

    @Test func aRejectedTokenIsNotUsedWhileAnotherThreadRefreshes() throws {
        // Given a provider whose token APNs rejected, and a shared place that is slow to answer
        let sharing = GatedSharing()
        let clock = self.clock
        let tokens = try APNsTokenProvider(key: key, keyId: "K", teamId: "T", sharing: sharing, now: { clock.now })
        let old = try tokens.token()
        tokens.invalidate(old)
        sharing.close()
        let refreshed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? tokens.token()
            refreshed.signal()
        }
        #expect(sharing.waitUntilEntered(timeout: 10))

        // When another thread asks meanwhile, then it waits for the new token
        let other = DispatchSemaphore(value: 0)
        let meanwhile = Slot()
        Thread.detachNewThread {
            meanwhile.value = try? tokens.token()
            other.signal()
        }
        #expect(other.wait(timeout: .now() + 0.2) == .timedOut, "it answered with the rejected token")
        sharing.open()
        #expect(refreshed.wait(timeout: .now() + 10) == .success)
        #expect(other.wait(timeout: .now() + 10) == .success)
        #expect(meanwhile.value != old)
        #expect(meanwhile.value != nil)
    }
}

/// A token one thread leaves for another.
final class Slot: Sendable {
    private let token = Mutex<APNsTokenProvider.Token?>(nil)
    var value: APNsTokenProvider.Token? {
        get { token.withLock { $0 } }
        set { token.withLock { $0 = newValue } }
    }
}

/// A shared place in memory whose calls can be held at the door (one at a time).
final class GatedSharing: ProviderTokenSharing {
    private let stored = Mutex<APNsTokenProvider.Token?>(nil)
    private let closed = Atomic<Bool>(false)
    private let entered = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    /// Calls from now on wait at the door until `open()`.
    func close() { closed.store(true, ordering: .sequentiallyConsistent) }

    /// Lets the waiting call (if any) and every later one through.
    func open() {
        closed.store(false, ordering: .sequentiallyConsistent)
        release.signal()
    }

    /// Waits until a call is held at the closed door.
    func waitUntilEntered(timeout: TimeInterval) -> Bool { entered.wait(timeout: .now() + timeout) == .success }

    func withSharedToken(
        teamId: String, keyId: String, _ decide: (APNsTokenProvider.Token?) throws -> APNsTokenProvider.Token?
    ) throws -> APNsTokenProvider.Token? {
        if closed.load(ordering: .sequentiallyConsistent) {
            entered.signal()
            release.wait()
        }
        return try stored.withLock { current in
            guard let fresh = try decide(current) else { return current }
            current = fresh
            return fresh
        }
    }
}
