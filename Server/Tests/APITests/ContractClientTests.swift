import Foundation
import PushCore
import PushTestSupport
import Testing

/// Every client call of `Contract/client/` against the running service over HTTP, then the
/// error answers of `Contract/errors/` each call can give.
@Suite struct ContractClientTests {
    let harness: Harness
    let session: Harness.TestSession
    /// The service's clock, when a fixture needs a time it shows (else the real one).
    let pinnedNow = Locked<Date?>(nil)

    init() async throws {
        harness = try await Harness.start(clock: { [pinnedNow] in pinnedNow.withLock { $0 } ?? Date() })
        try await harness.makeApp()
        session = try await harness.makeUser("alice")
        _ = try await harness.makeUser("bob")
    }

    func values(for fixture: [String: Any]) -> [String: String] {
        let request = fixture["request"] as? [String: Any] ?? [:]
        let platform = (request["body"] as? [String: Any])?["platform"] as? String
        var values = [
            "appId": session.appId, "authToken": session.authToken,
            "token": "a1b2c3d4e5f6" + String(fixture["name"] as? String ?? "").count.description,
            "providerId": platform == "fcm_ios" ? "fcm-1" : "apns-1", "timezone": "Europe/Paris", "uid": "bob", "guid": "team",
            "messageId": "m-42", "text": "On my way", "parentId": "m-41", "sessionId": "call-1", "sender": session.uid,
            "pushId": "push-not-sent",
        ]
        if (request["path"] as? String ?? "").contains("{id}") { values["id"] = "ann-7" }
        return values
    }

    @Test(arguments: Fixtures.names(in: "client"))
    func clientCallMatchesFixture(_ name: String) async throws {
        // Given a fixture and a logged-in session
        let fixture = try Fixtures.load("client", name)
        var values = values(for: fixture)
        let path = (fixture["request"] as? [String: Any])?["path"] as? String ?? ""
        if path.contains("{pushId}") {
            values["pushId"] = try await pushSentToAlice()
        }
        if path.contains("/calls/") { try await callPushedToAlice() }
        // `{cursor}`: the request's is a cursor from before the changes, the answer's a later one.
        let expectedValues = values
        if path.contains("/changes") { values["cursor"] = try await changesOfAlice() }
        let request = Fixtures.substitute(fixture["request"] ?? [:], values) as? [String: Any] ?? [:]
        let headers = request["headers"] as? [String: String] ?? [:]
        let body = request["body"].flatMap { $0 is NSNull ? nil : $0 }
        // When the SDK's request is sent as the fixture has it
        let response = try await harness.request(
            request["method"] as? String ?? "", request["path"] as? String ?? "", headers: headers,
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        // Then the answer has the fixture's status and fields
        let expected = fixture["response"] as? [String: Any] ?? [:]
        #expect(response.status == expected["status"] as? Int)
        let problems = Fixtures.mismatches(expected: expected["body"] ?? [:], actual: response.json, values: expectedValues)
        #expect(problems.isEmpty, "\(name): \(problems)")
    }

    /// A call from bob to alice, session `call-1`: only a recipient of a pushed call answers it.
    func callPushedToAlice() async throws {
        let sent = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: session.appId,
            [
                "type": "call", "recipients": [["uid": session.uid]],
                "call": [
                    "sessionId": "call-1", "callAction": "initiated", "callType": "audio", "sender": ["uid": "bob", "name": "Bob"],
                    "receiver": ["uid": session.uid, "name": "Alice"], "receiverType": "user",
                    "sentAt": Int64(Date().timeIntervalSince1970 * 1000),
                ] as [String: Any],
            ])
        #expect(sent.status == 200)
    }

    /// The push id of a chat push the back end sent to alice's token (the opened call names one).
    func pushSentToAlice() async throws -> String {
        #expect(try await harness.register("a1ce0001", platform: "apns_ios_device", session: session).status == 200)
        let sent = try await harness.admin(
            "POST", "/notifications/push/v1/send", appId: session.appId,
            [
                "type": "chat", "recipients": [["uid": session.uid]],
                "message": [
                    "id": "m-43", "sender": ["uid": "bob", "name": "Bob"], "receiver": ["uid": session.uid, "name": "Alice"], "text": "Hi",
                ],
            ])
        let requestId = try #require(sent.data["requestId"] as? String)
        let jobs = try await harness.admin("GET", "/notifications/push/v1/send/\(requestId)/jobs", appId: session.appId).dataArray
        return try #require(jobs.first?["id"] as? String)
    }

    @Test func everyClientCallOfTheSDKHasAFixture() {
        // The SDK's WireContract.Route cases, as fixture names (Contract/client/).
        let routes = [
            "register-apns-token", "unregister-tokens", "mark-delivered-user", "mark-delivered-group", "quick-reply-user",
            "quick-reply-thread", "campaign-delivered", "campaign-clicked", "call-rejected", "preferences-get", "preferences-mute",
            "preferences-unmute", "preferences-group-level", "preferences-quiet-hours", "preferences-clear-quiet-hours", "mark-read-user",
            "push-opened", "changes",
        ]
        #expect(Set(routes).subtracting(Fixtures.names(in: "client")).isEmpty)
    }

    @Test(arguments: Fixtures.names(in: "client"))
    func unknownAuthTokenEndsSession(_ name: String) async throws {
        let fixture = try Fixtures.load("client", name)
        var values = values(for: fixture)
        values["authToken"] = "alice_not-a-real-token"
        let request = Fixtures.substitute(fixture["request"] ?? [:], values) as? [String: Any] ?? [:]
        let body = request["body"].flatMap { $0 is NSNull ? nil : $0 }
        let response = try await harness.request(
            request["method"] as? String ?? "", request["path"] as? String ?? "",
            headers: request["headers"] as? [String: String] ?? [:], body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        let envelope = try Fixtures.load("errors", "auth-token-not-found")
        #expect(response.status == envelope["status"] as? Int)
        #expect(response.errorCode == "AUTH_ERR_AUTH_TOKEN_NOT_FOUND")
        #expect(
            Fixtures.mismatches(
                expected: ["error": ["code": "{c}", "message": "{m}", "details": [String: Any]()]], actual: response.json, values: [:]
            ).isEmpty)
    }

