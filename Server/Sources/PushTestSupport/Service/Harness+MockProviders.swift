import Foundation
import PushMocks

extension Harness {
    /// An admin call the test needed to succeed answered otherwise.
    public struct SetupFailed: Error, CustomStringConvertible {
        /// The call and its answer.
        public let description: String
    }

    /// Creates app1 with an APNs provider (`apns-1`) and an FCM provider (`fcm-1`, which adds a
    /// notification to chat and call pushes) that talk to `mock`; throws unless each call
    /// answered 200. The service must send to the mock (`delivery.apnsBaseURL`, `fcmBaseURL`,
    /// `caFile`).
    public func addMockProviders(_ mock: MockPushServer) async throws {
        _ = try await admin("POST", "/apps", ["appId": "app1", "name": "App"])
        let apns: [String: Any] = [
            "providerId": "apns-1", "keyId": MockPushServer.keyId, "teamId": MockPushServer.teamId, "bundleId": "com.example.app",
            "p8Key": mock.credentials.apnsPrivateKeyPEM, "production": false,
        ]
        let fcm: [String: Any] = [
            "providerId": "fcm-1",
            "serviceAccountCreds": [
                "project_id": "demo-project", "client_email": "push@demo-project.iam.gserviceaccount.com",
                "private_key": mock.credentials.fcmPrivateKeyPEM, "private_key_id": "kid-1", "token_uri": mock.baseURL + "/token",
            ],
            "notificationInPayload": ["ios": ["chat": true, "call": true]],
        ]
        for (path, body) in [("/notifications/push/v1/providers/apns", apns), ("/notifications/push/v1/providers/fcm", fcm)] {
            let answer = try await admin("POST", path, appId: "app1", body)
            guard answer.status == 200 else { throw SetupFailed(description: "POST \(path) answered \(answer.status)") }
        }
    }
}
