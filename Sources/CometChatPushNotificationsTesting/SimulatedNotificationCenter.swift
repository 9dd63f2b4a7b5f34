import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// The notification center of the simulated device: categories (rule 4: a new set replaces the
/// old one), one delegate (rule 5: the SDK's, or the app's own that forwards), the
/// notifications in Notification Center, and local notification requests.
///
/// Notification Center holds one notification per identifier (rule 33): a push whose collapse
/// id is the identifier of a delivered notification, or a local request with its identifier,
/// replaces it and moves it to the top. Anything else adds one; a notification shown while
/// another showing the same message is in Notification Center is recorded in ``duplicates``.
public final class SimulatedNotificationCenter: PNNotificationCenter, @unchecked Sendable {
    // @unchecked: all mutable state is inside `state`.

    /// Who is the delegate.
    public enum DelegateOwner: String, Sendable {
        /// The SDK (it became the delegate in `initialize`).
        case sdk
        /// The app's own object, which forwards to the SDK (or not).
        case app
    }

    struct State {
        var categories: [PNNotificationCategory] = []
        var categorySets = 0
        var delegate: (owner: DelegateOwner, events: PNNotificationCenterEvents)?
        var shown: [SimulatedShownNotification] = []
        var duplicates: [SimulatedDuplicate] = []
        var localRequests: [PNLocalNotificationRequest] = []
        var localDeliveries: [SimulatedDelivery] = []
        /// The device that presents local requests (foreground or not); `nil` on a center of its own.
        var presenter: (@Sendable (PNLocalNotificationRequest, PNNotification) -> Void)?
        var nextIdentifier = 1
        var localizedStrings: [String: String] = [:]
    }

    let state = PNLocked(State())

    /// Creates an empty notification center.
    public init() {}

    // MARK: PNNotificationCenter

    /// Replaces every category.
    public func setCategories(_ categories: [PNNotificationCategory]) {
        state.withLock {
            $0.categories = categories
            $0.categorySets += 1
        }
    }

    /// The SDK becomes the delegate, replacing any other.
    public func becomeDelegate(_ events: PNNotificationCenterEvents) {
        state.withLock { $0.delegate = (.sdk, events) }
    }

    /// Records the request and presents it as iOS does: on a device, through the delegate's
    /// `willPresent` while the app is in the foreground; in Notification Center in the place of a
    /// delivered notification with the same identifier (rule 33).
    public func add(_ request: PNLocalNotificationRequest, completion: @escaping @Sendable ((any Error)?) -> Void) {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in request.userInfo { userInfo[key] = value }
        let notification = PNNotification(
            identifier: request.identifier, userInfo: userInfo,
            categoryIdentifier: request.categoryIdentifier ?? "", threadIdentifier: request.threadIdentifier ?? "")
        let presenter = state.withLock { state in
            state.localRequests.append(request)
            return state.presenter
        }
        if let presenter { presenter(request, notification) } else { showLocal(request, notification) }
        completion(nil)
    }

    /// Removes notifications from Notification Center.
    public func removeDeliveredNotifications(identifiers: [String]) {
        state.withLock { $0.shown.removeAll { identifiers.contains($0.notification.identifier) } }
    }

    /// The notifications in Notification Center, as `getDeliveredNotifications` lists them.
    public func deliveredNotifications(completion: @escaping @Sendable ([PNNotification]) -> Void) {
        completion(shownNotifications)
    }

    // MARK: The app's side

    /// The app makes its own object the delegate (after `initialize`), replacing the SDK; it
    /// must forward to `handleWillPresentNotification` and `handleNotificationResponse`.
    public func setAppDelegate(_ events: PNNotificationCenterEvents) {
        state.withLock { $0.delegate = (.app, events) }
    }

    /// The current delegate's owner, or `nil` when nobody is the delegate.
    public var delegateOwner: DelegateOwner? { state.withLock { $0.delegate?.owner } }

    /// The app's categories.
    public var categories: [PNNotificationCategory] { state.withLock { $0.categories } }

