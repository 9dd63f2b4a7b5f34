import CCurl
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
import ServerSupport
import Synchronization

/// The thread that owns a libcurl multi handle and every transfer on it.
///
/// `@unchecked Sendable`: `multi`, `idle`, `running` and the back-off fields are touched only
/// by the loop thread; other threads use `queue` (a `Mutex`), `inFlight` (an `Atomic`) and
/// `curl_multi_wakeup`, which libcurl documents as thread-safe.
final class CurlLoop: @unchecked Sendable {
    struct Queue {
        var transfers: [Transfer] = []
        var stopped = false
    }

    let configuration: HTTP2Client.Configuration
    let queue = Mutex(Queue())
    let inFlight = Atomic<Int>(0)
    /// True while the last finished transfer was answered (the connection is up); false
    /// before the first answer and after a transport failure.
    let answered = Atomic<Bool>(false)
    /// True while the loop waits in `curl_multi_poll`: only then does a submission wake it.
    private let sleeping = Atomic<Bool>(false)
    private let multi: UnsafeMutableRawPointer
    private var idle: [UnsafeMutableRawPointer] = []
    private var running: Set<UnsafeMutableRawPointer> = []
    private var waiting: [Transfer] = []
    /// Transfers whose request body libcurl may still be sending, with the body's size.
    private var uploading: [UnsafeMutableRawPointer: Int64] = [:]
    private var connectFailures = 0
    private var holdUntil: ContinuousClock.Instant?
    private var lastPing = ContinuousClock.now
    private var authenticated = false
    /// The one transfer let through while not authenticated; the next waits for its answer.
    private var probe: Transfer?

