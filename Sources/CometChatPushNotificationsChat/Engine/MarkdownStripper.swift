import Foundation

/// Turns the Markdown CometChat messages may carry into the plain text a notification shows:
/// emphasis, strike-through, code, links, images, headings, quotes, list markers and rules.
///
/// Text inside code spans is kept as written; backslash escapes give the character itself;
/// underscores inside words (`snake_case`) are not emphasis. Pure and total: any input gives
/// an output, never a trap.
public enum PNMarkdownStripper {
    /// `text` without Markdown markup.
    public static func plainText(_ text: String) -> String {
        var inFence = false
        var lines: [String] = []
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            if inFence {
                lines.append(line)
                continue
            }
            if Patterns.rule.matches(trimmed) { continue }
            lines.append(inline(block(line)))
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Removes the markers that start a line: headings, quotes and list bullets.
    private static func block(_ line: String) -> String {
        var out = line
        out = Patterns.quote.replace(in: out, with: "")
        out = Patterns.heading.replace(in: out, with: "")
        out = Patterns.bullet.replace(in: out, with: "$1• ")
        return out
    }

    /// Removes inline markup outside code spans.
    private static func inline(_ line: String) -> String {
        let segments = line.components(separatedBy: "`")
        guard segments.count > 2 else { return emphasis(line) }
        // An odd number of segments means every backtick is paired; otherwise the last is literal.
        let balanced = segments.count % 2 == 1
        var out = ""
        for (index, segment) in segments.enumerated() {
            if !balanced && index == segments.count - 1 {
                out += "`" + emphasis(segment)
            } else if index % 2 == 1 {
                out += segment
            } else {
                out += emphasis(segment)
            }
        }
        return out
    }

    private static func emphasis(_ text: String) -> String {
        // Escaped characters become private-use placeholders so no rule treats them as markup.
        var out = Patterns.escape.replace(in: text) { escaped in
            String(UnicodeScalar(0xE000 + (escaped.unicodeScalars.first?.value ?? 0)).map(Character.init) ?? " ")
        }
        out = Patterns.image.replace(in: out, with: "$1")
        out = Patterns.link.replace(in: out, with: "$1")
        out = Patterns.autolink.replace(in: out, with: "$1")
        for pattern in [
            Patterns.boldStars, Patterns.boldUnderscores, Patterns.strike,
            Patterns.italicStars, Patterns.italicUnderscores,
        ] {
            var previous = ""
            while previous != out {
                previous = out
                out = pattern.replace(in: out, with: "$1")
            }
        }
        return String(
            String.UnicodeScalarView(
                out.unicodeScalars.map { scalar in
                    (0xE000...0xE07F).contains(scalar.value) ? UnicodeScalar(scalar.value - 0xE000) ?? scalar : scalar
                }))
    }
}

/// The regular expressions of ``PNMarkdownStripper``.
private enum Patterns {
    static let rule = Pattern(#"^([-*_]\s*){3,}$"#)
    static let quote = Pattern(#"^\s{0,3}(>\s?)+"#)
    static let heading = Pattern(#"^\s{0,3}#{1,6}\s+"#)
    static let bullet = Pattern(#"^(\s*)[-*+]\s+"#)
    static let escape = Pattern(#"\\([\\`*_{}\[\]()#+\-.!~>|])"#)
    static let image = Pattern(#"!\[([^\]]*)\]\([^)]*\)"#)
    static let link = Pattern(#"\[([^\]]+)\]\([^)]*\)"#)
    static let autolink = Pattern(#"<((?:https?|mailto):[^>\s]+)>"#)
    static let boldStars = Pattern(#"\*\*(\S(?:.*?\S)?)\*\*"#)
    static let boldUnderscores = Pattern(#"(?<![\p{L}\p{N}])__(\S(?:.*?\S)?)__(?![\p{L}\p{N}])"#)
    static let strike = Pattern(#"~~(\S(?:.*?\S)?)~~"#)
    static let italicStars = Pattern(#"(?<!\*)\*(?![\s*])(.+?)(?<![\s*])\*(?!\*)"#)
    static let italicUnderscores = Pattern(#"(?<![\p{L}\p{N}_])_(?![\s_])(.+?)(?<![\s_])_(?![\p{L}\p{N}_])"#)
}

/// A compiled regular expression. `NSRegularExpression` is immutable and safe to share.
private struct Pattern: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable after creation and documented thread-safe.
    let regex: NSRegularExpression

    init(_ pattern: String) {
        // The patterns are constants checked by the tests; a bad one is a programming error.
        regex = try! NSRegularExpression(pattern: pattern, options: [])
    }

    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    func replace(in text: String, with template: String) -> String {
        regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
    }

    /// Replaces each match with `transform` of its first group.
    func replace(in text: String, _ transform: (String) -> String) -> String {
        let ns = text as NSString
        var out = ""
        var last = 0
        for match in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            out += ns.substring(with: NSRange(location: last, length: match.range.location - last))
            out += transform(ns.substring(with: match.range(at: 1)))
            last = match.range.location + match.range.length
        }
        out += ns.substring(from: last)
        return out
    }
}
