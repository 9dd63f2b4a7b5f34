#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushStore
import ServerSupport

/// An app's notification texts per language and its `loc-key` choice (issue 30, languages):
/// set with the app (`templates`, `locKeys`) or one language at a time, listed beside the
/// built-in texts, and previewed before they are saved.
extension AdminAPI {
    var templateRoutes: [Route] {
        [
            Route("GET", "apps/:appId/templates", .admin) { call in
                templatesJSON(try existingApp(call.parameter("appId")))
            },
            Route("PUT", "apps/:appId/templates/:language", .admin) { call in
                var record = try existingApp(call.parameter("appId"))
                let language = try Self.languageParameter(call.parameter("language"))
                let texts = try Self.templateTexts(call.body().values, field: "body")
                if texts.isEmpty {
                    record.localization.templates[language] = nil
                } else {
                    record.localization.templates[language] = texts
                }
                try Self.checkLanguageCount(record.localization)
                try service.store.updateApp(record)
                service.logger.info("templates set app=\(record.id) language=\(language) texts=\(texts.count)")
                return templatesJSON(record)
            },
            Route("DELETE", "apps/:appId/templates/:language", .admin) { call in
                var record = try existingApp(call.parameter("appId"))
                let language = try Self.languageParameter(call.parameter("language"))
                guard record.localization.templates.removeValue(forKey: language) != nil else {
                    throw APIError.noTemplates(language)
                }
                try service.store.updateApp(record)
                service.logger.info("templates removed app=\(record.id) language=\(language)")
                return templatesJSON(record)
            },
            Route("POST", "apps/:appId/template-preview", .admin) { call in
                try previewTemplates(existingApp(call.parameter("appId")), body: call.body())
            },
        ]
    }

    /// Reads `templates` and `locKeys` from a create or update body: `templates` (an object of
    /// languages, each an object of texts) replaces the app's texts, null removes them all;
    /// `locKeys` (true or false) sets whether alerts carry `loc-key`/`loc-args`. Absent fields
    /// leave the record as is.
    func applyLocalization(_ body: JSONObject, to record: inout AppRecord) throws {
        if let raw = body.values["templates"] {
            if raw is JSONNull {
                record.localization.templates = [:]
            } else {
                guard let object = raw as? [String: Any] else {
                    throw APIError.badRequest(
                        "The templates field must be an object of languages, such as {\"de\": {\"callAudio\": \"Audioanruf\"}}.",
                        field: "templates", problem: "not an object")
                }
                var templates: [String: [String: String]] = [:]
                for key in object.keys.sorted() {
                    guard PushTemplates.isLanguageTag(key) else {
                        throw APIError.badRequest(
                            "The templates field's key \(Self.shown(key)) is not a language tag (such as de or pt-BR).",
                            field: "templates.\(Self.shown(key))", problem: "not a language tag")
                    }
                    let texts = try Self.templateTexts(object[key] as Any, field: "templates.\(key)")
                    if !texts.isEmpty { templates[key.lowercased()] = texts }
                }
                record.localization.templates = templates
                try Self.checkLanguageCount(record.localization)
            }
        }
        if let locKeys = try body.bool("locKeys") { record.localization.locKeys = locKeys }
    }

    /// A language from the path: a language tag, lowercased.
    static func languageParameter(_ text: String) throws -> String {
        guard PushTemplates.isLanguageTag(text) else {
            throw APIError.badRequest(
                "The language \(shown(text)) is not a language tag (such as de or pt-BR).", field: "language",
                problem: "not a language tag")
        }
        return text.lowercased()
    }

