import Foundation
import Testing
@_spi(PNProducts) import CometChatPushNotificationsSwift
@_spi(PNProducts) import CometChatPushNotificationsChat
import CometChatPushNotificationsTesting

@Suite struct ReceiptTests {
    enum Order: String, CaseIterable { case extensionFirst, appForegroundFirst, silentPushFirst }

    @Test(arguments: Order.allCases, [nil as String?, "hikers"])
    func oneDeliveredReceiptWhoeverSeesTheMessageFirst(order: Order, group: String?) async {
        // Given a running app and an extension sharing an App Group
        let device = SimulatedDevice()
        await device.launchChatApp(delegate: RecordingChatDelegate())
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let payload = chatPayload(messageId: "m42", group: group)
        // When both the extension and the app see the message, in either order
        switch order {
        case .extensionFirst:
            _ = await ext.receive(payload)
            device.deliver(payload)
        case .appForegroundFirst:
            device.deliver(payload)
            #expect(await device.settle())
            _ = await ext.receive(payload)
        case .silentPushFirst:
            #expect(device.deliverSilent(SimulatedDevice.withContentAvailable(payload)))
            #expect(await device.settle())
            _ = await ext.receive(payload)
        }
        #expect(await device.settle())
        // Then exactly one receipt is sent, to the right conversation
        let route: WireContract.Route = group == nil ? .userDelivered : .groupDelivered
        let receipts = device.service.requests(route)
        #expect(receipts.count == 1)
        #expect(receipts.first?.match?.parameter == (group ?? "bob"))
        #expect(receipts.first?.json["messageId"] == "m42")
        #expect(receipts.first?.headers["authToken"] == "alice-token")
        #expect(device.service.requests(group == nil ? .groupDelivered : .userDelivered).isEmpty)
        #expect(device.service.contractViolations.isEmpty)
        #expect(ext.violations.isEmpty)
    }

    @Test func withoutAnAppGroupTheAppSendsTheReceipt() async {
        let device = SimulatedDevice()
        await device.launchChatApp(chatConfig(appGroup: nil), delegate: RecordingChatDelegate())
        let ext = device.installNotificationServiceExtension(appGroupID: nil)
        let run = await ext.receive(chatPayload())
        #expect(run.ran && run.receipt == nil)
        #expect(device.service.requests(.userDelivered).isEmpty)
        device.deliver(chatPayload())
        device.deliver(chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1)
    }

    @Test func aFailedReceiptInTheExtensionLeavesItToTheApp() async {
        let device = SimulatedDevice()
        await device.launchChatApp(delegate: RecordingChatDelegate())
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        device.service.fail(.userDelivered, with: [.status(400, code: "ERR_BAD_REQUEST")])
        let run = await ext.receive(chatPayload())
        #expect(run.receipt == .failed(.serverError))
        device.deliver(chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 2)
    }

    @Test func campaignIsMarkedDeliveredAndClickedOnceEach() async {
        let device = SimulatedDevice()
        let delegate = RecordingChatDelegate()
        let app = await device.launchChatApp(delegate: delegate)
        let ext = device.installNotificationServiceExtension(appGroupID: appGroup)
        let payload = campaignPayload(id: "ann7")
        // Delivered: extension, foreground and a silent hand-over all see it
        _ = await ext.receive(payload)
        let delivery = device.deliver(payload)
        app.sdk.handleBackgroundNotification(userInfo: payload)
        #expect(await device.settle())
        // Clicked: tapped (twice, as a forwarded response may repeat)
        device.tap(delivery.notification)
        device.tap(delivery.notification)
        #expect(await device.settle())
        #expect(device.service.requests(.campaignDelivered).map { $0.match?.parameter } == ["ann7"])
        #expect(device.service.requests(.campaignClicked).map { $0.match?.parameter } == ["ann7"])
        #expect(delegate.events.filter { $0 == .notificationsFeed }.count == 2)
        #expect(device.service.contractViolations.isEmpty)
    }

    @Test func noReceiptBeforeLogin() async {
        let device = SimulatedDevice()
        let app = device.launch { $0.initialize(config: chatConfig()) }
        #expect(await device.settle())
        device.deliver(chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).isEmpty)
        // Logged in later, the next sighting sends it: the failed attempt released its claim
        device.logInToChatSDK(uid: "alice", authToken: "alice-token")
        #expect(await device.settle())
        app.sdk.handleBackgroundNotification(userInfo: chatPayload())
        #expect(await device.settle())
        #expect(device.service.requests(.userDelivered).count == 1)
    }
}