    /// How many times the categories were set.
    public var categorySetCount: Int { state.withLock { $0.categorySets } }

    /// The notifications in Notification Center, oldest first (the last is at the top).
    public var shownNotifications: [PNNotification] { state.withLock { $0.shown.map(\.notification) } }

    /// The notifications in Notification Center with what they show, oldest first.
    public var shown: [SimulatedShownNotification] { state.withLock { $0.shown } }

    /// Every notification shown while another one showing the same message was in Notification
    /// Center (rule 33): the user saw that message twice. A correct client and a service that
    /// gives every push a collapse id leave this empty.
    public var duplicates: [SimulatedDuplicate] { state.withLock { $0.duplicates } }

    /// The local notifications the SDK asked for.
    public var localRequests: [PNLocalNotificationRequest] { state.withLock { $0.localRequests } }

    /// What became of each local request on the device (presented or not, with sound or not).
    public var localDeliveries: [SimulatedDelivery] { state.withLock { $0.localDeliveries } }

    // MARK: Device internals

    var currentDelegate: (owner: DelegateOwner, events: PNNotificationCenterEvents)? { state.withLock { $0.delegate } }

    /// The process ended: iOS forgets its delegate.
    func processEnded() { state.withLock { $0.delegate = nil } }

    func makeNotification(_ payload: [String: Any], identifier: String?) -> PNNotification {
        let id =
            identifier
            ?? state.withLock { state -> String in
                defer { state.nextIdentifier += 1 }
                return "notification-\(state.nextIdentifier)"
            }
        let aps = payload["aps"] as? [String: Any]
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload { userInfo[key] = value }
        return PNNotification(
            identifier: id, userInfo: userInfo, categoryIdentifier: aps?["category"] as? String ?? "",
            threadIdentifier: aps?["thread-id"] as? String ?? "")
    }

    /// Shows a remote notification: iOS shows the payload's `aps.alert` (``alertBody(_:)``).
    func show(_ notification: PNNotification) {
        let alert = (notification.userInfo["aps"] as? [String: Any])?["alert"]
        let object = alert as? [String: Any]
        show(
            SimulatedShownNotification(
                notification: notification, title: object?["title"] as? String, body: alertBody(alert), isLocal: false))
    }

    /// The app's `Localizable.strings` in the device's language (empty unless a test gives the
    /// app some): what an alert's `loc-key` shows.
    public var localizedStrings: [String: String] {
        get { state.withLock { $0.localizedStrings } }
        set { state.withLock { $0.localizedStrings = newValue } }
    }

    /// The body iOS shows for an `aps.alert`: a string as it is; in a dictionary, a `loc-key`
    /// wins over `body`: its string in ``localizedStrings`` with `loc-args` put in (`%@`,
    /// `%1$@`…), or the key itself when the app has no such string (a private push's
    /// placeholder); else `body`.
    public func alertBody(_ alert: Any?) -> String? {
        guard let object = alert as? [String: Any] else { return alert as? String }
        guard let key = object["loc-key"] as? String else { return object["body"] as? String }
        guard let format = localizedStrings[key] else { return key }
        return Self.format(format, (object["loc-args"] as? [Any])?.map { "\($0)" } ?? [])
    }

