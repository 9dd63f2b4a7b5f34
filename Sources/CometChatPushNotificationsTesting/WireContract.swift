import Foundation
import CometChatPushNotificationsSwift

/// The client API of `Contract/WIRE-CONTRACT.md` §2 as rules a request can be checked against. The
/// SDK's tests prove these rules accept every request fixture in `Contract/client/` and reject
/// broken variants of them.
public enum WireContract {
    /// One client call.
    public enum Route: String, Sendable, CaseIterable {
        /// `POST /notifications/push/v1/tokens`
        case registerToken
        /// `DELETE /notifications/push/v1/tokens`
        case unregisterTokens
        /// `POST /users/{uid}/conversation/delivered`
        case userDelivered
        /// `POST /groups/{guid}/conversation/delivered`
        case groupDelivered
        /// `POST /messages`
        case sendMessage
        /// `POST /messages/{parentId}/thread`
        case sendThreadMessage
        /// `PUT /campaigns/push-notifications/{id}/delivered`
        case campaignDelivered
        /// `PUT /campaigns/push-notifications/{id}/clicked`
        case campaignClicked
        /// `PUT /calls/{sessionId}`
        case callStatus
    }

    /// A request the contract recognises: its route and the path parameter, if any.
    public struct Match: Sendable, Equatable {
        /// The route.
        public var route: Route
        /// The `{uid}`, `{guid}`, `{parentId}`, `{id}` or `{sessionId}` of the path.
        public var parameter: String?
    }

    /// The `platform` values of `POST /notifications/push/v1/tokens` (§2), written out rather
    /// than taken from the SDK's `CometChatPushTokenPlatform`, so that an SDK sending a wrong
    /// value is caught instead of redefining the contract.
    public static let platforms = ["apns_ios_device", "apns_ios_voip", "fcm_ios"]

    /// Finds the route of `method` and `path` (the part after the base URL).
    public static func match(method: String, path: String) -> Match? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (method, parts.count) {
        case ("POST", 4) where parts == ["notifications", "push", "v1", "tokens"]:
            return Match(route: .registerToken)
        case ("DELETE", 4) where parts == ["notifications", "push", "v1", "tokens"]:
            return Match(route: .unregisterTokens)
        case ("POST", 4) where parts[0] == "users" && parts[2] == "conversation" && parts[3] == "delivered":
            return Match(route: .userDelivered, parameter: parts[1].removingPercentEncoding)
        case ("POST", 4) where parts[0] == "groups" && parts[2] == "conversation" && parts[3] == "delivered":
            return Match(route: .groupDelivered, parameter: parts[1].removingPercentEncoding)
        case ("POST", 1) where parts[0] == "messages":
            return Match(route: .sendMessage)
        case ("POST", 3) where parts[0] == "messages" && parts[2] == "thread":
            return Match(route: .sendThreadMessage, parameter: parts[1].removingPercentEncoding)
        case ("PUT", 4) where parts[0] == "campaigns" && parts[1] == "push-notifications" && parts[3] == "delivered":
            return Match(route: .campaignDelivered, parameter: parts[2].removingPercentEncoding)
        case ("PUT", 4) where parts[0] == "campaigns" && parts[1] == "push-notifications" && parts[3] == "clicked":
            return Match(route: .campaignClicked, parameter: parts[2].removingPercentEncoding)
        case ("PUT", 2) where parts[0] == "calls":
            return Match(route: .callStatus, parameter: parts[1].removingPercentEncoding)
        default:
            return nil
        }
    }

    /// What is wrong with a request, or an empty list. `path` is the part after the base URL.
    public static func violations(
        method: String, path: String, headers: [String: String], body: Data?
    ) -> [String] {
        guard let match = match(method: method, path: path) else {
            return ["\(method) \(path) is not a call of the client API"]
        }
        var problems: [String] = []
        for name in ["appid", "authToken"] where (headers[name] ?? "").isEmpty {
            problems.append("missing header \(name)")
        }
        if headers["Content-Type"] != "application/json" { problems.append("Content-Type is not application/json") }
        if headers["Accept"] != "application/json" { problems.append("Accept is not application/json") }
        if let parameter = match.parameter, parameter.isEmpty { problems.append("empty path parameter") }

        let json: [String: Any]?
        if let body, !body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                return problems + ["the body is not a JSON object"]
            }
            json = object
        } else {
            json = nil
        }
        func requireString(_ key: String, in object: [String: Any], oneOf allowed: [String]? = nil) {
            guard let value = object[key] as? String, !value.isEmpty else {
                problems.append("body.\(key) must be a non-empty string")
                return
            }
            if let allowed, !allowed.contains(value) { problems.append("body.\(key) \"\(value)\" is not one of \(allowed)") }
        }
        func requireKeys(_ keys: Set<String>, in object: [String: Any], at where_: String = "body") {
            let extra = Set(object.keys).subtracting(keys)
            if !extra.isEmpty { problems.append("\(where_) has unexpected keys \(extra.sorted())") }
        }
        switch match.route {
        case .unregisterTokens, .campaignDelivered, .campaignClicked:
            if json != nil { problems.append("\(match.route.rawValue) takes no body") }
        case .registerToken:
            guard let json else { return problems + ["registerToken needs a body"] }
            requireString("fcmToken", in: json)
            requireString("platform", in: json, oneOf: platforms)
            requireString("providerId", in: json)
            requireString("timezone", in: json)
            if json["environment"] != nil {
                requireString("environment", in: json, oneOf: ["sandbox", "production"])
                if json["platform"] as? String == "fcm_ios" { problems.append("an FCM token has no APNs environment") }
            }
            requireKeys(["fcmToken", "platform", "providerId", "timezone", "environment"], in: json)
            if let token = json["fcmToken"] as? String, token.count > 4096 { problems.append("the token is over 4,096 characters") }
        case .userDelivered, .groupDelivered:
            guard let json else { return problems + ["a delivered receipt needs a body"] }
            requireString("messageId", in: json)
            requireKeys(["messageId"], in: json)
        case .sendMessage, .sendThreadMessage:
            guard let json else { return problems + ["a message needs a body"] }
            requireString("receiver", in: json)
            requireString("receiverType", in: json, oneOf: ["user", "group"])
            requireString("category", in: json, oneOf: ["message"])
            requireString("type", in: json, oneOf: ["text"])
            requireKeys(["receiver", "receiverType", "category", "type", "data"], in: json)
            if let data = json["data"] as? [String: Any] {
                requireString("text", in: data)
                requireKeys(["text"], in: data, at: "body.data")
            } else {
                problems.append("body.data must be an object with text")
            }
        case .callStatus:
            guard let json else { return problems + ["a call status needs a body"] }
            requireString("status", in: json, oneOf: ["rejected", "busy", "unanswered"])
            requireKeys(["status"], in: json)
        }
        return problems
    }
}
