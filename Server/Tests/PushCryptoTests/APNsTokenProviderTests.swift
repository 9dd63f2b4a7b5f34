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
        return try APNsTokenProvider(key: key, keyID: "K", teamID: "T", now: { clock.now })
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
            key: key, keyID: "K", teamID: "T", reuseInterval: 60, now: { clock.now })
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
