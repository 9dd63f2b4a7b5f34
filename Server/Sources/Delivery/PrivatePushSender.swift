#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushCore
import PushCrypto
import ServerSupport

/// Seals private pushes at send time (issue 28, `docs/design/private-push.md`): wraps the real
/// sender and, for a job with a ``PushJob/privatePush``, looks up the token's keys as stored at
/// this moment, encrypts the plaintext for them with a fresh ephemeral key (RFC 8291) and
/// forwards the job with its clear part plus a top-level `"enc"`. Other jobs pass unchanged.
///
/// - A token without a key gets the clear part alone (the placeholder, never clear text), and
///   the service logs it once per token (a short hash, never the token); a VoIP push also gets
///   the call's `type`, `callAction` and `sessionId`, so that it rings and can be answered.
/// - A key that cannot be opened or used is a failed outcome: nothing is sent.
/// - The keys are read when the engine has claimed the job (``prepare(_:)``: one query per app
///   and batch) or, for a job sent without it, when it is sent; nothing is kept past that send,
///   so a retry after a re-registration uses the new key.
/// - The encryption runs on workers of its own (``BackgroundWorker``, threads `push-seal-N`),
///   off the engine's claiming thread, one per processor (at most four): each takes the private
///   jobs handed to it in chunks, seals a chunk, then hands the whole chunk to the inner sender,
///   so that its network loop gets the pushes in bursts it writes together rather than one
///   wake-up per push. A token's pushes all go to one worker, so they leave in the order they
///   came. ``stop()`` ends them; a job handed on after that, or still waiting then, gets a
///   retry outcome.
public final class PrivatePushSender: PushSender {
    /// The keys of a token as stored, opened (the auth secret unsealed with the service's key).
    public typealias Opener = @Sendable (_ appId: String, _ token: String, _ stored: StoredEncryptionKeys) throws -> WebPushKeys

    /// Where the keys are and how they open: what the service passes to ``DeliveryService``.
    public struct Keys: Sendable {
        /// The store of the tokens' keys.
        public var store: any EncryptionKeyStore
        /// Opens stored keys (unseals the auth secret).
        public var open: Opener

        /// Creates a value.
        public init(store: any EncryptionKeyStore, open: @escaping Opener) {
            self.store = store
            self.open = open
        }
    }

    /// The sender that delivers.
    public let inner: any PushSender
    private let keys: any EncryptionKeyStore
    private let open: Opener
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// The tokens (short hashes) already logged as keyless: one line per token.
    private let loggedKeyless = Locked(Set<String>())
    /// The keys read by ``prepare(_:)`` for claimed jobs, by job id (nil: the token has none),
    /// each taken by the job's send.
    private let prepared = Locked([String: StoredEncryptionKeys?]())

    /// A private job waiting for the sealing worker, with its completion.
    private struct Waiting {
        let job: PushJob
        let completion: @Sendable (JobOutcome) -> Void
    }

    /// One sealing worker and the jobs waiting for it, oldest first.
    private final class Lane: Sendable {
        let waiting = Locked((jobs: [Waiting](), stopped: false))
        let worker: BackgroundWorker

        init(name: String) { worker = BackgroundWorker(name: name, idle: 60) }
    }

    /// The sealing workers (``sealPass(_:)``), each with its own queue.
    private let lanes: [Lane]
    /// How many jobs one pass seals before it hands them on: a few milliseconds of work.
    package static let chunk = 32

    /// The keys the call push of a keyless VoIP token keeps in clear (with `aps` and `pushId`).
    public static let keylessCallKeys = ["type", "callAction", "sessionId"]

    /// The sealing workers by default: one per processor, at most four.
    public static var defaultSealers: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Wraps `inner`, reading keys from `keys` and opening them with `open`.
    /// `now`: the clock a retry after a failed read of the keys is timed on. `sealers`: how many
    /// workers encrypt (at least one).
    public init(
        wrapping inner: any PushSender, keys: any EncryptionKeyStore, open: @escaping Opener, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init, sealers: Int = PrivatePushSender.defaultSealers
    ) {
        self.now = now
        self.inner = inner
        self.keys = keys
        self.open = open
        self.logger = logger
        self.lanes = (0..<max(1, sealers)).map { Lane(name: "push-seal-\($0)") }
    }

