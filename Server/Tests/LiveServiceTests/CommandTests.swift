import Foundation
import PushMocks
import PushTestSupport
import PushService
import Testing

/// `push-server` subcommands: `--version`, `help` per command, and `check-provider` against
/// the mock APNs answering the reasons an operator meets (the built binary, as an operator
/// runs it, on the data directory of a running service).
@Suite(.serialized) struct CommandTests {
    @Test func versionIsTheChangelogsVersion() async throws {
        let run = try await ServerProcess.run(["--version"])
        #expect(run.status == 0)
        #expect(run.output == "push-server \(PushServerVersion.current)\n")
        let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../CHANGELOG.md")
        let text = try String(contentsOf: changelog.standardized, encoding: .utf8)
        let top = text.split(separator: "\n").first { $0.hasPrefix("## ") } ?? ""
        #expect(top.contains(PushServerVersion.current), "CHANGELOG's top entry is \(top)")
    }

    @Test func everyCommandHasItsHelp() async throws {
        let overview = try await ServerProcess.run(["--help"])
        #expect(overview.status == 0)
        for text in ["check-provider", "--version", "--port", "--apns-url", "PUSH_ADMIN_KEY"] {
            #expect(overview.output.contains(text), "push-server --help lacks \(text)")
        }
        let viaHelp = try await ServerProcess.run(["help", "check-provider"])
        let viaFlag = try await ServerProcess.run(["check-provider", "--help"])
        #expect(viaHelp.status == 0 && viaFlag.status == 0)
        #expect(viaHelp.output == viaFlag.output)
        for text in ["--app", "--provider", "--token", "InvalidProviderToken", "DeviceTokenNotForTopic", "BadDeviceToken", "EXIT STATUS"] {
            #expect(viaHelp.output.contains(text), "check-provider help lacks \(text)")
        }
        let serve = try await ServerProcess.run(["serve", "--help"])
        #expect(serve.status == 0 && serve.output.contains("--data-dir") && !serve.output.contains("check-provider --app"))
        for command in ["help", "version"] {
            let help = try await ServerProcess.run(["help", command])
            #expect(help.status == 0 && help.output.contains("USAGE: push-server"))
        }
        let unknown = try await ServerProcess.run(["frobnicate"])
        #expect(unknown.status == 64 && unknown.errors.contains("no command \"frobnicate\""))
        let unknownHelp = try await ServerProcess.run(["help", "frobnicate"])
        #expect(unknownHelp.status == 64)
        let missing = try await ServerProcess.run(["check-provider", "--app", "a"])
        #expect(missing.status == 64 && missing.errors.contains("--provider"))
    }

