#if DEBUG
// Debug builds only: the templates are internal to PushService (`@testable`); the release build
// runs them through the service in `LanguagesTests`.
import Foundation
import PushStore
import Testing

@testable import PushService

/// The texts of pushes per language (issue 30, languages): how a token's languages pick the
/// texts, how an app's texts override and extend the built-in ones and fall back, how templates
/// are checked, and how right-to-left text is kept in its place.
@Suite struct PushTemplatesTests {
    static let values = ["sender": "Ana", "text": "See you at 5?", "reaction": "👍", "group": "Hikers"]

    func renderer(_ languages: [String], _ localization: AppLocalization = .standard) -> PushTemplates.Renderer {
        PushTemplates.Renderer(preferred: languages, localization: localization)
    }

    @Test func aTokensFirstLanguageWithTextsIsChosen() {
        #expect(renderer([]).language == "en")
        #expect(renderer(["de-CH", "de", "en"]).language == "de")
        #expect(renderer(["pt-BR"]).language == "pt")
        // Swiss German first, but Japanese has no texts: the next language the device reads.
        #expect(renderer(["ja-JP", "fr-CA", "en"]).language == "fr")
        #expect(renderer(["ja", "ko"]).language == "en")
        // An app's own language wins over a built-in one the device prefers less.
        let italian = AppLocalization(templates: ["it": ["callAudio": "Chiamata vocale"]])
        #expect(renderer(["it-IT", "en"], italian).language == "it")
        // An app's regional texts are found before the language's.
        let brazil = AppLocalization(templates: ["pt-br": ["callAudio": "Ligação de voz"]])
        #expect(renderer(["pt-BR"], brazil).language == "pt-br")
        #expect(renderer(["pt-PT"], brazil).language == "pt")
    }

    @Test func everyBuiltInLanguageHasEveryTextAndEachIsValid() throws {
        #expect(PushTemplates.builtIn.count >= 5)
        for (language, texts) in PushTemplates.builtIn {
            for name in PushTemplates.Name.allCases {
                let text = try #require(texts[name], "\(language) has no \(name)")
                #expect(PushTemplates.problem(text, name: name) == nil, "\(language).\(name)")
            }
        }
    }

    @Test func builtInTextsPerLanguage() {
        #expect(renderer(["en"]).text(.callVideo, Self.values) == "VIDEO CALL")
        #expect(renderer(["de"]).text(.callAudio, Self.values) == "Audioanruf")
        #expect(renderer(["de"]).text(.reaction, Self.values) == "Ana hat mit 👍 reagiert: See you at 5?")
        #expect(renderer(["es"]).text(.callVideo, Self.values) == "Videollamada")
        #expect(renderer(["fr"]).text(.groupMessage, Self.values) == "Ana : See you at 5?")
        #expect(renderer(["pt"]).text(.callVideo, Self.values) == "Chamada de vídeo")
    }

    @Test func anAppsTextsOverrideAndMissingOnesFallBackToTheBuiltInText() {
        let app = AppLocalization(templates: [
            "de": ["reaction": "{sender} findet {text} {reaction}"],
            "it": ["callAudio": "Chiamata vocale di {sender}"],
        ])
        let german = renderer(["de"], app)
        #expect(german.render(.reaction, Self.values) == ("Ana findet See you at 5? 👍", "app"))
        // Not overridden: the built-in German text.
        #expect(german.render(.callAudio, Self.values) == ("Audioanruf", "built-in"))
        // Italian is the app's own language: what it did not write comes from English.
        let italian = renderer(["it"], app)
        #expect(italian.render(.callAudio, Self.values) == ("Chiamata vocale di Ana", "app"))
        #expect(italian.render(.callVideo, Self.values) == ("VIDEO CALL", "built-in en"))
    }