    /// Ends the sealing workers after the chunks under way; the jobs still waiting, and any
    /// handed on later, get a retry outcome (their keys are read again when they are retried).
    /// Call it after the engine stopped.
    public func stop() {
        for lane in lanes { _ = lane.worker.stop(timeout: 10) }
        for lane in lanes {
            let left = lane.waiting.withLock { state -> [Waiting] in
                state.stopped = true
                defer { state.jobs.removeAll() }
                return state.jobs
            }
            for waiting in left { waiting.completion(Self.stopping(now())) }
        }
    }

    private static func stopping(_ now: Date) -> JobOutcome {
        .retry(notBefore: now, reason: "the service stopped before the push was sealed")
    }

    public func send(_ job: PushJob) async -> JobOutcome {
        var salts = WebPushEncryption.Salts(count: 1)
        switch seal(job, salts: &salts) {
        case .send(let sealed): return await inner.send(sealed)
        case .fail(let outcome): return outcome
        }
    }

    public func send(_ job: PushJob, completion: @escaping @Sendable (JobOutcome) -> Void) {
        guard job.privatePush != nil else { return inner.send(job, completion: completion) }
        // A token's pushes share a lane, so they leave in order.
        let lane = lanes[Int(UInt(bitPattern: job.token.hashValue) % UInt(lanes.count))]
        let accepted = lane.waiting.withLock { state -> Bool? in
            guard !state.stopped else { return nil }
            state.jobs.append(Waiting(job: job, completion: completion))
            return state.jobs.count == 1
        }
        guard let first = accepted else { return completion(Self.stopping(now())) }
        // A job joining others waits for the pass that takes them (a pass that leaves jobs
        // behind is followed by another): only the first of a queue wakes the worker.
        guard first else { return }
        // Starts the worker the first time (later calls do nothing) and wakes it.
        lane.worker.start { [weak self, weak lane] in
            guard let self, let lane else { return .end }
            return self.sealPass(lane)
        }
        lane.worker.wake()
    }

    /// One pass of a sealing worker: seals up to ``chunk`` jobs of its lane, then hands them all on.
    private func sealPass(_ lane: Lane) -> BackgroundWorker.Next {
        let (chunk, more) = lane.waiting.withLock { state -> ([Waiting], Bool) in
            let count = min(Self.chunk, state.jobs.count)
            let chunk = Array(state.jobs.prefix(count))
            state.jobs.removeFirst(count)
            return (chunk, !state.jobs.isEmpty)
        }
        // One draw of random bytes for the whole chunk's salts.
        var salts = WebPushEncryption.Salts(count: chunk.count { $0.job.privatePush != nil })
        let sealed = chunk.map { (seal($0.job, salts: &salts), $0.completion) }
        for (sealing, completion) in sealed {
            switch sealing {
            case .send(let job): inner.send(job, completion: completion)
            case .fail(let outcome): completion(outcome)
            }
        }
        return more ? .again : .idle
    }

    /// Reads the keys of the batch's private jobs: one query per app.
    public func prepare(_ jobs: [PushJob]) {
        inner.prepare(jobs)
        let byApp = Dictionary(grouping: jobs.filter { $0.privatePush != nil }, by: \.appId)
        for (appId, appJobs) in byApp {
            // A failed read leaves the jobs to read their keys when they are sent.
            guard let found = try? keys.encryptionKeys(appId: appId, tokens: Array(Set(appJobs.map(\.token)))) else { continue }
            prepared.withLock { prepared in
                // A job the engine did not send (expired in the queue) leaves its entry: never
                // let those pile up (the jobs sent later read their keys themselves).
                if prepared.count > 50_000 { prepared.removeAll() }
                for job in appJobs { prepared[job.id] = .some(found[job.token]) }
            }
        }
    }

