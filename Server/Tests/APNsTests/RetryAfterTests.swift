import APNs
import Foundation
import Testing

/// `Retry-After` parsing without Foundation's date formatters: checked against
/// `DateFormatter` as an independent oracle.
struct RetryAfterTests {
    @Test func deltaSecondsAreTakenAsTheyAre() {
        #expect(RetryAfter.parse("120") == 120)
        #expect(RetryAfter.parse(" 7 ") == 7)
        #expect(RetryAfter.parse("0") == 0)
        #expect(RetryAfter.parse("-5") == nil)
        #expect(RetryAfter.parse("soon") == nil)
        #expect(RetryAfter.parse("") == nil)
    }

    @Test func httpDatesMatchFoundationsParser() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        // Seeded: a failure names its seed and the same dates come back on every run.
        var generator = SplitMix64(seed: 0x5EED_2026)
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...4_102_444_800, using: &generator)))
            let text = formatter.string(from: date)
            let reference = Date(timeIntervalSince1970: 0)
            #expect(RetryAfter.parse(text, now: reference) == date.timeIntervalSince1970, "\(text)")
        }
    }

    /// SplitMix64: a small seeded generator, so the "random" dates are the same every run.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func aDateInThePastMeansNow() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
        #expect(RetryAfter.parse("Sun, 09 Sep 2001 01:46:50 GMT", now: now) == 10)
    }

    @Test(arguments: [
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
    ])
    func otherDateFormsAreNotUnderstood(_ text: String) {
        #expect(RetryAfter.parse(text) == nil)
    }
}
