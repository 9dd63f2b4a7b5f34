import APNs
import Foundation
import PushTestSupport
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
        var generator = SeededGenerator(seed: 0x5EED_2026)
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...4_102_444_800, using: &generator)))
            let text = formatter.string(from: date)
            let reference = Date(timeIntervalSince1970: 0)
            #expect(RetryAfter.parse(text, now: reference) == date.timeIntervalSince1970, "\(text)")
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
