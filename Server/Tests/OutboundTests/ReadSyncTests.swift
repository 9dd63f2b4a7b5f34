import Foundation
import PushCore
import PushMocks
import PushTestSupport
import Testing

/// Read state in sync: `POST /notifications/push/v1/read` (client) and `POST /users/{uid}/read`
/// (admin) push a background `type: read` push to the user's other devices.
@Suite struct ReadSyncTests {
    @Test func aReadOnOneDeviceReachesTheOtherDevicesOnlyWithBackgroundHeaders() async throws {
        let harness = try await Harness.start(sender: .recording) { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let phone = try await harness.makeUser("bob")
        // The iPad signs in with an auth token of its own.
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        let ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await harness.register("aaaa0000phone", platform: "apns_ios_device", session: phone)
        try await harness.register("bbbb0000ipad", platform: "apns_ios_device", session: ipad)
        try await harness.register("cccc0000fcm", platform: "fcm_ios", session: ipad)
        try await harness.register("dddd0000voip", platform: "apns_ios_voip", session: ipad)

        // The phone reads the conversation with Alice.
        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: phone, ["receiverType": "user", "receiver": "alice", "unreadCount": 2])
        #expect(read.status == 200)
        #expect(read.data["conversationId"] as? String == "alice_user_bob")
        #expect(read.data["devices"] as? Int == 2)
        let recorder = try #require(harness.recorder)
        #expect(await eventually { recorder.jobs.count == 2 })
        let jobs = recorder.jobs
        // Not the phone's own token, never the VoIP token.
        #expect(Set(jobs.map(\.token)) == ["bbbb0000ipad", "cccc0000fcm"])
        for job in jobs {
            #expect(job.kind == .read)
            #expect(job.headers.pushType == .background)
            #expect(job.headers.priority == 5)
            #expect(job.headers.collapseId == nil)
            let payload = try #require(try JSONSerialization.jsonObject(with: job.payload) as? [String: Any])
            #expect(payload["type"] as? String == "read")
            #expect(payload["conversationId"] as? String == "alice_user_bob")
            #expect(payload["unreadCount"] as? String == "2")
            #expect(payload["pushId"] as? String == job.id)
            #expect(payload["aps"] as? [String: Int] == ["content-available": 1])
        }

        // The app's back end marks a group read for all of Bob's devices, without a count.
        let admin = try await harness.admin("POST", "/users/bob/read", appId: "app1", ["receiverType": "group", "receiver": "team"])
        #expect(admin.status == 200)
        #expect(admin.data["conversationId"] as? String == "group_team")
        #expect(admin.data["devices"] as? Int == 3)
        #expect(await eventually { recorder.jobs.count == 5 })
        let group = recorder.jobs.dropFirst(2)
        #expect(Set(group.map(\.token)) == ["aaaa0000phone", "bbbb0000ipad", "cccc0000fcm"])
        for job in group {
            let payload = try #require(try JSONSerialization.jsonObject(with: job.payload) as? [String: Any])
            #expect(payload["conversationId"] as? String == "group_team")
            #expect(payload["unreadCount"] == nil)
        }
    }

    @Test func theReadPushIsContractPayloadsReadJSON() async throws {
        let harness = try await Harness.start(sender: .recording) { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let phone = try await harness.makeUser("bob")
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        let ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        try await harness.register("bbbb0000ipad", platform: "apns_ios_device", session: ipad)
        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: phone, ["receiverType": "user", "receiver": "alice", "unreadCount": 2])
        #expect(read.data["devices"] as? Int == 1)
        let recorder = try #require(harness.recorder)
        #expect(await eventually { recorder.jobs.count == 1 })
        let job = try #require(recorder.jobs.first)
        let payload = try #require(try JSONSerialization.jsonObject(with: job.payload) as? [String: Any])
        // The fixture is the specification; its pushId is an example, the job's id goes in its place.
        var fixture = try Fixtures.load("payloads", "read")
        #expect(fixture["pushId"] is String)
        fixture["pushId"] = job.id
        #expect(NSDictionary(dictionary: payload).isEqual(to: fixture), "the read push differs from Contract/payloads/read.json")
    }

