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
/// Apps are kept apart: each app has at most `--webhook-concurrency` posts in flight (of
/// ``totalInFlight``), claims skip the apps at their limit, and a post that ends frees its
/// slot at once. A receiver that hangs holds its own app's slots until the timeout; the events
/// of other apps are claimed and posted meanwhile.
///
/// Posts go through libcurl (`HTTP2Client`: HTTP/1.1, or HTTP/2 where TLS offers it), not
/// Foundation's URLSession, which on Linux stops the process on some libcurl errors.
///
/// It is a ``BackgroundWorker`` on the service's worker clock: a pass claims what is due for the
/// apps with a free slot and starts those posts; with nothing to claim it idles for
/// `--poll-interval` (new jobs, and a post that frees a slot it was waiting for, wake it). Claims,
/// retry times and signatures use the service's clock, as the API that queued the jobs does.
///
/// Every post carries the webhook ``DestinationPolicy`` (``ServiceConfiguration/webhookDestinations``):
/// a URL saved before the admin API checked destinations, or a name that now resolves to a
/// private address, is refused at connection time ("destination refused: 127.0.0.1 is
/// loopback" in the job's last error); the event stays queued and is retried like any failure.
final class WebhookDispatcher: Sendable {
    /// Posts in flight across all apps.
    static let totalInFlight = 64

    /// Posts in flight, per app and in all.
    /// `@unchecked Sendable`: the fields are only touched inside the worker's lock.
    private final class Slots: @unchecked Sendable {
        var byApp: [String: Int] = [:]
        var total = 0
    }

    private let service: ServiceContext
    private let client: HTTP2Client
    /// Where posts may connect (checked at every connection).
    private let destinations: DestinationPolicy
    private let worker: BackgroundWorker
    /// Changed under the worker's lock: a post that ends wakes the worker when it made room.
    private let slots = Slots()
    /// Whether the last claim failed (the outage is logged once, not once per poll).
    private let storeFailing = Locked(false)

    init(service: ServiceContext) {
        self.service = service
        destinations = service.configuration.webhookDestinations
        // Connections per host: an app's own limit, twice, so two apps whose webhooks share a
        // host do not queue behind each other's slow posts.
        var configuration = HTTP2Client.Configuration(maxConnectionsPerHost: service.configuration.webhookConcurrency * 2)
        // A receiver that hangs must hold only its own posts, not queue the app's others.
        configuration.waitsForMultiplexing = false
        client = HTTP2Client(configuration: configuration, name: "push-webhooks-io")
        worker = BackgroundWorker(name: "push-webhooks", idle: service.configuration.pollInterval, clock: service.workerClock)
    }

    /// Stops claiming and waits (at most `timeout` seconds in all) until the posts in flight are
    /// recorded: they are ended as transport errors and their jobs put back as pending, so
    /// nothing stays leased after the service stopped.
    func stop(timeout: TimeInterval = 10) {
        let clock = worker.clock
        let deadline = clock.now.addingTimeInterval(timeout)
        worker.stop(timeout: timeout)
        // The client's shutdown ends every post in flight; wait until each is recorded.
        client.shutdown()
        worker.lock.withLock {
            while slots.total > 0, clock.wait(on: worker.lock, until: deadline) {}
        }
    }

    /// Ends the idle wait early (new webhook jobs were added).
    func wake() {
        worker.wake()
    }

    /// Starts the dispatcher's worker (a thread of its own, not the Swift concurrency pool, so
    /// busy or blocked tasks elsewhere in the process never delay retries).
    func start() {
        worker.start { [self] in pass() }
    }

    /// Claims what is due for the apps with a free slot and starts those posts; with nothing to
    /// claim, idles until new jobs, a freed slot or the next poll.
    private func pass() -> BackgroundWorker.Next {
        let perApp = service.configuration.webhookConcurrency
        let lease = service.configuration.webhookTimeout * 3 + 5
        let (busy, free) = worker.lock.withLock { (slots.byApp, Self.totalInFlight - slots.total) }
        var jobs: [WebhookJob] = []
        if free > 0 {
            do {
                jobs = try service.store.claimWebhookJobs(
                    limit: min(16, free), lease: lease, now: service.now, perApp: perApp, busy: busy)
                if storeFailing.withLock({ $0 }) { service.logger.info("webhook outbox readable again") }
                storeFailing.withLock { $0 = false }
            } catch {
                // Once per outage, not once per poll.
                if !storeFailing.withLock({ $0 }) {
                    service.logger.error("webhook outbox could not be read (retried every poll): \(error)")
                }
                storeFailing.withLock { $0 = true }
            }
        }
        guard !jobs.isEmpty else { return .idle }
        worker.lock.withLock {
            for job in jobs { slots.byApp[job.appId, default: 0] += 1 }
            slots.total += jobs.count
        }
        for job in jobs {
            post(job) { failure in
                self.finish(job, failure: failure)
                self.release(job.appId, perApp: perApp)
            }
        }
        return .again
    }

    /// Frees the app's slot; wakes the worker when that made room it was waiting for (the app
    /// was at its limit, or every slot was taken), and `stop()` when the last post ended.
    private func release(_ appId: String, perApp: Int) {
        worker.lock.withLock {
            let count = slots.byApp[appId] ?? 0
            let wasFull = count >= perApp || slots.total >= Self.totalInFlight
            slots.byApp[appId] = count > 1 ? count - 1 : nil
            slots.total -= 1
            if wasFull || slots.total == 0 { worker.wakeInsideLock() }
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
        // Any other URL, scheme included, is the destination policy's to refuse (with the reason).
        guard let url = app.webhookURL, !url.isEmpty else { return done("no webhook URL configured") }
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
        let request = OutboundRequest(
            url: url, headers: headers, body: Array(job.body),
            timeoutMilliseconds: Int(service.configuration.webhookTimeout * 1000), destinationPolicy: destinations)
        client.send(request) { result in
            switch result {
            case .success(let response):
                done((200..<300).contains(response.status) ? nil : "HTTP \(response.status)")
            case .failure(let error) where error.isDestinationRefused:
                done(error.message)
            case .failure(let error):
                done("transport error: \(error.message)")
            }
        }
    }
}
