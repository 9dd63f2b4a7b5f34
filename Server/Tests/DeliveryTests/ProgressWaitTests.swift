import Foundation
import PushCore
import PushTestSupport
import Testing

/// ``waitWhileProgressing(_:stall:limit:_:until:)``: it gives up only when the work stops, not
/// on a total deadline. Each value below changes (or not) at every read, so the outcome does not
/// depend on how fast the machine is.
@Suite struct ProgressWaitTests {
    @Test func workThatKeepsMovingIsWaitedForPastTheStallWindow() async {
        // Given work that moves at every read and finishes after far longer than the stall window
        let reads = Locked(0)
        let stall = 0.05
        let started = Date()
        let wait = await waitWhileProgressing(
            "moving", stall: stall,
            {
                reads.withLock {
                    $0 += 1; return $0
                }
            }
        ) {
            $0 >= 40 && Date().timeIntervalSince(started) > 4 * stall
        }
        // Then it waited until the work was done
        #expect(wait.done, "\(wait.reason ?? "")")
        #expect(wait.value >= 40)
        #expect(wait.elapsed > 4 * stall)
    }

    @Test func workThatStopsEndsTheWaitAfterTheStallWindow() async {
        // Given work that never moves
        let wait = await waitWhileProgressing("stopped", stall: 0.2, { 7 }) { $0 == 8 }
        // Then the wait ends, not done, once the window has really passed, and says why
        #expect(!wait.done)
        #expect(wait.value == 7)
        #expect(wait.elapsed >= 0.2)
        #expect(wait.reason?.hasPrefix("no progress") == true, "\(wait.reason ?? "")")
    }

    @Test func theOuterLimitEndsWorkThatNeverFinishes() async {
        // Given work that always moves and never finishes
        let reads = Locked(0)
        let wait = await waitWhileProgressing(
            "endless", stall: 60, limit: 0.3,
            {
                reads.withLock {
                    $0 += 1; return $0
                }
            }
        ) {
            _ in false
        }
        // Then the limit ends it
        #expect(!wait.done)
        #expect(wait.elapsed >= 0.3)
        #expect(wait.reason?.contains("limit") == true)
    }
}
