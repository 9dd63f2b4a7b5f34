import Foundation

/// The language of the words the SDK writes itself (the Reply action, the Calls product's
/// "Missed call" notification): one of the languages a self-hosted service writes its pushes in
/// (`docs/design/push-languages.md`), chosen as the service chooses a token's.
@_spi(PNProducts)
public enum PNBuiltInLanguage {
    /// English, German, Spanish, French, Portuguese and Arabic.
    public static let all: Set<String> = ["en", "de", "es", "fr", "pt", "ar"]

    /// The language of the SDK's words on a device whose languages are `preferred` (as
    /// `Locale.preferredLanguages` gives them, most preferred first): the first that is one of
    /// ``all``, each tried as given (lowercased, `_` read as `-`) and then shortened one subtag at
    /// a time (`pt-BR` is `pt`); `en` when none is.
    public static func choose(from preferred: [String]) -> String {
        for tag in preferred {
            var candidate = tag.replacingOccurrences(of: "_", with: "-").lowercased()
            while !candidate.isEmpty {
                if all.contains(candidate) { return candidate }
                guard let cut = candidate.lastIndex(of: "-") else { break }
                candidate = String(candidate[..<cut])
            }
        }
        return "en"
    }

    /// Whether `language` is written right to left.
    public static func isRightToLeft(_ language: String) -> Bool { language == "ar" }

    /// `value` as it goes into a line of `language`: isolated (U+2068 … U+2069) when its first
    /// strongly directional character goes the other way than the line (a Latin name in an
    /// Arabic line, an Arabic one in an English line), so that it cannot reorder the line.
    public static func isolated(_ value: String, in language: String) -> String {
        let lineIsRightToLeft = isRightToLeft(language)
        for scalar in value.unicodeScalars {
            let rightToLeft = isRightToLeftScalar(scalar)
            if rightToLeft || scalar.properties.isAlphabetic {
                return rightToLeft == lineIsRightToLeft ? value : "\u{2068}\(value)\u{2069}"
            }
        }
        return value
    }

    /// Hebrew, Arabic, Syriac, Thaana, N'Ko and the other scripts of U+0590–U+08FF, the Hebrew
    /// and Arabic presentation forms, and the right-to-left scripts of the supplementary planes.
    static func isRightToLeftScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x1_0800...0x1_0FFF, 0x1_E800...0x1_EFFF: return true
        default: return false
        }
    }
}