/// Many sightings of one message at once, from the app (foreground, background hand-over,
/// taps) and two extension runs, on several threads: each receipt goes out exactly once.
@Suite struct ConcurrentReceiptTests {
    /// One sighting of a push, as iOS hands it to one process.
    enum Sighting: CaseIterable {
        case foreground, backgroundHandOver, extensionRun, tap
    }

    /// 64 sightings: of the campaign push (delivered + clicked) and of a chat message.
    static func sightings() -> [(Sighting, campaign: Bool)] {
        var list: [(Sighting, campaign: Bool)] = []
        list += Array(repeating: (.foreground, true), count: 12)
        list += Array(repeating: (.backgroundHandOver, true), count: 12)
        list += Array(repeating: (.extensionRun, true), count: 2)
        list += Array(repeating: (.tap, true), count: 16)
        list += Array(repeating: (.foreground, false), count: 10)
        list += Array(repeating: (.backgroundHandOver, false), count: 10)
        list += Array(repeating: (.extensionRun, false), count: 2)
        return list
    }

    @Test func sixtyFourConcurrentSightingsSendEachReceiptOnce() async {
        #expect(Self.sightings().count == 64)
        for round in 0..<200 {
            guard await oneRound(round) else { break }
        }
    }

    /// Returns `false` (after recording the issue) when a receipt went out other than once.
    private func oneRound(_ round: Int) async -> Bool {
        let device = SimulatedDevice()
        let app = await device.launchChatApp(delegate: RecordingChatDelegate())
        let extensions = (0..<2).map { _ in device.installNotificationServiceExtension(appGroupID: appGroup) }
        let campaignId = "ann\(round)", messageId = "m\(round)"
        var campaignInfo: [AnyHashable: Any] = [:]
        for (key, value) in campaignPayload(id: campaignId) { campaignInfo[key] = value }
        let shown = PNNotification(identifier: "campaign-\(round)", userInfo: campaignInfo)
        let sightings = Self.sightings().shuffled()
        let extensionRuns = PNLocked(0)
        await withTaskGroup(of: Void.self) { group in
            for (index, (sighting, isCampaign)) in sightings.enumerated() {
                // Payloads are not Sendable: each sighting builds its own copy.
                let payload: @Sendable () -> [String: Any] = {
                    isCampaign ? campaignPayload(id: campaignId) : chatPayload(messageId: messageId)
                }
                let act: @Sendable () -> Void
                switch sighting {
                case .extensionRun:
                    let which = extensionRuns.withLock { count -> Int in
                        defer { count += 1 }
                        return count % 2
                    }
                    group.addTask { _ = await extensions[which].receive(payload()) }
                    continue
                case .foreground: act = { device.deliver(payload()) }
                case .backgroundHandOver: act = { app.sdk.handleBackgroundNotification(userInfo: payload()) }
                case .tap: act = { device.tap(shown) }
                }
                if index.isMultiple(of: 2) {
                    group.addTask { act() }
                } else {
                    // Half of them from threads outside the cooperative pool.
                    group.addTask { await onAGlobalQueue(act) }
                }
            }
        }
        let settled = await device.settle()
        let delivered = device.service.requests(.campaignDelivered).count
        let clicked = device.service.requests(.campaignClicked).count
        let chatDelivered = device.service.requests(.userDelivered).count
        guard settled, delivered == 1, clicked == 1, chatDelivered == 1 else {
            let summary =
                "round \(round): settled \(settled), campaign delivered \(delivered), "
                + "clicked \(clicked), chat delivered \(chatDelivered) (each should be 1)"
            Issue.record(Comment(rawValue: summary))
            return false
        }
        return true
    }
}

@Suite struct ReceiptLedgerTests {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("receipt-ledger-\(UUID().uuidString)", isDirectory: true)
    let time = PNLocked(Date(timeIntervalSince1970: 1_800_000_000))

