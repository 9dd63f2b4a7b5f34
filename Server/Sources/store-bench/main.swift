import CLibPQ
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushCore
import PushStore
import ServerSupport

// store-bench: the outbox's three hot statements at batch speed, on the store itself (no HTTP, no
// delivery): accept (a send's jobs stored in one transaction, `acceptSend`), claim (the delivery
// engine's `claimPushJobs`, in its batches) and finish (`finishPushJobs`, every job delivered, in
// batches). Prints jobs/s for each, per run and the medians. See Server/Benchmarks/README.md.

let usage = """
    usage: store-bench [--database PATH|postgres://…] [--jobs N] [--runs N] [--claim-batch N] [--finish-batch N]
                       [--sqlite-sync full|normal] [--pool N] [--accept-only]

      --database      an SQLite file (default: a new one in $TMPDIR, deleted at the end), or a PostgreSQL URL:
                      the tables go into a new schema of that database, dropped at the end
      --jobs          jobs per send (default 20000): one accept, then claims and finishes until all are done
      --runs          sends, one after the other on the same store (default 3)
      --claim-batch   jobs per claim (default 500, the engine's batch size)
      --finish-batch  outcomes per finish (default 500)
      --sqlite-sync   SQLite's synchronous mode (default full, as the service's --sqlite-sync)
      --pool          PostgreSQL connections (default 8, as --database-pool)
      --accept-only   accept the sends and leave their jobs pending (to profile the accept alone)
    """

struct Options {
    var database: String?
    var jobs = 20_000
    var runs = 3
    var claimBatch = 500
    var finishBatch = 500
    var sqliteFull = true
    var pool = 8
    var acceptOnly = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value") }
            return next
        }
        func count(_ flag: String) -> Int {
            guard let number = Int(value(flag)), number > 0 else { fail("\(flag) needs a positive number") }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--database": database = value(flag)
            case "--jobs": jobs = count(flag)
            case "--runs": runs = count(flag)
            case "--claim-batch": claimBatch = count(flag)
            case "--finish-batch": finishBatch = count(flag)
            case "--pool": pool = count(flag)
            case "--sqlite-sync":
                switch value(flag) {
                case "full": sqliteFull = true
                case "normal": sqliteFull = false
                default: fail("--sqlite-sync is full or normal")
                }
            case "--accept-only": acceptOnly = true
            case "-h", "--help":
                StandardStream.out(usage)
                exit(0)
            default: fail("unknown option \(flag)")
            }
        }
    }
}

func fail(_ message: String) -> Never {
    StandardStream.error("store-bench: \(message)\n\(usage)")
    exit(64)
}

