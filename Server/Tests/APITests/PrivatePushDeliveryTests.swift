#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCrypto
import PushMocks
import PushTestSupport
import ServerSupport
import Testing

/// Issue 28 through the whole service: a `private` app's devices register their keys, and what
/// the mock APNs and FCM receive (bodies and headers, as they log them) names nobody, while each
/// `enc` opens with the device's key to the standard payload; an edit of a message finds its
/// jobs by the recipients' keyed collapse ids.
@Suite("Private push through the service", .serialized)
struct PrivatePushDeliveryTests {
    static let words = ["Bartholomew", "Quince", "lighthouse", "harbour", "alice-7", "bob-9", "cdn.example.com", "call-77", "m-1042"]

    static func chat(action: String? = nil, text: String) -> [String: Any] {
        var message: [String: Any] = [
            "id": "m-1042", "text": text, "receiverType": "user",
            "sender": ["uid": "alice-7", "name": "Bartholomew Quince", "avatar": "https://cdn.example.com/a.png"],
            "receiver": ["uid": "bob-9", "name": "Bob"],
        ]
        if let action { message["action"] = action }
        return ["type": "chat", "recipients": [["uid": "bob-9", "badge": 2]], "message": message, "custom": ["note": "lighthouse"]]
    }

    /// Every request the mock logged, as JSON text (headers and bodies).
    static func logged(_ mock: MockPushServer) -> [String] {
        mock.log().compactMap { entry in
            (try? JSONCodec.encode(entry)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The payload of a logged request: the APNs body, or FCM's `message.apns.payload`.
    static func payload(_ entry: MockPushServer.Entry) throws -> Data {
        if let body = entry["body"] as? String { return Data(body.utf8) }
        let message = try #require(entry["message"] as? [String: Any])
        let apns = try #require(message["apns"] as? [String: Any])
        return try JSONCodec.encodeData(try #require(apns["payload"] as? [String: Any]))
    }

    @Test func aPrivateAppsPushesNameNobodyAtAPNsAndFCMAndOpenOnTheDevice() async throws {
        let mock = try await offThePool { try MockPushServer() }
        defer { mock.stop() }
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.rateLimitPerMinute = 0
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
            configuration.delivery.fcmBaseURL = mock.baseURL
        }
        try await harness.addMockProviders(mock)
        let update = try await harness.admin("PUT", "/apps/app1", ["privacy": "private"])
        #expect(update.status == 200 && update.data["privacy"] as? String == "private")
        let bob = try await harness.makeUser("bob-9", name: "Bob")
        var devices: [String: TestPushDevice] = [:]
        for (token, platform) in [("b0b0a1", "apns_ios_device"), ("b0b0f2", "fcm_ios"), ("b0b0c3", "apns_ios_voip")] {
            let device = try TestPushDevice()
            devices[token] = device
            let answer = try await harness.client(
                "POST", "/notifications/push/v1/tokens", session: bob,
                [
                    "fcmToken": token, "platform": platform, "providerId": platform == "fcm_ios" ? "fcm-1" : "apns-1",
                    "encryption": ["p256dh": Base64URL.encode(device.key.publicKey), "auth": Base64URL.encode(device.auth)],
                ])
            #expect(answer.status == 200, "\(answer.data)")
        }

        // A message: to the APNs and the FCM token, sealed.
        #expect(try await harness.send(Self.chat(text: "Meet me at the lighthouse")).status == 200)
        #expect(await eventually { mock.log(kind: "apns").count == 1 && mock.log(kind: "fcm").count == 1 })
        #expect(await eventually { (try? harness.store.pushJobCounts().delivered) == 2 })
        // Its edit: found by bob's keyed collapse id, a background push to both.
        let edit = try await harness.send(Self.chat(action: "edited", text: "Meet me at the harbour"))
        #expect(edit.status == 200 && edit.data["jobs"] as? Int == 2, "\(edit.data)")
        // A call: to the VoIP token.
        let call: [String: Any] = [
            "type": "call", "recipients": [["uid": "bob-9"]],
            "call": [
                "sessionId": "call-77", "callAction": "initiated", "callType": "audio", "receiverType": "user",
                "sender": ["uid": "alice-7", "name": "Bartholomew Quince"], "receiver": ["uid": "bob-9", "name": "Bob"],
            ],
        ]
        #expect(try await harness.send(call).status == 200)
        #expect(await eventually { mock.log(kind: "apns").count == 3 && mock.log(kind: "fcm").count == 2 })

        for line in Self.logged(mock) {
            for word in Self.words { #expect(!line.contains(word), "the mock saw \"\(word)\": \(line)") }
        }
        var opened: [[String: Any]] = []
        for entry in mock.log() where ["apns", "fcm"].contains(entry["kind"] as? String) {
            let token = try #require((entry["token"] as? String) ?? ((entry["message"] as? [String: Any])?["token"] as? String))
            let device = try #require(devices[token], "a push to an unknown token \(token)")
            opened.append(try device.open(try Self.payload(entry)))
            if entry["kind"] as? String == "fcm" {
                let message = try #require(entry["message"] as? [String: Any])
                #expect(message["notification"] == nil)
                #expect(Set((message["data"] as? [String: String] ?? [:]).keys) == ["pushId"])
            }
        }
        #expect(opened.filter { $0["sessionId"] as? String == "call-77" && $0["callAction"] as? String == "initiated" }.count == 1)
        #expect(opened.filter { $0["action"] as? String == "edited" }.count == 2)
        #expect(opened.filter { ($0["body"] as? String)?.contains("lighthouse") == true }.count == 2)
    }
}
