import Foundation

/// The SDK's notification categories: `MessageCategory` with a text-input Reply action.
enum MessageCategory {
    /// The Reply action's words in one language.
    struct Texts: Equatable {
        /// The action's title.
        let reply: String
        /// The text field's send button.
        let send: String
        /// The text field's placeholder.
        let placeholder: String
    }

    /// The Reply action's words in English, where no other language has them.
    static let english = Texts(reply: "Reply", send: "Send", placeholder: "Message")

    /// The Reply action's words in each of ``PNBuiltInLanguage/all``.
    static let texts: [String: Texts] = [
        "en": english,
        "de": Texts(reply: "Antworten", send: "Senden", placeholder: "Nachricht"),
        "es": Texts(reply: "Responder", send: "Enviar", placeholder: "Mensaje"),
        "fr": Texts(reply: "Répondre", send: "Envoyer", placeholder: "Message"),
        "pt": Texts(reply: "Responder", send: "Enviar", placeholder: "Mensagem"),
        "ar": Texts(reply: "رد", send: "إرسال", placeholder: "رسالة"),
    ]

    /// The category with the Reply action, in the first of `languages` the SDK has words in
    /// (``PNBuiltInLanguage/choose(from:)``; English when none).
    static func category(languages: [String]) -> PNNotificationCategory {
        let words = texts[PNBuiltInLanguage.choose(from: languages)] ?? english
        return PNNotificationCategory(
            identifier: CometChatPushNotifications.messageCategoryIdentifier,
            actions: [
                PNNotificationAction(
                    identifier: CometChatPushNotifications.replyActionIdentifier,
                    title: words.reply,
                    kind: .textInput(buttonTitle: words.send, placeholder: words.placeholder))
            ])
    }
}