    /// One language's texts: an object of template names to texts, each checked
    /// (``PushTemplates/problem(_:name:)``); a name with null is left out. A 400 names the
    /// field, such as `templates.de.reaction`.
    static func templateTexts(_ raw: Any, field: String) throws -> [String: String] {
        guard let object = raw as? [String: Any] else {
            throw APIError.badRequest(
                "The \(field) field must be an object of texts, such as {\"callAudio\": \"Audioanruf\"}.", field: field,
                problem: "not an object")
        }
        var texts: [String: String] = [:]
        let names = PushTemplates.Name.allCases.map(\.rawValue).joined(separator: ", ")
        for key in object.keys.sorted() {
            let path = "\(field).\(shown(key))"
            guard let name = PushTemplates.Name(rawValue: key) else {
                throw APIError.badRequest(
                    "The \(path) field is not a template: the templates are \(names).", field: path, problem: "unknown")
            }
            let value = object[key]
            if value is JSONNull { continue }
            guard let text = value as? String else {
                throw APIError.badRequest("The \(path) field must be a string.", field: path, problem: "not a string")
            }
            guard !text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7f }) else {
                throw APIError.badRequest(
                    "The \(path) field contains control characters.", field: path, problem: "control characters")
            }
            if let problem = PushTemplates.problem(text, name: name) {
                throw APIError.badRequest("The \(path) template is refused: \(problem).", field: path, problem: problem)
            }
            texts[key] = text
        }
        return texts
    }

    /// At most ``PushTemplates/maxLanguages`` languages per app.
    static func checkLanguageCount(_ localization: AppLocalization) throws {
        guard localization.templates.count <= PushTemplates.maxLanguages else {
            throw APIError.badRequest(
                "An app sets texts for at most \(PushTemplates.maxLanguages) languages.", field: "templates", problem: "too many languages")
        }
    }

    /// `{locKeys, templates, builtIn: {language: {name: text}}, names: {name: {placeholders, locKey}}}`.
    func templatesJSON(_ app: AppRecord) -> [String: Any] {
        var builtIn: [String: Any] = [:]
        for (language, texts) in PushTemplates.builtIn {
            builtIn[language] = Dictionary(uniqueKeysWithValues: texts.map { ($0.key.rawValue, $0.value as Any) })
        }
        var names: [String: Any] = [:]
        for name in PushTemplates.Name.allCases {
            names[name.rawValue] = ["placeholders": name.placeholders, "locKey": name.locKey] as [String: Any]
        }
        return [
            "appId": app.id, "locKeys": app.localization.locKeys,
            "templates": app.localization.templates.mapValues { $0 as [String: Any] }, "builtIn": builtIn, "names": names,
            "fallbackLanguage": PushTemplates.fallbackLanguage,
        ]
    }

    /// The longest sample value of a preview.
    static let maxSampleLength = 200

    /// What a device whose languages are `languages` would show: each template rendered with
    /// sample values (the body's `sample`, or the service's), where its text came from (`app`,
    /// `built-in`, `built-in en`), from the app's saved texts or from `templates`, a draft of
    /// the languages' texts that is checked as a save would check it and not saved.
    func previewTemplates(_ app: AppRecord, body: JSONObject) throws -> Any {
        var localization = app.localization
        var languages: [String] = []
        if let raw = body["languages"] {
            guard let items = raw as? [Any], !items.isEmpty, items.count <= PushTemplates.maxTokenLanguages,
                let tags = items as? [String], tags.allSatisfy(PushTemplates.isLanguageTag)
            else {
                throw APIError.badRequest(
                    "The languages field must be 1 to \(PushTemplates.maxTokenLanguages) language tags, such as [\"de-CH\", \"en\"].",
                    field: "languages", problem: "not language tags")
            }
            languages = tags
        }
        if let draft = try body.optionalObject("templates") {
            for key in draft.values.keys.sorted() {
                guard PushTemplates.isLanguageTag(key) else {
                    throw APIError.badRequest(
                        "The templates field's key \(Self.shown(key)) is not a language tag.", field: "templates.\(Self.shown(key))",
                        problem: "not a language tag")
                }
                // As a save: a language without texts is no language of the app's.
                let texts = try Self.templateTexts(draft.values[key] as Any, field: "templates.\(key)")
                localization.templates[key.lowercased()] = texts.isEmpty ? nil : texts
            }
        }
        if let locKeys = try body.bool("locKeys") { localization.locKeys = locKeys }
        let sample = try body.optionalObject("sample")
        var values = ["sender": "Ana", "group": "Hiking club", "text": "See you at 5?", "reaction": "👍"]
        for key in values.keys.sorted() {
            if let value = try sample?.optionalString(key, maxLength: Self.maxSampleLength) { values[key] = value }
        }
        let renderer = PushTemplates.Renderer(preferred: languages, localization: localization)
        var texts: [String: Any] = [:]
        for name in PushTemplates.Name.allCases {
            let (text, source) = renderer.render(name, values)
            var entry: [String: Any] = ["text": text, "source": source]
            if let keys = renderer.localizationKeys(name, values) { entry.merge(keys) { first, _ in first } }
            texts[name.rawValue] = entry
        }
        return [
            "language": renderer.language, "rightToLeft": PushTemplates.isRightToLeft(renderer.language), "texts": texts,
            "sample": values,
        ]
    }
}