/// `value` with `decimals` digits after the point.
func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int64((value * scale).rounded())
    let whole = scaled / Int64(scale)
    guard decimals > 0 else { return grouped(whole) }
    let fraction = String(scaled % Int64(scale))
    return grouped(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

/// `value` with thousands separators.
func grouped(_ value: Int64) -> String {
    let digits = Array(String(value))
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return out
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Runs one statement on a PostgreSQL server (the bench's schema).
func execute(_ sql: String, on url: String) throws {
    guard let connection = PQconnectdb(url) else { throw StoreError.database("out of memory") }
    defer { PQfinish(connection) }
    guard PQstatus(connection) == CONNECTION_OK else { throw StoreError.database(String(cString: PQerrorMessage(connection))) }
    let result = PQexec(connection, sql)
    defer { PQclear(result) }
    guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw StoreError.database(String(cString: PQerrorMessage(connection))) }
}

/// The store under test and how to clean up after it.
struct Subject {
    let store: any ServiceStore
    let name: String
    let cleanUp: () -> Void

    init(_ options: Options) throws {
        if let url = options.database, url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            let schema = "store_bench_" + String(UInt64.random(in: 1...UInt64.max), radix: 16)
            try execute("CREATE SCHEMA \(schema)", on: url)
            let store = try PostgresStore(
                url: url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)", poolSize: options.pool, logger: .silent)
            self.store = store
            name = "PostgreSQL (schema \(schema), pool \(options.pool))"
            cleanUp = {
                store.close()
                try? execute("SET client_min_messages = warning; DROP SCHEMA \(schema) CASCADE", on: url)
            }
        } else {
            let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
            let path = options.database ?? directory + "/store-bench-" + UUID().uuidString + ".sqlite"
            store = try SQLiteStore(path: path, synchronousFull: options.sqliteFull)
            name = "SQLite (\(path), synchronous=\(options.sqliteFull ? "FULL" : "NORMAL"))"
            let made = options.database == nil
            cleanUp = {
                if made { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
            }
        }
    }
}

/// The jobs of one send as the send API makes them: a chat message to `count` tokens of
/// `count / 100` users, each with its payload, a collapse id and an interruption level.
func send(_ run: Int, count: Int, now: Date) -> [PushJob] {
    let requestId = "bench-\(run)-" + UUID().uuidString.lowercased()
    return (0..<count).map { index in
        let uid = "user\(index / 100)"
        let payload = Data(
            """
            {"aps":{"alert":{"title":"Ann","body":"Message \(run) for \(uid)"},"sound":"default","mutable-content":1,\
            "thread-id":"conv-\(uid)"},"type":"chat","sender":"ann","conversationId":"conv-\(uid)","messageId":"m\(run)"}
            """.utf8)
        return PushJob(
            id: UUID().uuidString.lowercased(), appId: "bench", requestId: requestId, uid: uid,
            token: String(repeating: "0", count: 56) + String(index, radix: 16).leftPadded(to: 8), platform: .apnsDevice,
            kind: .chat, providerId: "apns", payload: payload,
            headers: PushHeaders(pushType: .alert, priority: 10, expiration: 0, collapseId: "m\(run)-\(uid)"), notBefore: now,
            createdAt: now, interruptionLevel: "active", levelReason: "direct")
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

struct RunResult {
    var accept: Double
    var claim: Double
    var claims: Int
    var finish: Double
    var finishes: Int
}

func measure(_ store: any ServiceStore, run: Int, options: Options) throws -> RunResult {
    let clock = ContinuousClock()
    let now = Date()
    let jobs = send(run, count: options.jobs, now: now)

    var started = clock.now
    let acceptance = try store.acceptSend(
        appId: "bench", idempotencyKey: "bench-key-\(run)-" + UUID().uuidString, requestHash: Data([UInt8(run & 0xFF)]), jobs: jobs,
        webhooks: [], response: Data("{}".utf8), now: now)
    let accept = seconds(clock.now - started)
    guard case .accepted = acceptance else { throw StoreError.database("the send was not accepted: \(acceptance)") }
    if options.acceptOnly { return RunResult(accept: accept, claim: 0, claims: 0, finish: 0, finishes: 0) }

    var claimed: [String] = []
    claimed.reserveCapacity(jobs.count)
    var claims = 0
    started = clock.now
    while true {
        let batch = try store.claimPushJobs(limit: options.claimBatch, lease: 60, now: Date())
        if batch.isEmpty { break }
        claims += 1
        claimed += batch.map(\.id)
    }
    let claim = seconds(clock.now - started)
    guard claimed.count == jobs.count, Set(claimed) == Set(jobs.map(\.id)) else {
        throw StoreError.database("claimed \(claimed.count) jobs of the \(jobs.count) accepted")
    }

    var finishes = 0
    started = clock.now
    for start in stride(from: 0, to: claimed.count, by: options.finishBatch) {
        let ids = claimed[start..<min(start + options.finishBatch, claimed.count)]
        try store.finishPushJobs(ids.map { ($0, JobOutcome.delivered) }, now: Date())
        finishes += 1
    }
    let finish = seconds(clock.now - started)
    let counts = try store.activePushJobCounts()
    guard counts.pending == 0, counts.inFlight == 0 else { throw StoreError.database("jobs left after the finishes: \(counts)") }
    return RunResult(accept: accept, claim: claim, claims: claims, finish: finish, finishes: finishes)
}

func line(_ label: String, _ result: RunResult, options: Options) -> String {
    let jobs = options.jobs
    let count = Double(jobs)
    let accepted = "\(label): accept \(grouped(Int64(jobs))) jobs \(fixed(result.accept, 3)) s (\(fixed(count / result.accept, 0)) jobs/s)"
    if options.acceptOnly { return accepted }
    return "\(label): accept \(grouped(Int64(jobs))) jobs \(fixed(result.accept, 3)) s (\(fixed(count / result.accept, 0)) jobs/s) · "
        + "claim \(result.claims) × ≤\(options.claimBatch) \(fixed(result.claim, 3)) s (\(fixed(count / result.claim, 0)) jobs/s) · "
        + "finish \(result.finishes) × ≤\(options.finishBatch) \(fixed(result.finish, 3)) s (\(fixed(count / result.finish, 0)) jobs/s)"
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let subject: Subject
do {
    subject = try Subject(options)
} catch {
    StandardStream.error("store-bench: cannot open the store: \(error)")
    exit(1)
}
StandardStream.out(
    "store-bench: \(subject.name); \(grouped(Int64(options.jobs))) jobs per send, claims of \(options.claimBatch), "
        + "finishes of \(options.finishBatch), \(options.runs) runs")
do {
    try subject.store.createApp(AppRecord(id: "bench", name: "Bench", createdAt: Date()))
    var results: [RunResult] = []
    for run in 1...options.runs {
        let result = try measure(subject.store, run: run, options: options)
        results.append(result)
        StandardStream.out(line("run \(run)", result, options: options))
    }
    let medians = RunResult(
        accept: median(results.map(\.accept)), claim: median(results.map(\.claim)), claims: results[0].claims,
        finish: median(results.map(\.finish)), finishes: results[0].finishes)
    StandardStream.out(line("median", medians, options: options))
} catch {
    StandardStream.error("store-bench: \(error)")
    subject.cleanUp()
    exit(1)
}
subject.cleanUp()