    @Test func invalidReadsAreRefused() async throws {
        let harness = try await Harness.start(sender: .none) { $0.rateLimitPerMinute = 0 }
        try await harness.makeApp()
        let bob = try await harness.makeUser("bob")
        for body: [String: Any] in [
            ["receiverType": "channel", "receiver": "alice"], ["receiverType": "user"],
            ["receiverType": "user", "receiver": "alice", "unreadCount": -1],
            ["receiverType": "user", "receiver": "alice", "unreadCount": "3"],
        ] {
            let response = try await harness.client("POST", "/notifications/push/v1/read", session: bob, body)
            #expect(response.status == 400, "\(body)")
        }
        let unknown = try await harness.admin("POST", "/users/nobody/read", appId: "app1", ["receiverType": "user", "receiver": "bob"])
        #expect(unknown.status == 404)
        #expect(
            try await harness.client("POST", "/notifications/push/v1/read", session: bob, ["receiverType": "user", "receiver": "alice"])
                .data["devices"] as? Int == 0)
    }
}

/// Read sync through the real delivery engine to the mock APNs: what goes on the wire.
@Suite struct ReadSyncDeliveryTests {
    @Test func theReadPushReachesAPNsAsABackgroundPushWithPriority5() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start(sender: .delivery) { configuration in
            configuration.rateLimitPerMinute = 0
            configuration.delivery.apnsBaseURL = mock.baseURL
            configuration.delivery.caFile = mock.credentials.caFile
            configuration.delivery.fcmBaseURL = mock.baseURL
        }
        // An FCM provider that adds a notification to chat pushes: a read push has no alert, so none.
        try await harness.addMockProviders(mock)
        let phone = try await harness.makeUser("bob")
        let issued = try await harness.admin("POST", "/users/bob/auth_tokens", appId: "app1")
        let ipad = Harness.TestSession(appId: "app1", uid: "bob", authToken: try #require(issued.data["authToken"] as? String))
        #expect(try await harness.register("aa01", platform: "apns_ios_device", session: phone).status == 200)
        #expect(try await harness.register("bb02", platform: "apns_ios_device", session: ipad).status == 200)
        #expect(try await harness.register("cc03", platform: "apns_ios_voip", session: ipad).status == 200)
        #expect(try await harness.register("ee04", platform: "fcm_ios", session: ipad).status == 200)

        let read = try await harness.client(
            "POST", "/notifications/push/v1/read", session: phone, ["receiverType": "group", "receiver": "team", "unreadCount": 0])
        #expect(read.data["devices"] as? Int == 2)
        #expect(await eventually { (try? harness.store.pushJobCounts().delivered) == 2 })
        #expect(await eventually { mock.log(kind: "apns").count == 1 })
        let entries = mock.log(kind: "apns")
        let entry = try #require(entries.first)
        #expect(entry["token"] as? String == "bb02")
        #expect(entry["push_type"] as? String == "background")
        #expect(entry["priority"] as? String == "5")
        #expect(entry["topic"] as? String == "com.example.app")
        let body = try #require(entry["body"] as? String)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(payload["aps"] as? [String: Int] == ["content-available": 1])
        #expect(payload["type"] as? String == "read")
        #expect(payload["conversationId"] as? String == "group_team")
        #expect(payload["unreadCount"] as? String == "0")
        let pushId = try #require(payload["pushId"] as? String)
        #expect(entry["apns_id"] as? String == pushId.lowercased())

        // FCM: a data message with the APNs background headers, no notification.
        #expect(await eventually { mock.log(kind: "fcm").count == 1 })
        let message = try #require(mock.log(kind: "fcm").first?["message"] as? [String: Any])
        #expect(message["token"] as? String == "ee04")
        #expect(message["notification"] == nil)
        let data = message["data"] as? [String: String] ?? [:]
        #expect(data["type"] == "read")
        #expect(data["conversationId"] == "group_team")
        #expect(data["pushId"] != nil && data["pushId"] != pushId)
        let apns = message["apns"] as? [String: Any] ?? [:]
        let headers = apns["headers"] as? [String: String] ?? [:]
        #expect(headers["apns-push-type"] == "background")
        #expect(headers["apns-priority"] == "5")
        let fcmPayload = apns["payload"] as? [String: Any] ?? [:]
        #expect(fcmPayload["aps"] as? [String: Int] == ["content-available": 1])
    }
}
