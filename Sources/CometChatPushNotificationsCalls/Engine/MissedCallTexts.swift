import Foundation

/// The words of the "Missed call" notification and its Call back button in the device's
/// language: English, German, Spanish, French, Portuguese and Arabic, the languages a
/// self-hosted service writes its call pushes in (`docs/design/push-languages.md`), chosen as
/// the service chooses a token's (each of `Locale.preferredLanguages` in order, then shortened
/// one subtag at a time: `pt-BR` is Portuguese); English when none matches.
struct MissedCallTexts: Equatable, Sendable {
    /// The language the texts are in (`en`, `de`, …).
    let language: String
    /// The body of a one-to-one audio call.
    let audioCall: String
    /// The body of a one-to-one video call.
    let videoCall: String
    /// The body of a group audio call; `{group}` is the group's name.
    let groupAudioCall: String
    /// The body of a group video call; `{group}` is the group's name.
    let groupVideoCall: String
    /// The title when the push named no caller.
    let unknownCaller: String
    /// The Call back button.
    let callBack: String

    /// Whether the language is written right to left.
    var rightToLeft: Bool { language == "ar" }

    /// The body of a missed call: of its kind, naming the group of a group call.
    func body(video: Bool, group: String?) -> String {
        guard let group else { return video ? videoCall : audioCall }
        let name = Self.needsIsolation(group, inRightToLeft: rightToLeft) ? "\u{2068}\(group)\u{2069}" : group
        return (video ? groupVideoCall : groupAudioCall).replacingOccurrences(of: "{group}", with: name)
    }

    /// The texts for a device whose languages are `preferred` (most preferred first).
    static func forLanguages(_ preferred: [String]) -> MissedCallTexts {
        for tag in preferred {
            var candidate = tag.replacingOccurrences(of: "_", with: "-").lowercased()
            while !candidate.isEmpty {
                if let texts = builtIn[candidate] { return texts }
                guard let cut = candidate.lastIndex(of: "-") else { break }
                candidate = String(candidate[..<cut])
            }
        }
        return english
    }

    static let english = MissedCallTexts(
        language: "en", audioCall: "Missed audio call", videoCall: "Missed video call",
        groupAudioCall: "Missed group audio call in {group}", groupVideoCall: "Missed group video call in {group}",
        unknownCaller: "Missed call", callBack: "Call back")

    /// The built-in texts, by language.
    static let builtIn: [String: MissedCallTexts] = [
        "en": english,
        "de": MissedCallTexts(
            language: "de", audioCall: "Verpasster Audioanruf", videoCall: "Verpasster Videoanruf",
            groupAudioCall: "Verpasster Gruppen-Audioanruf in {group}", groupVideoCall: "Verpasster Gruppen-Videoanruf in {group}",
            unknownCaller: "Verpasster Anruf", callBack: "Zurückrufen"),
        "es": MissedCallTexts(
            language: "es", audioCall: "Llamada de voz perdida", videoCall: "Videollamada perdida",
            groupAudioCall: "Llamada de voz grupal perdida en {group}", groupVideoCall: "Videollamada grupal perdida en {group}",
            unknownCaller: "Llamada perdida", callBack: "Devolver llamada"),
        "fr": MissedCallTexts(
            language: "fr", audioCall: "Appel audio manqué", videoCall: "Appel vidéo manqué",
            groupAudioCall: "Appel audio de groupe manqué dans {group}", groupVideoCall: "Appel vidéo de groupe manqué dans {group}",
            unknownCaller: "Appel manqué", callBack: "Rappeler"),
        "pt": MissedCallTexts(
            language: "pt", audioCall: "Chamada de voz perdida", videoCall: "Chamada de vídeo perdida",
            groupAudioCall: "Chamada de voz em grupo perdida em {group}", groupVideoCall: "Chamada de vídeo em grupo perdida em {group}",
            unknownCaller: "Chamada perdida", callBack: "Ligar de volta"),
        "ar": MissedCallTexts(
            language: "ar", audioCall: "مكالمة صوتية فائتة", videoCall: "مكالمة فيديو فائتة",
            groupAudioCall: "مكالمة صوتية جماعية فائتة في {group}", groupVideoCall: "مكالمة فيديو جماعية فائتة في {group}",
            unknownCaller: "مكالمة فائتة", callBack: "معاودة الاتصال"),
    ]

    /// Whether a name must be isolated (U+2068 … U+2069) so that it cannot reorder the line
    /// around it: its first strongly directional character goes the other way than the line
    /// (a Latin group name in an Arabic line, an Arabic one in an English line).
    static func needsIsolation(_ name: String, inRightToLeft lineIsRightToLeft: Bool) -> Bool {
        for scalar in name.unicodeScalars {
            if isRightToLeft(scalar) { return !lineIsRightToLeft }
            if scalar.properties.isAlphabetic { return lineIsRightToLeft }
        }
        return false
    }

    /// Hebrew, Arabic, Syriac, Thaana, N'Ko and the other scripts of U+0590–U+08FF, and the
    /// Hebrew and Arabic presentation forms.
    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x1_0800...0x1_0FFF, 0x1_E800...0x1_EFFF: return true
        default: return false
        }
    }
}
