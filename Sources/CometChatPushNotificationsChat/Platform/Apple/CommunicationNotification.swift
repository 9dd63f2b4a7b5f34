#if canImport(Intents) && canImport(UserNotifications) && canImport(UIKit)
import Foundation
import Intents
import UserNotifications

/// Turns a chat notification into a communication notification (iOS 15+): donates an incoming
/// `INSendMessageIntent` for the sender and updates the content from it, so iOS shows the
/// sender's avatar. Throws without the Communication Notifications capability.
enum CommunicationNotification {
    static func update(_ content: UNNotificationContent, sender: PNMessageSender) throws -> UNNotificationContent {
        let person = INPerson(
            personHandle: INPersonHandle(value: sender.uid, type: .unknown), nameComponents: nil,
            displayName: sender.name, image: sender.avatar.flatMap { image($0.fileURL) }, contactIdentifier: nil,
            customIdentifier: sender.uid, isMe: false, suggestionType: .none)
        let intent = INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: content.body,
            speakableGroupName: sender.groupName.map { INSpeakableString(spokenPhrase: $0) },
            conversationIdentifier: sender.conversationId, serviceName: nil, sender: person, attachments: nil)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate(completion: nil)
        return try content.updating(from: intent)
    }

    /// The avatar file as an intent image.
    private static func image(_ url: URL) -> INImage? { INImage(url: url) }
}
#endif
