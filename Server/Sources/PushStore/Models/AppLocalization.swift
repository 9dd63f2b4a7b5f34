#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

/// What an app set about the language of its pushes (issue 30, `docs/design/push-languages.md`):
/// its own notification texts per language, over or beside the service's built-in ones, and
/// whether its alerts also carry `loc-key`/`loc-args` for the app to localize on the device.
/// The store keeps it as given (checked by the admin API); the service renders from it.
public struct AppLocalization: Sendable, Hashable {
    /// The app's texts: a language (a lowercased BCP-47 tag such as `de` or `pt-br`) → a
    /// template name (such as `reaction`) → the template.
    public var templates: [String: [String: String]]
    /// Whether alerts carry `loc-key` and `loc-args` beside the rendered text.
    public var locKeys: Bool

    /// Creates a localization.
    public init(templates: [String: [String: String]] = [:], locKeys: Bool = false) {
        self.templates = templates
        self.locKeys = locKeys
    }

    /// An app that set nothing: the built-in texts, no `loc-key`.
    public static let standard = AppLocalization()

    /// The stored text (the `apps.localization` column): `{"locKeys":…,"templates":{…}}`, keys
    /// sorted; nil for ``standard``.
    public var storedText: String? {
        guard self != .standard else { return nil }
        let value: [String: Any] = ["locKeys": locKeys, "templates": templates.mapValues { $0 as [String: Any] }]
        guard let data = try? JSONCodec.encodeData(value, sortedKeys: true) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The localization of a stored text; NULL, or text this version cannot read, is ``standard``.
    public init(storedText: String?) {
        self.init()
        guard let storedText, let value = try? JSONCodec.parse(Array(storedText.utf8)) as? [String: Any] else { return }
        locKeys = value["locKeys"] as? Bool ?? false
        for (language, raw) in value["templates"] as? [String: Any] ?? [:] {
            guard let entries = raw as? [String: Any] else { continue }
            let texts = entries.compactMapValues { $0 as? String }
            if !texts.isEmpty { templates[language] = texts }
        }
    }
}
