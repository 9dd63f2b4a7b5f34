import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds the FCM v1 `message` object for an iOS token from an APNs payload
/// (Contract/WIRE-CONTRACT.md §6): the payload goes under `apns.payload`, its top-level keys other
/// than `aps` are copied into `data` as strings, and the APNs headers under `apns.headers`.
public enum FCMMessage {
    /// The message JSON, or nil if `payload` is not a JSON object.
    /// - Parameters:
    ///   - token: the registration token.
    ///   - payload: the APNs payload (`aps` + custom keys).
    ///   - apnsHeaders: `apns-push-type`, `apns-priority`, … as FCM forwards them.
    ///   - includeNotification: add a `notification` block with the alert's title and body.
    ///   - sealed: a private push (issue 28): `enc` goes once, in `apns.payload`; `data` gets
    ///     only `pushId`; no `notification` block (its title and body would be clear text).
    public static func make(
        token: String, payload: Data, apnsHeaders: [String: String], includeNotification: Bool, sealed: Bool = false
    ) -> [UInt8]? {
        guard let object = try? JSONCodec.parse(payload) as? [String: Any] else { return nil }
        var data: [String: String] = [:]
        for (key, value) in object where key != "aps" && (!sealed || key == "pushId") {
            if let text = value as? String {
                data[key] = text
            } else if let encoded = try? JSONCodec.encode(value) {
                data[key] = String(decoding: encoded, as: UTF8.self)
            }
        }
        var message: [String: Any] = [
            "token": token,
            "apns": ["headers": apnsHeaders, "payload": object],
        ]
        if !data.isEmpty { message["data"] = data }
        if includeNotification, !sealed, let aps = object["aps"] as? [String: Any], let alert = aps["alert"] as? [String: Any] {
            var notification: [String: String] = [:]
            if let title = alert["title"] as? String { notification["title"] = title }
            if let body = alert["body"] as? String { notification["body"] = body }
            if !notification.isEmpty { message["notification"] = notification }
        }
        guard let encoded = try? JSONCodec.encode(message, sortedKeys: true) else { return nil }
        return encoded
    }
}
