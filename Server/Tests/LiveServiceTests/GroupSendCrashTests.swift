import Foundation
import PushCore
import PushStore
import PushTestSupport
import Testing

/// A send to a group of 50,000 (issue 31) survives `kill -9` of the running binary in the middle
/// of its expansion: the restarted process takes the send over at once (its holder no longer
/// runs) and goes on from the cursor, and every member ends with exactly one job, the sender
/// none. The binary expands 200 members per transaction (`--group-batch 200`: 250 batches) and
/// delivers with `--sender log`, whose journal says when to kill it.
@Suite struct GroupSendCrashTests {
    static let adminKey = "group-crash-admin-key"

    static func start(_ directory: String, _ database: TestDatabase) async throws -> ServerProcess {
        try await ServerProcess.start(
            [
                "--port", "0", "--data-dir", directory, "--seed-dev", "--sender", "log", "--sender-journal", directory + "/sent.log",
                "--group-batch", "200",
                "--poll-interval", "0.01", "--log-level", "error", "--rate-limit", "0",
            ] + database.arguments,
            environment: ["PUSH_ADMIN_KEY": adminKey])
    }

    static func admin(_ port: Int, _ method: String, _ path: String, _ body: Any? = nil) async throws -> RawHTTP.Response {
        try await RawHTTP.json(port: port, method, path, headers: ["apikey": adminKey, "appid": "dev-app"], body)
    }

    @Test func killNineMidExpansionResumesFromTheCursorAndMakesEveryMembersJobOnce() async throws {
        let directory = NSTemporaryDirectory() + "push-group-crash-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try TestDatabase(directory: directory)
        let members = (0..<50_000).map { String(format: "m%05d", $0) }
        let sender = "m00042"

        // Given a running binary, 50,000 users with a token each, and a group of all of them
        let first = try await Self.start(directory, database)
        let store = try database.open()
        try ImportedUsers.add(store, appId: "dev-app", uids: members, providerId: "dev-apns")
        for start in stride(from: 0, to: members.count, by: 5_000) {
            let answer = try await Self.admin(
                first.port, start == 0 ? "PUT" : "POST", "/groups/everyone/members", ["uids": Array(members[start..<start + 5_000])])
            #expect(answer.status == 200, "\(answer.json)")
        }

        // When a message to the group is accepted and the process is killed while it expands
        let message: [String: Any] = [
            "type": "chat", "recipients": ["group": "everyone"],
            "message": [
                "id": "to-everyone", "sender": ["uid": sender], "receiver": ["guid": "everyone"], "receiverType": "group",
                "text": "Hello everyone",
            ] as [String: Any],
        ]
        let sent = try await Self.admin(first.port, "POST", "/notifications/push/v1/send", message)
        #expect(sent.status == 202, "\(sent.json)")
        let requestId = try #require(sent.data["requestId"] as? String)
        // The kill follows the delivery engine (2,100 pushes handed to the log sender), not the
        // expansion's commits, so it lands anywhere in a batch; and at once should the store ever
        // hold more jobs than the cursor passed (jobs stored apart from their cursor: the moment a
        // kill would make them twice).
        let journal = directory + "/sent.log"
        let begun = await eventually(timeout: 120, every: .milliseconds(1)) {
            let done = (try? store.groupSend(appId: "dev-app", id: requestId))?.done ?? 0
            let stored = (try? store.rowCount(table: .pushJobs)) ?? 0
            let bytes = (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0
            return stored > done || bytes >= 2_100 * 37  // a line is a job id (36 characters) and a newline
        }
        first.kill9()
        #expect(begun, "the expansion did not get going")
        let atKill = try #require(try store.groupSend(appId: "dev-app", id: requestId))
        print("GroupSendCrashTests: killed with \(atKill.done) of \(atKill.members) members expanded")
        #expect(atKill.state == .expanding && atKill.done < 49_999, "killed too late to prove anything: \(atKill)")
        #expect(try store.pushJobs(requestId: requestId).count == atKill.jobs, "the jobs stored are the batches the cursor passed")

        // Then a restarted binary takes the send over and finishes it
        let second = try await Self.start(directory, database)
        defer { second.stop() }
        let finished = try await waitWhileProgressing("expansion after the restart") {
            try store.groupSend(appId: "dev-app", id: requestId).map { "\($0.state.rawValue) \($0.done)" } ?? "none"
        } until: {
            $0.hasPrefix("done") || $0.hasPrefix("failed")
        }
        #expect(finished.value == "done 49999", "\(finished.value)")
        let send = try #require(try store.groupSend(appId: "dev-app", id: requestId))
        #expect(send.members == 49_999 && send.jobs == 49_999)

        // And every member has exactly one job, the sender none
        var perUid: [String: Int] = [:]
        for job in try store.pushJobs(requestId: requestId) { perUid[job.uid, default: 0] += 1 }
        #expect(perUid.count == 49_999)
        #expect(perUid[sender] == nil)
        let twice = perUid.filter { $0.value != 1 }
        #expect(twice.isEmpty, "members with more than one job: \(twice.prefix(5))")
        #expect(Set(perUid.keys) == Set(members).subtracting([sender]))
    }
}