    @Test(arguments: Fixtures.names(in: "client"))
    func missingHeadersAreRejected(_ name: String) async throws {
        let fixture = try Fixtures.load("client", name)
        let request = Fixtures.substitute(fixture["request"] ?? [:], values(for: fixture)) as? [String: Any] ?? [:]
        let method = request["method"] as? String ?? ""
        let path = request["path"] as? String ?? ""
        let noToken = try await harness.request(method, path, headers: ["appid": session.appId])
        #expect(noToken.status == 401)
        #expect(noToken.errorCode == "AUTH_ERR_EMPTY_AUTH_TOKEN")
        let noApp = try await harness.request(method, path, headers: ["authToken": session.authToken])
        #expect(noApp.status == 401)
        #expect(noApp.errorCode == "AUTH_ERR_EMPTY_APPID")
        let otherApp = try await harness.request(
            method, path, headers: ["appid": "nope", "authToken": session.authToken])
        #expect(otherApp.status == 404)
        #expect(otherApp.errorCode == "ERR_APP_NOT_FOUND")
    }

    @Test func badPlatformMatchesBadRequestFixture() async throws {
        let envelope = try Fixtures.load("errors", "bad-request")
        let response = try await harness.client(
            "POST", "/notifications/push/v1/tokens", session: session, ["fcmToken": "abcd", "platform": "unknown", "providerId": "apns-1"])
        #expect(response.status == envelope["status"] as? Int)
        let problems = Fixtures.mismatches(expected: envelope["body"] ?? [:], actual: response.json, values: [:])
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A registration whose `encryption.auth` is 15 bytes (issue 28): the fixture's 400, naming
    /// the field.
    @Test func badEncryptionMatchesBadEncryptionFixture() async throws {
        let envelope = try Fixtures.load("errors", "bad-encryption")
        let response = try await harness.client(
            "POST", "/notifications/push/v1/tokens", session: session,
            [
                "fcmToken": "abcd", "platform": "apns_ios_device", "providerId": "apns-1",
                "encryption": [
                    "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                    "auth": "AAAAAAAAAAAAAAAAAAAA",
                ],
            ])
        #expect(response.status == envelope["status"] as? Int)
        let problems = Fixtures.mismatches(expected: envelope["body"] ?? [:], actual: response.json, values: [:])
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func unknownProviderMatchesProviderNotFoundFixture() async throws {
        let envelope = try Fixtures.load("errors", "provider-not-found")
        let response = try await harness.register("abcd", platform: "apns_ios_device", session: session, providerId: "missing")
        #expect(response.status == envelope["status"] as? Int)
        let problems = Fixtures.mismatches(expected: envelope["body"] ?? [:], actual: response.json, values: [:])
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func providerOfTheWrongKindIsABadRequest() async throws {
        let response = try await harness.register("abcd", platform: "fcm_ios", session: session, providerId: "apns-1")
        #expect(response.status == 400)
        #expect(response.errorCode == "ERR_BAD_REQUEST")
        #expect((response.json["error"] as? [String: Any])?["details"] as? [String: String] == ["providerId": "wrong kind"])
    }

    @Test(arguments: [
        ("POST", "/notifications/push/v1/tokens", "{\"platform\":\"apns_ios_device\"}", "fcmToken"),
        ("POST", "/notifications/push/v1/tokens", "{\"fcmToken\":12,\"platform\":\"apns_ios_device\"}", "fcmToken"),
        ("POST", "/notifications/push/v1/tokens", "[1,2]", "body"),
        ("POST", "/notifications/push/v1/tokens", "{not json", "body"),
        ("POST", "/users/bob/conversation/delivered", "{}", "messageId"),
        ("POST", "/messages", "{\"receiver\":\"bob\",\"receiverType\":\"room\",\"data\":{\"text\":\"x\"}}", "receiverType"),
        ("POST", "/messages", "{\"receiver\":\"bob\",\"receiverType\":\"user\",\"data\":{}}", "data.text"),
        ("POST", "/messages", "{\"receiver\":\"bob\",\"receiverType\":\"user\",\"type\":\"image\",\"data\":{\"text\":\"x\"}}", "type"),
        ("PUT", "/calls/call-1", "{\"status\":\"accepted\"}", "status"),
        ("PUT", "/calls/call-1", "", "body"),
    ])
    func invalidBodiesGetTheEnvelope(_ method: String, _ path: String, _ body: String, _ field: String) async throws {
        let response = try await harness.request(
            method, path,
            headers: ["appid": session.appId, "authToken": session.authToken, "Content-Type": "application/json"],
            body: Data(body.utf8))
        #expect(response.status == 400)
        #expect(response.errorCode == "ERR_BAD_REQUEST")
        let details = (response.json["error"] as? [String: Any])?["details"] as? [String: String] ?? [:]
        #expect(details[field] != nil, "details: \(details)")
    }

    @Test func unknownRouteAndWrongMethodGetTheEnvelope() async throws {
        let missing = try await harness.client("GET", "/nothing/here", session: session)
        #expect(missing.status == 404)
        #expect(missing.errorCode == "ERR_NOT_FOUND")
        let wrongMethod = try await harness.client("PATCH", "/notifications/push/v1/tokens", session: session)
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.errorCode == "ERR_METHOD_NOT_ALLOWED")
    }
}