    /// A ledger over the shared directory, as one process (or thread) sees it.
    func ledger() -> PNReceiptLedger {
        let time = self.time
        return PNReceiptLedger(directory: directory, now: { time.current })
    }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() }

    @Test func secondProcessSeesTheClaimThenTheSentRecord() {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = ledger(), ext = ledger()
        #expect(ext.claim(.messageDelivered, id: "m1") == .granted(generation: 0))
        #expect(app.claim(.messageDelivered, id: "m1") == .heldElsewhere)
        ext.markSent(.messageDelivered, id: "m1", generation: 0)
        #expect(app.claim(.messageDelivered, id: "m1") == .alreadySent)
        #expect(app.isSent(.messageDelivered, id: "m1"))
        #expect(app.claim(.campaignDelivered, id: "m1") == .granted(generation: 0))
    }

    @Test func releasedOrAbandonedClaimsCanBeTakenOver() {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = ledger(), ext = ledger()
        #expect(ext.claim(.messageDelivered, id: "m2") == .granted(generation: 0))
        ext.release(.messageDelivered, id: "m2", generation: 0)
        #expect(app.claim(.messageDelivered, id: "m2") == .granted(generation: 1))
        #expect(ext.claim(.messageDelivered, id: "m2") == .heldElsewhere)
        // The app is killed while sending: after the claim's lifetime the extension takes over
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.claimLifetime - 1) }
        #expect(ext.claim(.messageDelivered, id: "m2") == .heldElsewhere)
        time.withLock { $0 = $0.addingTimeInterval(2) }
        #expect(ext.claim(.messageDelivered, id: "m2") == .granted(generation: 2))
        // A late release by the old owner does not drop the new claim
        app.release(.messageDelivered, id: "m2", generation: 1)
        #expect(app.claim(.messageDelivered, id: "m2") == .heldElsewhere)
    }

    @Test func aClaimWhoseCreatorDiedBeforeStampingItExpiresByItsFileDate() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = ledger()
        #expect(app.claim(.messageDelivered, id: "m3") == .granted(generation: 0))
        // Make it a claim whose stamp is cut short ("1", as a reader racing the writer could
        // see): its creator was killed in the middle of writing it
        let name = try #require(files().first { $0.hasSuffix(".claim.0") })
        let claim = directory.appendingPathComponent(name)
        try Data("1".utf8).write(to: claim)
        // Its time cannot be read (not "1970"): fresh while the file is, whatever the clock says
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.claimLifetime + 1) }
        #expect(app.claim(.messageDelivered, id: "m3") == .heldElsewhere)
        try Data().write(to: claim)
        #expect(app.claim(.messageDelivered, id: "m3") == .heldElsewhere)
        let old = Date().addingTimeInterval(-PNReceiptLedger.claimLifetime - 5)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: claim.path)
        #expect(app.claim(.messageDelivered, id: "m3") == .granted(generation: 1))
    }

    @Test func oldRecordsArePrunedByAge() {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = ledger()
        #expect(app.claim(.messageDelivered, id: "old") == .granted(generation: 0))
        app.markSent(.messageDelivered, id: "old", generation: 0)
        #expect(app.claim(.campaignClicked, id: "abandoned") == .granted(generation: 0))
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.retention - PNReceiptLedger.pruneInterval) }
        #expect(app.claim(.messageDelivered, id: "recent") == .granted(generation: 0))
        app.markSent(.messageDelivered, id: "recent", generation: 0)
        #expect(app.isSent(.messageDelivered, id: "old"))
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.pruneInterval + 1) }
        // The next claim prunes (the last pruning is more than an interval ago)
        #expect(app.claim(.messageDelivered, id: "new") == .granted(generation: 0))
        #expect(!app.isSent(.messageDelivered, id: "old"))
        #expect(app.isSent(.messageDelivered, id: "recent"))
        let left = files().filter { !$0.hasPrefix(".") }
        #expect(left.allSatisfy { !$0.contains("_old.") && !$0.contains("_abandoned.") }, "\(left)")
        #expect(left.contains { $0.contains("_recent.") } && left.contains { $0.contains("_new.") })
        // Not again within the interval
        #expect(app.pruneIfDue() == 0)
        time.withLock { $0 = $0.addingTimeInterval(PNReceiptLedger.retention + 1) }
        #expect(app.prune() == 2)
        #expect(files().filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test func everyIdGetsItsOwnRecord() {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = ledger()
        let ids = [
            "1", "a.b", "a/b", "a%2Eb", "a%2eb", "ä", "../x", "", String(repeating: "x", count: 300),
            String(repeating: "x", count: 301),
        ]
        for id in ids { #expect(app.claim(.campaignClicked, id: id) == .granted(generation: 0), "\(id)") }
        let names = files().filter { !$0.hasPrefix(".") }
        #expect(names.count == ids.count)
        #expect(names.allSatisfy { $0.hasPrefix("campaignClicked_") && $0.utf8.count < 200 }, "\(names)")
    }

    @Test("File names stay as earlier versions wrote them: bytes outside [A-Za-z0-9-] as %XX, a long id as its hash")
    func fileNamesAreStable() {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = ledger()
        let ids = ["m-1", "a.b", "a/b", "ä", "", String(repeating: "x", count: 301)]
        for id in ids { #expect(app.claim(.messageDelivered, id: id) == .granted(generation: 0), "\(id)") }
        #expect(
            Set(files().filter { !$0.hasPrefix(".") })
                == [
                    "messageDelivered_m-1.claim.0", "messageDelivered_a%2Eb.claim.0", "messageDelivered_a%2Fb.claim.0",
                    "messageDelivered_%C3%A4.claim.0", "messageDelivered_.claim.0",
                    "messageDelivered_h1e68285bff08bb77-301.claim.0",
                ])
    }

    @Test func sixtyFourThreadsClaimingOneReceiptGrantItOnce() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // concurrentPerform blocks its caller: run it off the pool (see `offThePool`)
        let failure = await offThePool { self.sixtyFourThreadsRounds() }
        #expect(failure == nil)
    }

    /// 200 rounds; the first round that went wrong, or `nil`.
    private func sixtyFourThreadsRounds() -> String? {
        for round in 0..<200 {
            let id = "r\(round)"
            let granted = PNLocked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 64) { _ in
                // One instance per thread, as separate processes have
                if case .granted(let generation) = self.ledger().claim(.messageDelivered, id: id) {
                    granted.withLock { $0.append(generation) }
                }
            }
            guard granted.current == [0] else { return "round \(round): granted \(granted.current)" }
            // Every other round the send fails; of the next 64 sightings one takes it over
            guard round.isMultiple(of: 2) else { continue }
            ledger().release(.messageDelivered, id: id, generation: 0)
            let retried = PNLocked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 64) { _ in
                if case .granted(let generation) = self.ledger().claim(.messageDelivered, id: id) {
                    retried.withLock { $0.append(generation) }
                }
            }
            guard retried.current == [1] else { return "round \(round), after a release: granted \(retried.current)" }
        }
        return nil
    }
}

