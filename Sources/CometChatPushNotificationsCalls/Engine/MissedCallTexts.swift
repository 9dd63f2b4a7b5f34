import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The words of the "Missed call" notification and its Call back button in one of the SDK's
/// built-in languages (``PNBuiltInLanguage``: those a self-hosted service writes its call pushes
/// in, chosen as it chooses a token's; English when none of the device's matches).
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

    /// The body of a missed call: of its kind, naming the group of a group call.
    func body(video: Bool, group: String?) -> String {
        guard let group else { return video ? videoCall : audioCall }
        let name = PNBuiltInLanguage.isolated(group, in: language)
        return (video ? groupVideoCall : groupAudioCall).replacingOccurrences(of: "{group}", with: name)
    }

    /// The texts for a device whose languages are `preferred` (most preferred first).
    static func forLanguages(_ preferred: [String]) -> MissedCallTexts {
        builtIn[PNBuiltInLanguage.choose(from: preferred)] ?? english
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
}
