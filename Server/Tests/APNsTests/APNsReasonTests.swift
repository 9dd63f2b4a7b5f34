import APNs
import Foundation
import Testing

/// APNs' error reasons as values: every documented reason is a case, any other text is kept,
/// and the text is what APNs sent. (Parsing an answer's body into one: `APNsClientTests`.)
struct APNsReasonTests {
    @Test func everyDocumentedReasonIsACaseAndReadsAsAPNsSpellsIt() {
        #expect(APNsReason.documented.count == 32)
        #expect(Set(APNsReason.documented.map(\.rawValue)).count == 32, "two cases share a text")
        for reason in APNsReason.documented {
            #expect(APNsReason(rawValue: reason.rawValue) == reason)
            #expect(!Self.isUnknown(APNsReason(rawValue: reason.rawValue)), "\(reason)")
            #expect("\(reason)" == reason.rawValue)
            #expect(reason.rawValue.first?.isUppercase == true)
        }
        #expect(APNsReason.badCollapseId.rawValue == "BadCollapseId")
        #expect(APNsReason.unrelatedKeyIdInToken.rawValue == "UnrelatedKeyIdInToken")
    }

    @Test func anUndocumentedReasonIsKeptAsSent() {
        let reason = APNsReason(rawValue: "SomethingNew")
        #expect(reason == .unknown("SomethingNew"))
        #expect(reason.rawValue == "SomethingNew")
        #expect(APNsReason(rawValue: "badtopic") != .badTopic, "reasons are case-sensitive, as APNs sends them")
        // An unknown case spelt like a documented one is that reason.
        #expect(APNsReason.unknown("BadTopic") == .badTopic)
        #expect(Set([APNsReason.unknown("BadTopic"), .badTopic]).count == 1)
    }

    /// The reasons of APNs' responses in Contract/WIRE-CONTRACT.md §5 are documented cases (none
    /// falls to `unknown`).
    @Test func theContractsReasonsAreCases() throws {
        let contract = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Contract/WIRE-CONTRACT.md")
        let text = try String(contentsOf: contract, encoding: .utf8)
        let start = try #require(text.range(of: "- Responses: "))
        let rest = text[start.upperBound...]
        let bullet = rest.range(of: "\n- ").map { rest[..<$0.lowerBound] } ?? rest
        let named = Set(bullet.matches(of: /`([A-Z][A-Za-z]+)`/).map { String($0.output.1) })
        #expect(named.count >= 15, "\(named.sorted())")
        for name in named.sorted() {
            #expect(!Self.isUnknown(APNsReason(rawValue: name)), "\(name) is not a case of APNsReason")
        }
    }

    static func isUnknown(_ reason: APNsReason) -> Bool {
        if case .unknown = reason { return true }
        return false
    }
}