/// The app and its extension are separate processes: two real processes (the
/// `ReceiptRaceHelper` executable, each a simulated app with its extension) race on one App
/// Group directory, and between them each receipt goes out once.
@Suite struct TwoProcessReceiptTests {
    @Test func twoProcessesRacingOnOneAppGroupSendEachReceiptOnce() async throws {
        let helper = try #require(RaceHelper.executable(), "ReceiptRaceHelper is not built next to the test binary")
        // Waiting for processes blocks a thread: do it on a GCD thread, not one of the few
        // threads of Swift concurrency's pool that the other tests need.
        let failure = try await offThePool { () throws -> String? in
            let roles = [("app", "extension"), ("mixed", "mixed"), ("extension", "mixed")]
            for round in 0..<100 {
                let root = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-race-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: root) }
                let (first, second) = roles[round % roles.count]
                let counts = try RaceHelper.race(
                    helper, root: root, roles: [first, second], campaignId: "ann\(round)", messageId: "m\(round)")
                let expected = ["campaignDelivered": 1, "campaignClicked": 1, "messageDelivered": 1]
                if counts != expected { return "round \(round) (\(first) vs \(second)): \(counts), expected \(expected)" }
            }
            return nil
        }
        #expect(failure == nil)
    }
}

/// Starts `ReceiptRaceHelper` processes and collects what they sent.
enum RaceHelper {
    /// The helper, built by `swift build --build-tests` into the directory of the test binary.
    static func executable() -> URL? {
        var directories: [URL] = []
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: path).deletingLastPathComponent())
        }
        // On macOS the tests are a bundle (…/debug/X.xctest) that `xctest` loads.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("ReceiptRaceHelper") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts one helper per role on `root`, lets them go at once when all are ready, and
    /// returns the receipts they sent between them, by kind.
    static func race(_ helper: URL, root: URL, roles: [String], campaignId: String, messageId: String) throws -> [String: Int] {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var processes: [(Process, input: Pipe, output: Pipe)] = []
        for (index, role) in roles.enumerated() {
            let process = Process()
            process.executableURL = helper
            process.arguments = [root.path, role, campaignId, messageId]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            let log = root.appendingPathComponent("helper-\(index).stderr")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
            processes.append((process, input, output))
        }
        // A helper that hangs is killed after 60 s, and the round fails.
        let watchdog = DispatchWorkItem {
            for (process, _, _) in processes where process.isRunning { process.terminate() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        for (process, _, output) in processes {
            guard readLine(output.fileHandleForReading) == "ready" else {
                process.waitUntilExit()
                throw Failure(description: "a helper did not get ready (status \(process.terminationStatus))")
            }
        }
        for (_, input, _) in processes {
            input.fileHandleForWriting.write(Data("go\n".utf8))
            try input.fileHandleForWriting.close()
        }
        var counts: [String: Int] = [:]
        for (index, (process, _, output)) in processes.enumerated() {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                let log = (try? String(contentsOf: root.appendingPathComponent("helper-\(index).stderr"), encoding: .utf8)) ?? ""
                throw Failure(description: "a helper failed with status \(process.terminationStatus): \(log)")
            }
            for pair in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0]), default: 0] += value }
            }
        }
        return counts
    }

    /// One line from `handle`, without its newline; `nil` at the end of the stream.
    private static func readLine(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
    }
}