    /// One service with providers (right and wrong team, a broken key), one mock APNs whose
    /// answers per token are scripted, and `check-provider` run against both.
    @Test func checkProviderExplainsAPNsAnswers() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let credentials = mock.credentials
        let harness = try await Harness.start()
        #expect(try await harness.makeApp("chat").status == 200)
        func apns(_ id: String, team: String = MockPushServer.teamId, key: String? = nil) -> [String: Any] {
            [
                "providerId": id, "keyId": MockPushServer.keyId, "teamId": team, "bundleId": "com.example.chat",
                "p8Key": key ?? credentials.apnsPrivateKeyPEM, "production": false,
            ]
        }
        for provider in [apns("good"), apns("wrong-team", team: "WRONGTEAM1"), apns("broken", key: Harness.testPEM)] {
            #expect(try await harness.admin("POST", "/notifications/push/v1/providers/apns", appId: "chat", provider).status == 200)
        }
        let tokens = (0..<5).map { _ in (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }
        let (accepted, notForTopic, disallowed, badToken, gone) = (tokens[0], tokens[1], tokens[2], tokens[3], tokens[4])
        try mock.script([
            notForTopic: [["status": 400, "reason": "DeviceTokenNotForTopic"]],
            disallowed: [["status": 400, "reason": "TopicDisallowed"]],
            badToken: [["status": 400, "reason": "BadDeviceToken"]],
            gone: [["status": 410, "reason": "Unregistered", "timestamp": 1_700_000_000_000]],
        ])
        let environment = ["PUSH_SECRET_KEY": Data(repeating: 7, count: 32).base64EncodedString()]
        func check(_ provider: String, token: String? = nil, extra: [String] = []) async throws -> ServerProcess.Run {
            var arguments = [
                "check-provider", "--app", "chat", "--provider", provider, "--data-dir", harness.directory,
                "--apns-url", mock.baseURL, "--ca-file", credentials.caFile, "--timeout", "10",
            ]
            arguments += harness.database.arguments
            if let token { arguments += ["--token", token] }
            return try await ServerProcess.run(arguments + extra, environment: environment)
        }

        // Without a token: the key unseals, parses and signs; nothing is sent.
        let local = try await check("good")
        #expect(local.status == 0, "\(local.output) \(local.errors)")
        #expect(local.output.contains("ok    the .p8 key unseals and parses (EC P-256)"))
        #expect(local.output.contains("signed a provider token (JWT ES256) with kid TESTKEY123, iss TESTTEAM12"))
        #expect(local.output.contains("--token"))
        #expect(!local.output.contains("PRIVATE KEY") && !local.output.contains("eyJ"), "no key, no signed token printed")
        #expect(mock.log(kind: "apns").isEmpty)

        let broken = try await check("broken")
        #expect(broken.status == 1 && broken.output.contains("FAIL  the .p8 key does not parse"))

        // With a token: one push, and APNs' answer in plain words.
        let delivered = try await check("good", token: accepted)
        #expect(delivered.status == 0, "\(delivered.output)")
        #expect(delivered.output.contains("APNs answered 200: it accepted the push"))
        #expect(delivered.output.contains("topic com.example.chat, sandbox environment"))
        #expect(!delivered.output.contains(accepted), "the token is printed as a hint only")
        #expect(mock.log(kind: "apns").filter { $0["token"] as? String == accepted }.count == 1)
        // A second test push uses the provider token the first stored for the service's
        // instances (a new one would count as a token update at APNs).
        _ = try await check("good", token: accepted)
        let tokensSent = mock.log(kind: "apns").filter { $0["token"] as? String == accepted }.compactMap { $0["jwt"] as? String }
        #expect(tokensSent.count == 2 && Set(tokensSent).count == 1, "check-provider signed its own provider token again")

        let cases: [(String, String, String, [String])] = [
            (
                "wrong-team", accepted, "403 InvalidProviderToken",
                ["key id (TESTKEY123)", "team id (WRONGTEAM1)", "do not belong together"]
            ),
            ("good", notForTopic, "400 DeviceTokenNotForTopic", ["belongs to another app than com.example.chat", "bundleId"]),
            ("good", disallowed, "400 TopicDisallowed", ["may not push to the topic com.example.chat", "team TESTTEAM12"]),
            ("good", badToken, "400 BadDeviceToken", ["sandbox environment", "production", "--environment production"]),
            ("good", gone, "410 Unregistered", ["no longer valid", "2023-11-14"]),
        ]
        for (provider, token, answer, words) in cases {
            let run = try await check(provider, token: token)
            #expect(run.status == 1, "\(answer): \(run.output)")
            #expect(run.output.contains("FAIL  APNs answered \(answer): "), "\(run.output)")
            for word in words { #expect(run.output.contains(word), "\(answer) lacks \(word): \(run.output)") }
            #expect(run.output.contains("the provider needs fixing"))
        }

        // The environment can be overridden; a token that is not hex is not sent at all.
        let production = try await check("good", token: accepted, extra: ["--environment", "production"])
        #expect(production.output.contains("production environment"))
        let notHex = try await check("good", token: "not-a-token")
        #expect(notHex.status == 1 && notHex.output.contains("not hexadecimal"))

        // Mistakes an operator makes: another app, another provider, the wrong secret key.
        let noProvider = try await check("nope")
        #expect(
            noProvider.status == 1
                && noProvider.errors.contains("has no provider \"nope\" (it has: apns-1, broken, fcm-1, good, wrong-team)"),
            "\(noProvider.errors)")
        let wrongKey = try await ServerProcess.run(
            ["check-provider", "--app", "chat", "--provider", "good", "--data-dir", harness.directory] + harness.database.arguments,
            environment: ["PUSH_SECRET_KEY": Data(repeating: 9, count: 32).base64EncodedString()])
        #expect(wrongKey.status == 1 && wrongKey.errors.contains("does not unseal"))
        let noData = try await ServerProcess.run([
            "check-provider", "--app", "chat", "--provider", "good", "--data-dir", harness.directory + "-missing",
        ])
        #expect(noData.status == 1 && noData.errors.contains("no database"))
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "-missing"), "check-provider creates nothing")
    }

    /// FCM providers: the service account's key signs the OAuth assertion; a test message goes
    /// through the mock's token exchange and send, and FCM's refusals are explained.
    @Test func checkProviderExplainsFCMAnswers() async throws {
        let mock = try await offThePool { try MockPushServer() }
        let harness = try await Harness.start()
        #expect(try await harness.makeApp("chat").status == 200)
        let provider: [String: Any] = [
            "providerId": "fcm-mock",
            "serviceAccountCreds": [
                "project_id": "demo-project", "client_email": "push@demo-project.iam.gserviceaccount.com",
                "private_key": mock.credentials.fcmPrivateKeyPEM, "private_key_id": "kid-1", "token_uri": mock.baseURL + "/token",
            ],
        ]
        #expect(try await harness.admin("POST", "/notifications/push/v1/providers/fcm", appId: "chat", provider).status == 200)
        try mock.script(["fcm-gone": [["status": 404, "fcm_error": "UNREGISTERED"]]])
        func check(_ extra: [String]) async throws -> ServerProcess.Run {
            try await ServerProcess.run(
                [
                    "check-provider", "--app", "chat", "--provider", "fcm-mock", "--data-dir", harness.directory,
                    "--fcm-url", mock.baseURL, "--ca-file", mock.credentials.caFile,
                    // The mock's token_uri is on 127.0.0.1.
                    "--allow-private-destinations", "127.0.0.0/8",
                ] + harness.database.arguments + extra,
                environment: ["PUSH_SECRET_KEY": Data(repeating: 7, count: 32).base64EncodedString()])
        }
        let local = try await check([])
        #expect(local.status == 0, "\(local.output) \(local.errors)")
        #expect(local.output.contains("signed an OAuth assertion (JWT RS256) for push@demo-project.iam.gserviceaccount.com"))
        #expect(mock.log().isEmpty, "nothing is sent without a token")

        let sent = try await check(["--token", "fcm-token-accepted"])
        #expect(sent.status == 0, "\(sent.output)")
        #expect(sent.output.contains("FCM answered 200"))
        #expect(mock.log(kind: "fcm").first?["token"] as? String == "fcm-token-accepted")

        let gone = try await check(["--token", "fcm-gone"])
        #expect(
            gone.status == 1 && gone.output.contains("FAIL  FCM answered 404 UNREGISTERED: the token is no longer valid"), "\(gone.output)")
    }
}
