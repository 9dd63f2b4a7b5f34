#if canImport(Intents) && canImport(UserNotifications) && canImport(UIKit)
import Foundation
import Intents
import UserNotifications

/// Turns a chat notification into a communication notification (iOS 15+): donates an incoming
/// `INSendMessageIntent` for the sender and updates the content from it, so iOS shows the
/// sender's avatar, and for a group message the group's name over its members. Throws when the
/// app target lacks the Communication Notifications capability (or `NSUserActivityTypes`
/// without `INSendMessageIntent`); the caller then attaches the avatar as an image instead.
enum CommunicationNotification {
    /// The updated content. The avatar's bytes go into the intent (`INImage(imageData:)`), so
    /// once the content is updated the downloaded file is no longer needed and is deleted; when
    /// the update throws the file is kept for the attachment path.
    static func update(_ content: UNNotificationContent, sender: PNMessageSender) throws -> UNNotificationContent {
        let avatarFile = sender.avatar?.fileURL
        let image = avatarFile.flatMap { try? Data(contentsOf: $0) }.map { INImage(imageData: $0) }
        let person = INPerson(
            personHandle: INPersonHandle(value: sender.uid, type: .unknown), nameComponents: nil,
            displayName: sender.name, image: image, contactIdentifier: nil, customIdentifier: sender.uid, isMe: false,
            suggestionType: .none)
        let group = sender.groupName
        let intent = INSendMessageIntent(
            recipients: recipients(sender: person, isGroup: group != nil), outgoingMessageType: .outgoingMessageText,
            content: content.body, speakableGroupName: group.map { INSpeakableString(spokenPhrase: $0) },
            conversationIdentifier: sender.conversationId ?? (group == nil ? sender.uid : nil), serviceName: nil,
            sender: person, attachments: nil)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate(completion: nil)
        let updated = try content.updating(from: intent)
        if let avatarFile { try? FileManager.default.removeItem(at: avatarFile) }
        return updated
    }

    /// Who received the message. iOS draws a group conversation (the group's name, several
    /// avatars) only when an intent with a `speakableGroupName` names more than one recipient;
    /// the push does not list the group's members, so a group message names the two members it
    /// knows: this device's user and the sender. A one-to-one message names no recipients (the
    /// receiver is this device's user, as iOS assumes for an incoming message).
    private static func recipients(sender: INPerson, isGroup: Bool) -> [INPerson]? {
        guard isGroup else { return nil }
        let me = INPerson(
            personHandle: INPersonHandle(value: nil, type: .unknown), nameComponents: nil, displayName: nil,
            image: nil, contactIdentifier: nil, customIdentifier: nil, isMe: true, suggestionType: .none)
        return [me, sender]
    }
}
#endif