    enum Sealing {
        case send(PushJob)
        case fail(JobOutcome)
    }

    /// The job as it goes out: unchanged without a private push; else its clear part with `enc`,
    /// or without a key the clear part (and a call's ids), or a failure. `salts`: where the
    /// message's salt comes from.
    func seal(_ job: PushJob, salts: inout WebPushEncryption.Salts) -> Sealing {
        guard let privatePush = job.privatePush else { return .send(job) }
        let stored: StoredEncryptionKeys?
        do {
            if let read = prepared.withLock({ $0.removeValue(forKey: job.id) }) {
                stored = read
            } else {
                stored = try keys.encryptionKeys(appId: job.appId, tokens: [job.token])[job.token]
            }
        } catch {
            // The store could not be read: try again later, as for any store failure.
            return .fail(.retry(notBefore: now().addingTimeInterval(30), reason: "encryption keys could not be read"))
        }
        // The job keeps its private push: the sender it goes to knows it is private by it (FCM
        // then copies nothing but `pushId` into `data` and sends no `notification` block).
        var sent = job
        guard let stored else {
            logKeyless(job)
            sent.payload = Self.keyless(job.payload, plaintext: privatePush.plaintext, voip: job.headers.pushType == .voip)
            return .send(sent)
        }
        do {
            let keys = try open(job.appId, job.token, stored)
            let message = try WebPushEncryption.encrypt([UInt8](privatePush.plaintext), for: keys, salt: salts.next())
            sent.payload = Self.adding(enc: message, to: job.payload)
            return .send(sent)
        } catch {
            // Never the key or the text: what failed, by kind.
            logger.error(
                "private push: the key of token \(Self.tokenHint(job.token)) (app \(job.appId)) cannot be used: \(Self.kind(of: error))")
            return .fail(.failed(reason: "private push: the token's encryption key cannot be used"))
        }
    }

    /// The clear part with `,"enc":"…"` (the message, base64url) before its closing brace (an
    /// object with keys: `aps`, `pushId`), exactly the size ``PrivateFit`` counts; written once
    /// into a buffer of its final size.
    static func adding(enc message: [UInt8], to clear: Data) -> Data {
        let key = Array(",\"enc\":\"".utf8)
        var payload = Data(capacity: clear.count + key.count + Base64URL.encodedLength(message.count) + 1)
        payload.append(clear.dropLast())
        payload.append(contentsOf: key)
        Base64URL.append(message, to: &payload)
        payload.append(contentsOf: "\"}".utf8)
        return payload
    }

    /// What a token without a key gets: the clear part; for a VoIP push also the call's
    /// ``keylessCallKeys`` from the plaintext (no names, no uids).
    static func keyless(_ clear: Data, plaintext: Data, voip: Bool) -> Data {
        guard voip, var object = (try? JSONCodec.parse(clear)) as? [String: Any],
            let standard = (try? JSONCodec.parse(plaintext)) as? [String: Any]
        else { return clear }
        for key in keylessCallKeys { if let value = standard[key] as? String { object[key] = value } }
        return (try? JSONCodec.encodeData(object)) ?? clear
    }

    /// A short, stable id of a token for logs: the first 12 hex digits of its SHA-256.
    public static func tokenHint(_ token: String) -> String {
        Crypto.sha256(token).prefix(6).hexString
    }

    private func logKeyless(_ job: PushJob) {
        let hint = Self.tokenHint(job.token)
        guard loggedKeyless.withLock({ $0.insert(job.appId + ":" + hint).inserted }) else { return }
        logger.warning(
            "private push: token \(hint) of app \(job.appId) has no encryption key; it gets the placeholder only "
                + "(the app registers it without \"encryption\")")
    }

    private static func kind(of error: any Error) -> String {
        switch error {
        case let error as WebPushError: return "\(error)"
        case is SecretBoxError: return "the auth secret does not open"
        default: return "\(type(of: error))"
        }
    }
}
