import Foundation

/// The device's preferred languages as a token registration sends them to a self-hosted service
/// (`languages`, issue 30): BCP-47-like tags in the device's order of preference, so that the
/// service renders each token's notification text in the user's language.
enum PreferredLanguages {
    /// At most this many tags are sent.
    static let maxCount = 10
    /// A longer tag is dropped.
    static let maxLength = 35

    /// `languages` (as `Locale.preferredLanguages` gives them) made fit for the wire: `_` becomes
    /// `-`, tags that are not of the form `^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$` or are longer
    /// than ``maxLength`` are dropped, as are repeats of an earlier tag (ignoring case), and the
    /// first ``maxCount`` are kept, in order. Empty when nothing is left (the field is then
    /// omitted).
    static func normalised(_ languages: [String]) -> [String] {
        var kept: [String] = []
        var seen: Set<String> = []
        for language in languages {
            let tag = language.replacingOccurrences(of: "_", with: "-")
            guard isTag(tag), seen.insert(tag.lowercased()).inserted else { continue }
            kept.append(tag)
            if kept.count == maxCount { break }
        }
        return kept
    }

    /// Whether `tag` is a primary subtag of 2 to 8 ASCII letters followed by subtags of 1 to 8
    /// ASCII letters or digits, each after a `-`, and at most ``maxLength`` characters in all.
    static func isTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count <= maxLength else { return false }
        let subtags = bytes.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...8).contains(primary.count), primary.allSatisfy(isASCIILetter) else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy(PNPercentEncoding.isASCIILetterOrDigit) }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        PNPercentEncoding.isASCIILetterOrDigit(byte) && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