    /// A strings-file format with its arguments: `%@` takes the next one, `%n$@` the n-th, `%%`
    /// is a percent sign; a missing argument shows as nothing.
    static func format(_ format: String, _ arguments: [String]) -> String {
        var out = ""
        var next = 0
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                out += "%"
                rest = rest.dropFirst()
            } else if rest.first == "@" {
                out += next < arguments.count ? arguments[next] : ""
                next += 1
                rest = rest.dropFirst()
            } else if let dollar = rest.firstIndex(of: "$"), let position = Int(rest[..<dollar]),
                rest[rest.index(after: dollar)...].first == "@"
            {
                out += position >= 1 && position <= arguments.count ? arguments[position - 1] : ""
                rest = rest[rest.index(dollar, offsetBy: 2)...]
            } else {
                out += "%"
            }
        }
        return out + rest
    }

    /// Shows a local request: what it shows is its title and body.
    func showLocal(_ request: PNLocalNotificationRequest, _ notification: PNNotification) {
        show(SimulatedShownNotification(notification: notification, title: request.title, body: request.body, isLocal: true))
    }

    /// The device presents local requests from now on.
    func setLocalPresenter(_ presenter: @escaping @Sendable (PNLocalNotificationRequest, PNNotification) -> Void) {
        state.withLock { $0.presenter = presenter }
    }

    func recordLocal(_ delivery: SimulatedDelivery) { state.withLock { $0.localDeliveries.append(delivery) } }

    /// Rule 33: a notification with the identifier of one in Notification Center replaces it and
    /// goes to the top; one that shows the same message as another is recorded as a duplicate.
    private func show(_ entry: SimulatedShownNotification) {
        state.withLock { state in
            state.shown.removeAll { $0.notification.identifier == entry.notification.identifier }
            if let twin = state.shown.last(where: { $0.showsSameMessage(as: entry) }) {
                state.duplicates.append(SimulatedDuplicate(shown: entry, alreadyShown: twin))
            }
            state.shown.append(entry)
        }
    }

    func remove(_ notification: PNNotification) {
        state.withLock { $0.shown.removeAll { $0.notification.identifier == notification.identifier } }
    }

    func category(_ identifier: String) -> PNNotificationCategory? {
        state.withLock { $0.categories.first { $0.identifier == identifier } }
    }
}

/// A notification in the simulated Notification Center and what the user sees of it.
public struct SimulatedShownNotification: Sendable {
    /// The notification, as the app lists it.
    public var notification: PNNotification
    /// The title shown (`aps.alert.title`, or the local request's).
    public var title: String?
    /// The text shown (`aps.alert.body`, or the local request's).
    public var body: String?
    /// Whether the app added it as a local notification request (not a push).
    public var isLocal: Bool

    /// The message it shows: the payload's kind (`type`, or `source` for a campaign), its
    /// message id (`tag`, else `messageId`, else a campaign's `id`), the kind of message
    /// (`message.category`, if the payload carries it) and its conversation (thread); `nil` when
    /// it names no message id.
    var messageKey: [String]? {
        let info = notification.userInfo
        func text(_ key: String) -> String? {
            let value = info[key]
            if let string = value as? String, !string.isEmpty { return string }
            if let number = value as? NSNumber { return number.stringValue }
            return nil
        }
        guard let id = text("tag") ?? text("messageId") ?? (text("source") == "campaign" ? text("id") : nil) else { return nil }
        let category = (info["message"] as? [String: Any])?["category"] as? String ?? "message"
        let thread = notification.threadIdentifier.isEmpty ? text("conversationId") ?? "" : notification.threadIdentifier
        return [text("type") ?? text("source") ?? "", id, category, thread]
    }

    /// Whether both show the same message: the same ``messageKey`` when both have one, else the
    /// same thread, title and text.
    func showsSameMessage(as other: SimulatedShownNotification) -> Bool {
        if let mine = messageKey, let theirs = other.messageKey { return mine == theirs }
        guard let body, !body.isEmpty else { return false }
        return body == other.body && title == other.title
            && notification.threadIdentifier == other.notification.threadIdentifier
    }
}

/// A message the user saw twice in Notification Center (rule 33).
public struct SimulatedDuplicate: Sendable, CustomStringConvertible {
    /// The notification shown second.
    public var shown: SimulatedShownNotification
    /// The notification that was already there, showing the same message.
    public var alreadyShown: SimulatedShownNotification

    /// Both identifiers and the text.
    public var description: String {
        "\"\(shown.body ?? "")\" shown as \(shown.notification.identifier)\(shown.isLocal ? " (local)" : "") "
            + "while \(alreadyShown.notification.identifier)\(alreadyShown.isLocal ? " (local)" : "") showed it"
    }
}