    @Test func anAppsRegionalTextsFallBackToTheLanguagesBeforeEnglish() {
        // The app wrote Swiss German for one text and German for another: a Swiss device gets
        // the Swiss text, the app's German text, then the built-in German ones.
        let app = AppLocalization(templates: ["de-ch": ["reaction": "{sender} fand {text} {reaction}"], "de": ["callVideo": "Video!"]])
        let swiss = renderer(["de-CH"], app)
        #expect(swiss.language == "de-ch")
        #expect(swiss.render(.reaction, Self.values) == ("Ana fand See you at 5? 👍", "app"))
        #expect(swiss.render(.callVideo, Self.values) == ("Video!", "app de"))
        #expect(swiss.render(.callAudio, Self.values) == ("Audioanruf", "built-in de"))
        #expect(
            renderer(["pt-BR"], AppLocalization(templates: ["pt-br": ["reaction": "{text}"]])).render(.callAudio, Self.values)
                == ("Chamada de voz", "built-in pt"))
    }

    @Test func anOverrideThatRendersBlankFallsBackNeverToAnEmptyAlert() {
        // A reaction with no emoji and an override that shows only the emoji.
        let app = AppLocalization(templates: ["de": ["reaction": "{reaction}"], "it": ["reaction": "{reaction}"]])
        var values = Self.values
        values["reaction"] = ""
        #expect(renderer(["de"], app).render(.reaction, values) == ("Ana hat mit  reagiert: See you at 5?", "built-in"))
        #expect(renderer(["it"], app).render(.reaction, values).source == "built-in en")
        // A stored template this version cannot read (a later version's placeholder) is not used.
        let unreadable = AppLocalization(templates: ["de": ["callAudio": "{caller"]])
        #expect(renderer(["de"], unreadable).render(.callAudio, values) == ("Audioanruf", "built-in"))
    }

    @Test func unknownPlaceholdersStrayBracesAndOversizedTemplatesAreRefused() {
        #expect(PushTemplates.problem("{sender} hat angerufen", name: .callAudio) == nil)
        #expect(
            PushTemplates.problem("{sender}: {text}", name: .callAudio)
                == "unknown placeholder {text}; callAudio takes {sender}")
        #expect(PushTemplates.problem("{name} reacted", name: .reaction)?.hasPrefix("unknown placeholder {name}") == true)
        #expect(PushTemplates.problem("{sender", name: .reaction) == "a { that no } closes")
        #expect(PushTemplates.problem("sender}", name: .reaction) == "a } that no { opens")
        #expect(PushTemplates.problem("{se nder}", name: .reaction) == "{se nder} is not a placeholder name")
        #expect(PushTemplates.problem("  ", name: .reaction) == "empty")
        let long = String(repeating: "ä", count: PushTemplates.maxTemplateBytes / 2 + 1)
        #expect(PushTemplates.problem(long, name: .callAudio) == "longer than \(PushTemplates.maxTemplateBytes) bytes")
        #expect(PushTemplates.problem(String(repeating: "a", count: PushTemplates.maxTemplateBytes), name: .callAudio) == nil)
    }

    @Test func rightToLeftTextIsKeptInItsPlace() {
        // An Arabic device: the built-in Arabic line, an Arabic name as it is.
        var values = Self.values
        values["sender"] = "سارة"
        values["text"] = "نلتقي غدا"
        let arabic = renderer(["ar-EG"])
        #expect(arabic.language == "ar")
        #expect(arabic.text(.callAudio, values) == "مكالمة صوتية")
        #expect(arabic.text(.reaction, values) == "تفاعل سارة بـ 👍 على: نلتقي غدا")
        // A Latin name in the Arabic line is isolated, so it cannot pull the line to the left.
        values["sender"] = "Ana"
        #expect(arabic.text(.groupMessage, values) == "\u{2068}Ana\u{2069}: نلتقي غدا")
        // An Arabic name in an English line is isolated the same way; Latin text is untouched.
        values["sender"] = "سارة"
        values["text"] = "See you"
        #expect(renderer(["en"]).text(.groupMessage, values) == "\u{2068}سارة\u{2069}: See you")
        #expect(renderer(["en"]).text(.groupMessage, Self.values) == "Ana: See you at 5?")
        // A Hebrew override of an English-built app.
        let hebrew = AppLocalization(templates: ["he": ["callVideo": "שיחת וידאו מ{sender}"]])
        #expect(renderer(["he-IL"], hebrew).text(.callVideo, Self.values) == "שיחת וידאו מ\u{2068}Ana\u{2069}")
        #expect(PushTemplates.isRightToLeft("he") && PushTemplates.isRightToLeft("ar-EG") && !PushTemplates.isRightToLeft("de"))
    }

    @Test func locKeysCarryTheArgumentsInPlaceholderOrder() throws {
        let keys = try #require(renderer(["de"], AppLocalization(locKeys: true)).localizationKeys(.reaction, Self.values))
        #expect(keys["loc-key"] as? String == "PN_REACTION")
        #expect(keys["loc-args"] as? [String] == ["Ana", "👍", "See you at 5?"])
        #expect(renderer(["de"]).localizationKeys(.reaction, Self.values) == nil)
    }

    @Test func languageTags() {
        for good in ["en", "de-CH", "zh-Hans-CN", "es-419", "sr-Latn", "gsw"] { #expect(PushTemplates.isLanguageTag(good), "\(good)") }
        for bad in ["", "e", "english_us", "de-", "-de", "de--ch", "1d", "de-CH-toolongsubtag", "dé", String(repeating: "a-b", count: 20)] {
            #expect(!PushTemplates.isLanguageTag(bad), "\(bad)")
        }
    }
}
#endif
