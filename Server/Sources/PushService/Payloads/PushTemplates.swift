#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore

/// The texts the service writes into pushes, per language (issue 30,
/// `docs/design/push-languages.md`): the call bodies, the group prefix and the reaction line.
/// Built-in templates cover English, German, Spanish, French, Portuguese and Arabic; an app
/// overrides or extends them per language (``AppLocalization``). A token's pushes are rendered
/// in the first of its registered languages that the app or the service has texts for.
enum PushTemplates {
    /// A text the service writes, with the placeholders it may use.
    enum Name: String, CaseIterable, Sendable {
        /// The body of a ringing audio call on an alert token (and the `body` of every call push).
        case callAudio
        /// The same for a video call.
        case callVideo
        /// The body of a group message: the sender's name and the text.
        case groupMessage
        /// The body of a reaction.
        case reaction

        /// The placeholders the template may use, in `loc-args` order.
        var placeholders: [String] {
            switch self {
            case .callAudio, .callVideo: return ["sender"]
            case .groupMessage: return ["sender", "text", "group"]
            case .reaction: return ["sender", "reaction", "text"]
            }
        }

        /// The `loc-key` an app that localizes on the device finds in its `Localizable.strings`.
        var locKey: String {
            switch self {
            case .callAudio: return "PN_AUDIO_CALL"
            case .callVideo: return "PN_VIDEO_CALL"
            case .groupMessage: return "PN_GROUP_MESSAGE"
            case .reaction: return "PN_REACTION"
            }
        }
    }

    /// The language of a push when none of the token's languages has texts.
    static let fallbackLanguage = "en"

    /// The built-in texts, by language.
    static let builtIn: [String: [Name: String]] = [
        "en": [
            .callAudio: "AUDIO CALL", .callVideo: "VIDEO CALL", .groupMessage: "{sender}: {text}",
            .reaction: "{sender} reacted {reaction} to: {text}",
        ],
        "de": [
            .callAudio: "Audioanruf", .callVideo: "Videoanruf", .groupMessage: "{sender}: {text}",
            .reaction: "{sender} hat mit {reaction} reagiert: {text}",
        ],
        "es": [
            .callAudio: "Llamada de voz", .callVideo: "Videollamada", .groupMessage: "{sender}: {text}",
            .reaction: "{sender} reaccionó con {reaction} a: {text}",
        ],
        "fr": [
            .callAudio: "Appel audio", .callVideo: "Appel vidéo", .groupMessage: "{sender} : {text}",
            .reaction: "{sender} a réagi avec {reaction} à : {text}",
        ],
        "pt": [
            .callAudio: "Chamada de voz", .callVideo: "Chamada de vídeo", .groupMessage: "{sender}: {text}",
            .reaction: "{sender} reagiu com {reaction} a: {text}",
        ],
        "ar": [
            .callAudio: "مكالمة صوتية", .callVideo: "مكالمة فيديو", .groupMessage: "{sender}: {text}",
            .reaction: "تفاعل {sender} بـ {reaction} على: {text}",
        ],
    ]

    // MARK: Limits and checks

    /// The longest template, in UTF-8 bytes.
    static let maxTemplateBytes = 256
    /// The most languages an app may set texts for.
    static let maxLanguages = 50
    /// The longest language tag.
    static let maxTagLength = 35
    /// The most languages a token keeps.
    static let maxTokenLanguages = 10

    /// Whether `tag` is a BCP-47-like language tag: a 2 to 8 letter language, then subtags of
    /// 1 to 8 letters or digits, joined by `-`; at most ``maxTagLength`` characters.
    static func isLanguageTag(_ tag: String) -> Bool {
        guard !tag.isEmpty, tag.utf8.count <= maxTagLength else { return false }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// What is wrong with `text` as the template `name`, or nil: empty, over
    /// ``maxTemplateBytes``, a placeholder the template cannot use, or a brace that opens or
    /// closes no placeholder.
    static func problem(_ text: String, name: Name) -> String? {
        if text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "empty" }
        if text.utf8.count > maxTemplateBytes { return "longer than \(maxTemplateBytes) bytes" }
        switch parse(text) {
        case .failure(let problem): return problem.description
        case .success(let segments):
            for case .placeholder(let placeholder) in segments where !name.placeholders.contains(placeholder) {
                let allowed = name.placeholders.map { "{\($0)}" }.joined(separator: ", ")
                return "unknown placeholder {\(placeholder)}; \(name.rawValue) takes \(allowed)"
            }
            return nil
        }
    }

    /// A part of a template: text as it is, or a placeholder's name.
    enum Segment: Equatable {
        case text(String)
        case placeholder(String)
    }

    /// Why a template cannot be read.
    enum ParseProblem: Error, CustomStringConvertible {
        case unclosed
        case stray
        case badName(String)

        var description: String {
            switch self {
            case .unclosed: return "a { that no } closes"
            case .stray: return "a } that no { opens"
            case .badName(let name): return "{\(name)} is not a placeholder name"
            }
        }
    }

