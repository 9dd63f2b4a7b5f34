import PushCrypto
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
import CurlHTTP
import Dispatch
import PushCore
import PushStore
import ServerSupport

/// Posts queued events to each app's webhook. A job leaves the outbox only after a 2xx
/// answer; anything else (no URL yet, transport error, non-2xx) retries it with
/// exponential back-off, forever, so no event is dropped while the service runs. A job
/// leased by a process that died is claimed again when its lease ends.
///
/// Posts go through libcurl (`HTTP2Client`: HTTP/1.1, or HTTP/2 where TLS offers it), not
/// Foundation's URLSession, which on Linux stops the process on some libcurl errors.
final class WebhookDispatcher: Sendable {
    private let service: ServiceContext
    private let client: HTTP2Client
    private let running = Locked(true)
    /// Whether the thread was started and whether it has left its loop; read and written
    /// under `pause`, whose broadcast tells `stop()` the thread is done.
    private let thread = Locked((started: false, exited: false))
    private let pause = ConditionLock()

    init(service: ServiceContext) {
        self.service = service
        client = HTTP2Client(configuration: HTTP2Client.Configuration(maxConnectionsPerHost: 4), name: "push-webhooks-io")
    }

    /// Stops claiming and waits (at most `timeout` seconds) until the round in flight is
    /// recorded: posts still running are ended as transport errors and their jobs put back
    /// as pending, so nothing stays leased after the service stopped.
    func stop(timeout: TimeInterval = 10) {
        running.withLock { $0 = false }
        pause.withLock { pause.broadcast() }
        client.shutdown()
        let deadline = Date().addingTimeInterval(timeout)
        pause.withLock {
            while thread.withLock({ $0.started && !$0.exited }), pause.wait(until: deadline) {}
        }
    }

    /// Ends the idle wait early (new webhook jobs were added).
    func wake() {
        pause.withLock { pause.broadcast() }
    }

    /// Starts the dispatcher on its own thread (not the Swift concurrency pool, so busy or
    /// blocked tasks elsewhere in the process never delay retries).
    func start() {
        thread.withLock { $0.started = true }
        ServerThread.start(name: "push-webhooks") { [self] in
            run()
            pause.withLock {
                thread.withLock { $0.exited = true }
                pause.broadcast()
            }
        }
    }

    private func run() {
        while running.withLock({ $0 }) {
            let lease = service.configuration.webhookTimeout * 3 + 5
            let jobs = (try? service.store.claimWebhookJobs(limit: 16, lease: lease, now: service.now)) ?? []
            if jobs.isEmpty {
                let until = Date().addingTimeInterval(service.configuration.pollInterval)
                pause.withLock {
                    while running.withLock({ $0 }), pause.wait(until: until) {}
                }
                continue
            }
            let group = DispatchGroup()
            for job in jobs {
                group.enter()
                post(job) { failure in
                    self.finish(job, failure: failure)
                    group.leave()
                }
            }
            group.wait()
        }
    }

    private func finish(_ job: WebhookJob, failure: String?) {
        let retryAt: Date? = failure.map { _ in
            service.now.addingTimeInterval(
                service.configuration.webhookRetry.delay(attempt: job.attempts))
        }
        if let failure {
            service.logger.warning(
                "webhook \(job.event) id=\(job.id) app=\(job.appId) attempt=\(job.attempts) failed: \(failure); retrying")
        } else {
            service.logger.info("webhook \(job.event) id=\(job.id) app=\(job.appId) delivered attempt=\(job.attempts)")
        }
        do {
            try service.store.finishWebhookJob(id: job.id, retryAt: retryAt, error: failure)
        } catch {
            service.logger.error("webhook job \(job.id) could not be updated; its lease will expire and it will be retried")
        }
    }

    /// Posts the job and calls `done` with nil on success, else why it failed.
    private func post(_ job: WebhookJob, done: @escaping @Sendable (String?) -> Void) {
        guard let app = try? service.store.app(id: job.appId) else { return done("app not found") }
        // The scheme is case-insensitive (RFC 3986), as the admin API's validation accepts it.
        guard let url = app.webhookURL, url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            return done("no webhook URL configured")
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"),
            ("X-Push-Event", job.event),
            ("X-Push-Event-Id", job.id),
            ("X-Push-Attempt", String(job.attempts)),
        ]
        if let sealed = app.sealedWebhookSecret {
            // Never unsigned: a secret that cannot be opened (the secret key changed) keeps the
            // event queued, retried, until the key is restored or the secret is set again.
            guard let secret = try? service.secrets.open(sealed, context: "webhook:\(app.id)") else {
                return done("the webhook secret cannot be decrypted with the current secret key; not sending it unsigned")
            }
            let timestamp = Int64(service.now.timeIntervalSince1970)
            headers.append(("X-Push-Signature", WebhookSignature.header(secret: secret, timestamp: timestamp, body: job.body)))
        }
        let request = HTTPRequest(
            url: url, headers: headers, body: Array(job.body),
            timeoutMilliseconds: Int(service.configuration.webhookTimeout * 1000))
        client.send(request) { result in
            switch result {
            case .success(let response):
                done((200..<300).contains(response.status) ? nil : "HTTP \(response.status)")
            case .failure:
                done("transport error")
            }
        }
    }
}