    init(configuration: HTTP2Client.Configuration, faults: HTTP2Client.Faults = HTTP2Client.Faults()) {
        self.configuration = configuration
        if faults.easyInitFails {
            makeEasyHandle = { nil }
        } else {
            makeEasyHandle = { curl_easy_init() }
        }
        if faults.addHandleFails {
            addHandle = { _, _ in CURLM_OUT_OF_MEMORY }
        } else {
            addHandle = { multi, easy in curl_multi_add_handle(multi, easy) }
        }
        multi = curl_multi_init()
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, ccurl_pipe_multiplex())
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
    }

    func submit(_ transfer: Transfer) {
        inFlight.add(1, ordering: .relaxed)
        transfer.responseLimit = configuration.maxResponseBytes
        // The wake-up happens under the lock: the loop thread cleans the multi handle up only
        // after it saw `stopped` under this lock, so it cannot be freed under the call.
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.stopped else { return false }
            queue.transfers.append(transfer)
            if sleeping.exchange(false, ordering: .acquiringAndReleasing) { curl_multi_wakeup(multi) }
            return true
        }
        if !accepted {
            inFlight.subtract(1, ordering: .relaxed)
            transfer.completion(.failure(HTTPTransportError(code: -1, message: "client stopped", isConnectFailure: true)))
        }
    }

    func stop() {
        // Wakes the loop while holding the lock: after `stopped` is set, the loop thread may
        // run `curl_multi_cleanup` as soon as it can take the lock, so waking it after
        // releasing the lock could touch a freed multi handle.
        queue.withLock { queue in
            guard !queue.stopped else { return }
            queue.stopped = true
            curl_multi_wakeup(multi)
        }
    }

    /// The loop: start submitted transfers, drive libcurl, finish completed transfers, wait.
    func run() {
        while true {
            let (submitted, stopped) = queue.withLock { queue in
                defer { queue.transfers.removeAll(keepingCapacity: true) }
                return (queue.transfers, queue.stopped)
            }
            // Taken from the queue before the check: transfers submitted just before `stop()`
            // are failed by `shutDown()` with the waiting ones, never dropped unanswered.
            waiting.append(contentsOf: submitted)
            if stopped { break }
            // With transfers running or waiting, wake at least every 10 ms: libcurl 7.88's
            // curl_multi_poll did not return when the answer to a new connection's first
            // request arrived (the single-stream gate then held every other request for the
            // full 1 s timeout; bench.py at 50 ms lost ~1.1 s per run).
            var timeout = running.isEmpty && waiting.isEmpty ? 1000 : 10
            if let until = holdUntil, ContinuousClock.now < until {
                timeout = max(1, Int((until - ContinuousClock.now) / .milliseconds(1)))
            } else {
                holdUntil = nil
                startWaiting()
            }
            var stillRunning: Int32 = 0
            _ = curl_multi_perform(multi, &stillRunning)
            releaseUploadBuffers()
            collectFinished()
            if holdUntil == nil, !waiting.isEmpty {
                startWaiting()
                _ = curl_multi_perform(multi, &stillRunning)
                releaseUploadBuffers()
            }
            pingIfDue()
            var ready: Int32 = 0
            sleeping.store(true, ordering: .sequentiallyConsistent)
            // Submissions that raced with the store above are picked up without sleeping.
            if queue.withLock({ $0.transfers.isEmpty && !$0.stopped }) {
                _ = curl_multi_poll(multi, nil, 0, Int32(timeout), &ready)
            }
            sleeping.store(false, ordering: .sequentiallyConsistent)
            // Under load let answers and submissions gather for a moment: every
            // curl_multi_perform walks all transfers of the multi handle, so fewer, fuller
            // passes cost far less CPU than one pass per arriving frame.
            if running.count >= 64 { usleep(UInt32(min(running.count, 1000))) }
        }
        shutDown()
    }

    /// Starts waiting transfers: all of them, or one at a time while the connection is
    /// not yet authenticated (`singleStreamUntilAuthenticated`). One at a time means one probe
    /// until it is answered, not until every earlier transfer ended: after a connection was
    /// lost its last streams may wait for the request deadline.
    private func startWaiting() {
        guard !waiting.isEmpty else { return }
        if configuration.singleStreamUntilAuthenticated && !authenticated {
            if probe == nil {
                let next = waiting.removeFirst()
                probe = next
                start(next)
            }
            return
        }
        for transfer in waiting { start(transfer) }
        waiting.removeAll(keepingCapacity: true)
    }

    private func start(_ transfer: Transfer) {
        if let policy = transfer.request.destinationPolicy {
            // The scheme, and a host that is an address or a localhost name, before any connection.
            switch policy.screen(transfer.request.url) {
            case .failure(let refusal): return failToStart(transfer, message: refusal.description, refused: true)
            case .success(let secure): transfer.secure = secure
            }
        }
        let easy: UnsafeMutableRawPointer
        if let reused = idle.popLast() {
            easy = reused
        } else {
            guard let fresh = makeEasyHandle() else {
                return failToStart(transfer, message: "libcurl could not create a handle (out of memory)")
            }
            easy = fresh
            EasyHandle.configure(easy, configuration: configuration)
        }
        guard EasyHandle.prepare(easy, for: transfer) else {
            _ = EasyHandle.takeTransfer(easy)
            transfer.release()
            idle.append(easy)
            return failToStart(transfer, message: "destination refused: libcurl could not set up the destination checks", refused: true)
        }
        let added = addHandle(multi, easy)
        guard added == CURLM_OK else {
            // Not added: take the transfer back, keep the handle for later, answer the caller.
            _ = EasyHandle.takeTransfer(easy)
            transfer.release()
            idle.append(easy)
            return failToStart(transfer, message: "libcurl refused the transfer: \(String(cString: curl_multi_strerror(added)))")
        }
        if let body = transfer.request.body, Self.releasesUploadBuffers { uploading[easy] = Int64(body.count) }
        running.insert(easy)
    }

    /// `curl_easy_init` (tests make it fail through ``HTTP2Client/init(configuration:name:faults:)``).
    private let makeEasyHandle: @Sendable () -> UnsafeMutableRawPointer?
    /// `curl_multi_add_handle` (tests make it fail).
    private let addHandle: @Sendable (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> CURLMcode

    /// Answers a transfer that could not be started, freeing its in-flight slot. `refused`: its
    /// destination policy refused it (nothing was sent).
    private func failToStart(_ transfer: Transfer, message: String, refused: Bool = false) {
        if transfer === probe { probe = nil }
        inFlight.subtract(1, ordering: .relaxed)
        transfer.completion(
            .failure(HTTPTransportError(code: -1, message: message, isConnectFailure: refused, isDestinationRefused: refused)))
    }

    /// Whether the upload-buffer release below is safe with the running libcurl: it relies on
    /// how 7.88 manages the buffer (freed and reallocated by the option, never read again
    /// once the body was sent), so it is done on 7.88.x only.
    static let releasesUploadBuffers = HTTP2Client.uploadBufferReleaseApplies(versionNumber: ccurl_version_number())

    /// Frees the upload buffer of every transfer whose body has been sent in full.
    ///
    /// libcurl 7.88 sends an HTTP/2 request body through a per-transfer upload buffer of at
    /// least 16 KB (`CURLOPT_UPLOAD_BUFFERSIZE`) and frees it only when the transfer ends:
    /// held while the answer is awaited, that was ~16 KB of the ~25 KB each request in flight
    /// cost. Setting the option again frees the buffer; once every body byte has been handed
    /// to the HTTP/2 layer (which copied it into its frames) libcurl stops sending for the
    /// transfer and never reads the buffer again. Done between `curl_multi_perform` calls
    /// only, never from inside a callback.
    private func releaseUploadBuffers() {
        guard !uploading.isEmpty else { return }
        for (easy, size) in uploading {
            var sent: curl_off_t = 0
            guard ccurl_getinfo_off(easy, CURLINFO_SIZE_UPLOAD_T, &sent) == CURLE_OK, Int64(sent) >= size else { continue }
            _ = ccurl_setopt_long(easy, CURLOPT_UPLOAD_BUFFERSIZE, EasyHandle.uploadBufferSize)
            uploading[easy] = nil
        }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            guard ccurl_msg_done(message, &easy, &result) == 1, let easy else { continue }
            finish(easy, result: result)
        }
    }

    private func finish(_ easy: UnsafeMutableRawPointer, result: CURLcode) {
        _ = curl_multi_remove_handle(multi, easy)
        running.remove(easy)
        uploading[easy] = nil
        guard let transfer = EasyHandle.takeTransfer(easy) else { return }
        if transfer === probe { probe = nil }
        if transfer.tooLarge {
            idle.append(easy)
            transfer.release()
            inFlight.subtract(1, ordering: .relaxed)
            transfer.completion(
                .failure(
                    HTTPTransportError(
                        code: Int(result.rawValue), message: "response larger than \(configuration.maxResponseBytes) bytes",
                        isConnectFailure: false)))
            return
        }
        var status = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        if idle.count < configuration.maxConcurrentStreams {
            idle.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
        transfer.release()
        inFlight.subtract(1, ordering: .relaxed)
        if result == CURLE_OK {
            connectFailures = 0
            answered.store(true, ordering: .relaxed)
            if status != 403 { authenticated = true }
            transfer.completion(.success(OutboundResponse(status: status, headers: transfer.headers, body: transfer.body)))
            return
        }
        if let refusal = transfer.refusal {
            // The policy refused the destination: no network failure, so no back-off for the
            // client's other requests, and nothing was sent.
            return transfer.completion(
                .failure(
                    HTTPTransportError(
                        code: Int(result.rawValue), message: refusal.description, isConnectFailure: true, isDestinationRefused: true)))
        }
        let connectFailure =
            [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SSL_CONNECT_ERROR]
            .contains(result) && status == 0
        if connectFailure { backOff() }
        authenticated = false
        answered.store(false, ordering: .relaxed)
        let message = String(cString: curl_easy_strerror(result))
        transfer.completion(
            .failure(
                HTTPTransportError(
                    code: Int(result.rawValue), message: message, isConnectFailure: connectFailure)))
    }

    /// Holds new transfers back after a failed connection attempt, on the configuration's
    /// reconnection back-off.
    private func backOff() {
        connectFailures += 1
        holdUntil = ContinuousClock.now + .seconds(configuration.reconnect.delay(attempt: connectFailures))
    }

    /// Sends HTTP/2 PINGs on idle-looking connections through libcurl's upkeep.
    private func pingIfDue() {
        guard configuration.pingIntervalMilliseconds > 0,
            ContinuousClock.now - lastPing >= .milliseconds(configuration.pingIntervalMilliseconds),
            let easy = running.first
        else { return }
        lastPing = ContinuousClock.now
        _ = curl_easy_upkeep(easy)
    }

    private func shutDown() {
        answered.store(false, ordering: .relaxed)
        let pending = queue.withLock { queue in
            defer { queue.transfers.removeAll() }
            return queue.transfers
        }
        for easy in running {
            _ = curl_multi_remove_handle(multi, easy)
            if let transfer = EasyHandle.takeTransfer(easy) {
                transfer.release()
                fail(transfer)
            }
            curl_easy_cleanup(easy)
        }
        for transfer in waiting + pending { fail(transfer) }
        for easy in idle { curl_easy_cleanup(easy) }
        running.removeAll()
        idle.removeAll()
        curl_multi_cleanup(multi)
    }

    private func fail(_ transfer: Transfer) {
        inFlight.subtract(1, ordering: .relaxed)
        transfer.completion(.failure(HTTPTransportError(code: -1, message: "client stopped", isConnectFailure: false)))
    }
}