    /// The segments of a template: `{name}` is a placeholder (a name of letters), any other
    /// brace is a problem.
    static func parse(_ text: String) -> Result<[Segment], ParseProblem> {
        var segments: [Segment] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{" else { return .failure(.stray) }
            if open > rest.startIndex { segments.append(.text(String(rest[..<open]))) }
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == "}" || $0 == "{" }), rest[close] == "}" else {
                return .failure(.unclosed)
            }
            let name = String(rest[afterOpen..<close])
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && $0.isLetter }) else { return .failure(.badName(name)) }
            segments.append(.placeholder(name))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { segments.append(.text(String(rest))) }
        return .success(segments)
    }

    // MARK: Languages

    /// The language a token's pushes are written in: the first of `preferred` (most preferred
    /// first; `de-CH` is tried as `de-ch`, then `de`) that the app has texts for or the service
    /// has built in; else ``fallbackLanguage``.
    static func language(for preferred: [String], localization: AppLocalization) -> String {
        for tag in preferred {
            var candidate = tag.lowercased()
            while true {
                if localization.templates[candidate] != nil || builtIn[candidate] != nil { return candidate }
                guard let dash = candidate.lastIndex(of: "-") else { break }
                candidate = String(candidate[..<dash])
            }
        }
        return fallbackLanguage
    }

    /// Whether a language is written right to left (its first subtag).
    static func isRightToLeft(_ language: String) -> Bool {
        let primary = language.split(separator: "-").first.map { $0.lowercased() } ?? ""
        return ["ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ps", "sd", "ug", "ur", "yi"].contains(primary)
    }

    // MARK: Rendering

    /// Renders the texts of one language for one app.
    struct Renderer: Sendable {
        /// The language the texts are in (lowercased).
        let language: String
        /// Where a text is looked for, in order: for the language and then each shorter form
        /// of it (`de-ch`, then `de`), the app's texts and then the built-in ones; with where
        /// the text came from.
        let sources: [(texts: [String: String], source: String)]
        /// Whether alerts carry `loc-key` and `loc-args`.
        let locKeys: Bool

        /// The renderer of the language `preferred` resolves to for an app.
        init(preferred: [String], localization: AppLocalization) {
            let language = PushTemplates.language(for: preferred, localization: localization)
            self.language = language
            var sources: [(texts: [String: String], source: String)] = []
            var candidate = language
            while true {
                let shorter = candidate == language ? "" : " \(candidate)"
                if let texts = localization.templates[candidate] { sources.append((texts, "app" + shorter)) }
                if let texts = PushTemplates.builtIn[candidate] {
                    sources.append((Dictionary(uniqueKeysWithValues: texts.map { ($0.key.rawValue, $0.value) }), "built-in" + shorter))
                }
                guard let dash = candidate.lastIndex(of: "-") else { break }
                candidate = String(candidate[..<dash])
            }
            self.sources = sources
            locKeys = localization.locKeys
        }

        /// English with the built-in texts: what a push gets with no languages and no app texts.
        static let standard = Renderer(preferred: [], localization: .standard)

        /// The text `name` with `values` filled in, and where its template came from: `app` or
        /// `built-in` for the language, `app de` or `built-in de` for a shorter form of it (a
        /// `de-ch` device), `built-in en` for English. The first of ``sources`` with a text that
        /// is readable and does not render blank is used; then English's. A value written the
        /// other way than the language (an Arabic name in an English line, a Latin one in an
        /// Arabic line) is isolated with U+2068…U+2069 so that it cannot reorder the line.
        func render(_ name: Name, _ values: [String: String]) -> (text: String, source: String) {
            for (texts, source) in sources {
                if let text = texts[name.rawValue], let rendered = fill(text, values), !isBlank(rendered) {
                    return (rendered, source)
                }
            }
            let english = PushTemplates.builtIn[PushTemplates.fallbackLanguage]?[name] ?? ""
            return (fill(english, values) ?? english, "built-in en")
        }

        /// The rendered text alone.
        func text(_ name: Name, _ values: [String: String]) -> String { render(name, values).text }

        private func isBlank(_ text: String) -> Bool {
            text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || Bidi.isolates.contains($0) }
        }

        private func fill(_ template: String, _ values: [String: String]) -> String? {
            guard case .success(let segments) = PushTemplates.parse(template) else { return nil }
            let rightToLeft = PushTemplates.isRightToLeft(language)
            var out = ""
            for segment in segments {
                switch segment {
                case .text(let text): out += text
                case .placeholder(let name):
                    let value = values[name] ?? ""
                    out += Bidi.needsIsolation(value, inRightToLeft: rightToLeft) ? "\u{2068}\(value)\u{2069}" : value
                }
            }
            return out
        }

        /// `loc-key` and `loc-args` for `name`, when the app asked for them.
        func localizationKeys(_ name: Name, _ values: [String: String]) -> [String: Any]? {
            guard locKeys else { return nil }
            return ["loc-key": name.locKey, "loc-args": name.placeholders.map { values[$0] ?? "" }]
        }
    }
}

/// The little of Unicode's bidirectional algorithm the templates need: which characters are
/// strongly right-to-left or left-to-right.
enum Bidi {
    /// FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE.
    static let isolates: Set<Unicode.Scalar> = ["\u{2068}", "\u{2069}"]

    /// Whether `value` has a strong character of the other direction than the line it goes in.
    static func needsIsolation(_ value: String, inRightToLeft rightToLeft: Bool) -> Bool {
        value.unicodeScalars.contains { rightToLeft ? isStrongLeftToRight($0) : isStrongRightToLeft($0) }
    }

    /// Hebrew, Arabic, Syriac, Thaana, N'Ko and the other right-to-left scripts, and their
    /// presentation forms.
    static func isStrongRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return true
        default: return false
        }
    }

    /// A letter (or other alphabetic character) of a left-to-right script.
    static func isStrongLeftToRight(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic && !isStrongRightToLeft(scalar)
    }
}
