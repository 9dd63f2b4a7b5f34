#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation
import UserNotifications

// Intents — what a communication notification needs: an incoming INSendMessageIntent, donated.
// https://developer.apple.com/documentation/intents/insendmessageintent
// https://developer.apple.com/documentation/intents/inperson
// https://developer.apple.com/documentation/intents/ininteraction

public enum INPersonHandleType: Int, @unchecked Sendable {
    case unknown = 0
    case emailAddress = 1
    case phoneNumber = 2
}

public enum INPersonSuggestionType: Int, @unchecked Sendable {
    case none = 0
    case socialProfile = 1
    case instantMessageAddress = 2
}

public enum INOutgoingMessageType: Int, @unchecked Sendable {
    case unknown = 0
    case outgoingMessageText = 1
    case outgoingMessageAudio = 2
}

public enum INInteractionDirection: Int, @unchecked Sendable {
    case unspecified = 0
    case outgoing = 1
    case incoming = 2
}

open class INPersonHandle: NSObject {
    public convenience init(value: String?, type: INPersonHandleType) { fatalError() }
}

open class INImage: NSObject {
    public convenience init?(url URL: URL) { fatalError() }
    public convenience init(imageData: Data) { fatalError() }
}

open class INSpeakableString: NSObject {
    public convenience init(spokenPhrase: String) { fatalError() }
}

open class INPerson: NSObject {
    @available(iOS 15.0, *)
    public convenience init(
        personHandle: INPersonHandle, nameComponents: PersonNameComponents?, displayName: String?, image: INImage?,
        contactIdentifier: String?, customIdentifier: String?, isMe: Bool, suggestionType: INPersonSuggestionType
    ) { fatalError() }
}

open class INSendMessageAttachment: NSObject {}

open class INIntent: NSObject {}

open class INIntentResponse: NSObject {}

/// `INSendMessageIntent` adopts `UNNotificationContentProviding` (Intents' UserNotifications category).
open class INSendMessageIntent: INIntent, UNNotificationContentProviding {
    @available(iOS 14.0, *)
    public init(
        recipients: [INPerson]?, outgoingMessageType: INOutgoingMessageType, content: String?,
        speakableGroupName: INSpeakableString?, conversationIdentifier: String?, serviceName: String?,
        sender: INPerson?, attachments: [INSendMessageAttachment]?
    ) { fatalError() }
}

open class INInteraction: NSObject {
    public init(intent: INIntent, response: INIntentResponse?) { fatalError() }
    open var direction: INInteractionDirection {
        get { fatalError() }
        set { fatalError() }
    }
    open func donate(completion: (@Sendable ((any Error)?) -> Void)? = nil) { fatalError() }
}
