import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
import CometChatPushNotificationsTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `push-server` of the test's own, sending to the mock APNs of `Scripts/e2e.sh` (which hands
/// over the binary, the mock's URL and its CA): a secret key, an admin key and a data directory
/// that outlive each process, so that it can be killed with SIGKILL and started again on the
/// same port and store. ``stop()`` ends it and removes the directory.
final class OwnPushServer: @unchecked Sendable {
    // @unchecked: the running process and the count of starts are behind a lock.
    let base: SimulatedE2E.Environment
    let directory: URL
    let secretKey = PNHex.string(Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
    let adminKey = "own-" + UUID().uuidString.lowercased()
    private let state = PNLocked<(process: Process?, starts: Int)>((nil, 0))

    init(_ base: SimulatedE2E.Environment) throws {
        guard !base.serverBinary.isEmpty, !base.apnsURL.isEmpty, !base.caFile.isEmpty else {
            throw SimulatedE2E.Failure(description: "PUSH_SIM_E2E_SERVER_BINARY, _APNS_URL and _CA_FILE not set (Scripts/e2e.sh sets them)")
        }
        self.base = base
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-push-server-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The environment of a household on this service at `port`.
    func environment(port: Int) -> SimulatedE2E.Environment {
        var environment = base
        environment.baseURL = "http://127.0.0.1:\(port)"
        environment.adminKey = adminKey
        return environment
    }

    /// Starts the service on `port` (0: any free port) and returns the port of its "listening on" line.
    func start(port: Int = 0) async throws -> Int {
        let starts = state.withLock {
            $0.starts += 1
            return $0.starts
        }
        let log = directory.appendingPathComponent("server-\(starts).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: base.serverBinary)
        // One APNs connection: a new connection carries one stream until the mock has answered
        // its first request, so with the answers held a pool of several holds most pushes back
        // (seen with the default 4: 12 of 40 sent, then 4 per 15-s deadline); the one connection,
        // raised by the household's first message, carries every push at once.
        process.arguments = [
            "--port", String(port), "--data-dir", directory.appendingPathComponent("data").path, "--sqlite-sync", "normal",
            "--apns-url", base.apnsURL, "--ca-file", base.caFile, "--apns-connections", "1",
        ]
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "PUSH_SECRET_KEY": secretKey,
            "PUSH_ADMIN_KEY": adminKey,
        ]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        state.withLock { $0.process = process }
        var listening = 0
        try await SimulatedE2E.wait("push-server's \"listening on\" line in \(log.path)") {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                listening = Int(text[range].split(separator: ":").last ?? "") ?? 0
                return true
            }
            guard process.isRunning else { throw SimulatedE2E.Failure(description: "push-server exited: \(text)") }
            return false
        }
        return listening
    }

    /// `kill -9`: the process ends at once, in the middle of whatever it was doing.
    func kill9() async throws {
        guard let process = state.withLock({ $0.process }) else { return }
        _ = kill(process.processIdentifier, SIGKILL)
        try await SimulatedE2E.wait("push-server to die", timeout: 10) { !process.isRunning }
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }

    /// Kills the process if it still runs and removes the directory (also after a failure).
    func stop() {
        if let process = state.withLock({ $0.process }), process.isRunning {
            _ = kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The mock APNs's `--script` (`Server/Mocks/mock_push.py`): per device token, the answers to
/// its requests in turn (the last repeats). The mock re-reads the file when it changes, and
/// forgets how far each token got.
enum MockAPNsScript {
    static func write(_ environment: SimulatedE2E.Environment, _ answers: [String: [[String: Any]]]) throws {
        guard !environment.apnsScript.isEmpty else {
            throw SimulatedE2E.Failure(description: "PUSH_SIM_E2E_APNS_SCRIPT not set (Scripts/e2e.sh sets it)")
        }
        // Atomically (a new file renamed over the old): the mock never reads half a file.
        try JSONSerialization.data(withJSONObject: answers).write(to: URL(fileURLWithPath: environment.apnsScript), options: .atomic)
    }
}

/// Issue 27 end to end, on the setup of ``SimulatedEndToEndTests``: one notification per message
/// however often the service sends it (a kill -9 mid-send), edits and deletions on both devices
/// by their background pushes and, for an app the user force-quit, by the catch-up on the
/// changes feed; a deletion that arrives before its message; a revoked auth token.
@Suite(
    "Simulated end to end: one notification per message, edits and deletions on both devices, a revoked session",
    .enabled(if: SimulatedE2E.isConfigured, "needs Scripts/e2e.sh"), .serialized)
struct MessageChangesEndToEndTests {
    @Test("kill -9 of the service mid-send and a restart: every message is shown exactly once on each device")
    func killMidSendShowsEachMessageOnce() async throws {
        let base = try SimulatedE2E.environment.get()
        let service = try OwnPushServer(base)
        defer { service.stop() }
        let port = try await service.start()
        let house = try await Household.make(service.environment(port: port))
        // A first message, answered at once: the service sends a new provider one push at a
        // time until the provider has delivered one.
        let first = try await house.sendChat(from: house.bob, text: "Message 0 of 20", badge: 1)
        try await house.waitDelivered(first)
        // The mock logs every request for the household's tokens and holds its answer for 20 s:
        // the service's sends are in flight when it is killed.
        let slow: [[String: Any]] = [["status": 200, "delay_ms": 20_000]]
        try MockAPNsScript.write(base, Dictionary(uniqueKeysWithValues: house.devices.map { ($0.apnsToken, slow) }))
        defer { try? MockAPNsScript.write(base, [:]) }

        let texts = (1...20).map { "Message \($0) of 20" }
        var sends: [Household.Sent] = []
        for (index, text) in texts.enumerated() {
            sends.append(try await house.sendChat(from: house.bob, text: text, badge: index + 2))
        }
        #expect(sends.map(\.jobs) == Array(repeating: 2, count: texts.count))
        var held: Set<String> = []
        for sent in sends { held.formUnion(try await house.jobs(sent).compactMap { $0["id"] as? String }) }
        #expect(held.count == 2 * texts.count)
        try await SimulatedE2E.wait("the \(held.count) pushes at the mock APNs") {
            held.isSubset(of: Set(house.apnsRequests.compactMap(\.pushId)))
        }
        // Sent and unanswered: not one is recorded as delivered.
        for sent in sends {
            #expect(try await house.log(sent).allSatisfy { $0["state"] as? String != "delivered" })
        }

        try await service.kill9()
        try MockAPNsScript.write(base, [:])
        #expect(try await service.start(port: port) == port)
        for sent in sends { try await house.waitDelivered(sent) }

        // The restarted service sent again what the killed one never heard back about.
        let jobIds = held.union(try await house.jobs(first).compactMap { $0["id"] as? String })
        let requests = house.apnsRequests
        #expect(requests.allSatisfy { $0.pushType == "alert" && $0.pushId.map(jobIds.contains) == true })
        #expect(requests.count > jobIds.count, "no resends: the kill did not land mid-send")
        for pushId in jobIds {
            #expect(Set(requests.filter { $0.pushId == pushId }.map(\.collapseId)).count == 1, "a resend has its first send's collapse id")
        }
        // APNs delivers every request it accepted, resends too.
        for request in requests { try await house.hand(request) }
        let shown = ["Message 0 of 20"] + texts
        for device in house.devices {
            let center = device.device.notificationCenter
            #expect(center.shown.count == shown.count, "\(device.name): \(center.shown.map(\.body))")
            #expect(center.shown.compactMap(\.body).sorted() == shown.sorted(), "\(device.name)")
            #expect(center.duplicates.isEmpty, "\(device.name): \(center.duplicates)")
        }
        house.expectRulesHeld()
    }

    @Test("An edit changes the notification on both devices, quietly; a deletion removes it from both")
    func editAndDeleteOnBothDevices() async throws {
        let house = try await Household.make()
        let sent = try await house.sendChat(from: house.bob, text: "See you at 5", badge: 1)
        let pushes = try await house.deliver(sent)
        // Sent, not pending: an edit of a pending push would rewrite it instead.
        try await house.waitDelivered(sent)
        let identifier = try #require(pushes.first?.collapseId)
        #expect(identifier.hasPrefix("msg-") && pushes.allSatisfy { $0.collapseId == identifier })
        for device in house.devices {
            #expect(device.device.notificationCenter.shown.map(\.body) == ["See you at 5"], "\(device.name)")
        }

        let edit = try await house.sendChat(from: house.bob, text: "See you at 6", badge: 1, action: "edited", id: sent.messageId)
        #expect(edit.jobs == 2)
        let edits = try await house.deliver(edit)
        #expect(Set(edits.map(\.token)) == Set(house.devices.map(\.apnsToken)))
        for push in edits {
            #expect(push.pushType == "background" && push.priority == 5)
            #expect(push.collapseId?.hasPrefix("edt-") == true)
            #expect(push.aps["content-available"] as? Int == 1 && push.aps["alert"] == nil && push.aps["sound"] == nil)
            #expect(push.payload["action"] as? String == "edited" && push.payload["notificationId"] as? String == identifier)
        }
        for device in house.devices {
            let center = device.device.notificationCenter
            #expect(center.shown.map(\.body) == ["See you at 6"], "\(device.name)")
            #expect(center.shown.map(\.notification.identifier) == [identifier], "\(device.name)")
            // In the place of the message's notification, without a sound, passive.
            let replacement = try #require(center.localDeliveries.last, "\(device.name)")
            #expect(replacement.notification.identifier == identifier)
            #expect(!replacement.playedSound && !replacement.litScreen && replacement.interruptionLevel == "passive", "\(device.name)")
            #expect(device.delegate.events.contains(.edited(sent.messageId)), "\(device.name)")
        }

        let deletion = try await house.sendChat(from: house.bob, text: nil, badge: 0, action: "deleted", id: sent.messageId)
        #expect(deletion.jobs == 2)
        let deletions = try await house.deliver(deletion)
        #expect(deletions.count == 2)
        for push in deletions {
            #expect(push.pushType == "background" && push.priority == 5 && push.collapseId?.hasPrefix("del-") == true)
        }
        for device in house.devices {
            #expect(device.device.notificationCenter.shown.isEmpty, "\(device.name)")
            #expect(device.delegate.events.contains(.deleted(sent.messageId)), "\(device.name)")
        }
        house.expectRulesHeld()
    }

    @Test("An edit and a deletion while the iPad's app is force-quit are applied by the catch-up when it is launched")
    func forceQuitCatchUp() async throws {
        let house = try await Household.make()
        // One after the other: the service's workers may send two pending messages in either
        // order (so may APNs), and the assertions below read the order of Notification Center.
        let tea = try await house.sendChat(from: house.bob, text: "Tea at four?", badge: 1)
        try await house.deliver(tea)
        let coffee = try await house.sendChat(from: house.bob, text: "Coffee after?", badge: 2)
        try await house.deliver(coffee)
        try await house.waitDelivered(tea)
        try await house.waitDelivered(coffee)
        house.forceQuit(house.tablet)

        // iOS delivers the background pushes to the phone, not to the force-quit app.
        let edit = try await house.sendChat(from: house.bob, text: "Tea at five?", badge: 2, action: "edited", id: tea.messageId)
        let deletion = try await house.sendChat(from: house.bob, text: nil, badge: 1, action: "deleted", id: coffee.messageId)
        #expect(edit.jobs == 2 && deletion.jobs == 2)
        try await house.deliver(edit)
        try await house.deliver(deletion)
        #expect(house.phone.device.notificationCenter.shown.map(\.body) == ["Tea at five?"])
        #expect(house.tablet.device.notificationCenter.shown.map(\.body) == ["Tea at four?", "Coffee after?"])

        // The user opens the app: the catch-up applies both.
        await house.relaunch(house.tablet)
        let center = house.tablet.device.notificationCenter
        #expect(center.shown.map(\.body) == ["Tea at five?"])
        let replacement = try #require(center.localDeliveries.last)
        #expect(!replacement.playedSound && replacement.interruptionLevel == "passive")
        #expect(house.tablet.delegate.events.contains(.edited(tea.messageId)))
        #expect(house.tablet.delegate.events.contains(.deleted(coffee.messageId)))
        house.expectRulesHeld()
    }

    @Test("A deletion that reaches the device before its message leaves nothing of that message")
    func deletionOvertakesItsMessage() async throws {
        let house = try await Household.make()
        let sent = try await house.sendChat(from: house.bob, text: "Wrong chat, sorry", badge: 1)
        // The mock has the message's pushes; APNs has not handed them over yet.
        let messages = try await house.received(sent)
        try await house.waitDelivered(sent)
        let deletion = try await house.sendChat(from: house.bob, text: nil, badge: 0, action: "deleted", id: sent.messageId)
        #expect(deletion.jobs == 2)
        let deletions = try await house.received(deletion)

        // The deletion arrives first, then the message, both apps in the background: iOS shows
        // the message (an extension cannot drop a push).
        for push in deletions { try await house.hand(push) }
        for push in messages { try await house.hand(push) }
        for device in house.devices {
            await house.bringToForeground(device)
            let left = device.device.notificationCenter.shown.filter { $0.notification.userInfo["tag"] as? String == sent.messageId }
            #expect(left.isEmpty, "\(device.name): \(left.map(\.body))")
            #expect(device.device.notificationCenter.shown.isEmpty, "\(device.name)")
        }
        house.expectRulesHeld()
    }

    @Test("Revoking the phone's auth token: the next message skips the phone (reason revoked), reaches the iPad, and the phone logs out")
    func revokeTheAuthToken() async throws {
        let house = try await Household.make()
        #expect(house.phone.sdk.getDiagnostics()["loggedIn"] as? Bool == true)
        let revoked = try await house.admin.object("DELETE", "/users/\(house.alice)/auth_tokens/\(house.phone.authToken)")
        #expect(revoked["revoked"] as? Int == 1)
        // The phone's APNs and VoIP tokens went with it.
        #expect((revoked["pushTokens"] as? Int ?? 0) >= 1)
        #expect(revoked["pushTokens"] as? Int == 2)
        let listed = try #require(
            try await house.admin.object("GET", "/notifications/push/v1/tokens?uid=\(house.alice)")["pushTokens"] as? [[String: Any]])
        #expect(listed.compactMap { $0["pushToken"] as? String } == [house.tablet.apnsToken])

        let sent = try await house.sendChat(from: house.bob, text: "Still there?", badge: 1)
        #expect(sent.jobs == 1)
        #expect(try await house.jobs(sent).compactMap { $0["token"] as? String } == [house.tablet.apnsToken])
        let skipped = try await house.jobs(sent, skipped: true).filter { $0["skipped"] as? Bool == true }
        #expect(skipped.compactMap { $0["token"] as? String } == [house.phone.apnsToken])
        #expect(skipped.allSatisfy { $0["rule"] as? String == "revoked" })
        let alice = try recipient(try await house.trace(sent))
        #expect((alice["devices"] as? [Any])?.count == 1)
        #expect((alice["skipped"] as? [[String: Any]])?.compactMap { $0["reason"] as? String } == ["revoked"])

        try await house.deliver(sent)
        #expect(house.tablet.device.notificationCenter.shown.map(\.body) == ["Still there?"])
        #expect(house.phone.device.notificationCenter.shown.isEmpty)
        #expect(!house.apnsRequests.contains { $0.token == house.phone.apnsToken || $0.token == house.phone.voipToken })

        // The phone's next request, its catch-up on return to the app, fails with the auth
        // error: the SDK logs the user out.
        await house.bringToForeground(house.phone)
        #expect(house.phone.sdk.getDiagnostics()["loggedIn"] as? Bool == false)
        #expect(house.tablet.sdk.getDiagnostics()["loggedIn"] as? Bool == true)
        house.expectRulesHeld()
    }
}
