import Testing

@testable import CometChatPushNotificationsCalls
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The language of the missed-call notification: chosen from the device's languages as the
/// service chooses a token's, English when none has texts, and a group name of the other
/// writing direction isolated so that it cannot reorder the line.
@Suite("Missed-call texts")
struct MissedCallTextsTests {
    @Test(
        "The first of the device's languages with texts, tried as given and then shortened",
        arguments: [
            (["de-CH", "de", "en"], "de"), (["pt-BR"], "pt"), (["pt_PT"], "pt"), (["ja-JP", "fr-CA", "de"], "fr"),
            (["zh-Hans-CN", "es-419"], "es"), (["AR-EG"], "ar"), (["ja", "ko"], "en"), ([], "en"), (["en-GB", "de"], "en"),
        ])
    func language(_ preferred: [String], _ expected: String) {
        #expect(MissedCallTexts.forLanguages(preferred).language == expected)
    }

    @Test("Every built-in language has every text, and each group text names the group once")
    func everyLanguageIsComplete() {
        #expect(Set(MissedCallTexts.builtIn.keys) == PNBuiltInLanguage.all)
        for (language, texts) in MissedCallTexts.builtIn {
            #expect(texts.language == language)
            for text in [texts.audioCall, texts.videoCall, texts.unknownCaller, texts.callBack] {
                #expect(!text.isEmpty && !text.contains("{"), "\(language): \(text)")
            }
            for text in [texts.groupAudioCall, texts.groupVideoCall] {
                #expect(text.components(separatedBy: "{group}").count == 2, "\(language): \(text)")
            }
            #expect(texts.audioCall != texts.videoCall && texts.groupAudioCall != texts.groupVideoCall)
        }
    }

    @Test("A group name written the other way is isolated; one written the line's way is not")
    func groupNamesKeepTheLineInOrder() {
        let arabic = MissedCallTexts.forLanguages(["ar"])
        #expect(arabic.body(video: false, group: "Team Rocket") == "مكالمة صوتية جماعية فائتة في \u{2068}Team Rocket\u{2069}")
        #expect(arabic.body(video: true, group: "العائلة") == "مكالمة فيديو جماعية فائتة في العائلة")
        let english = MissedCallTexts.english
        #expect(english.body(video: false, group: "العائلة") == "Missed group audio call in \u{2068}العائلة\u{2069}")
        #expect(english.body(video: true, group: "Team Rocket") == "Missed group video call in Team Rocket")
        #expect(english.body(video: true, group: "123") == "Missed group video call in 123", "no strong direction: as it is")
        #expect(english.body(video: true, group: nil) == "Missed video call")
    }
}
