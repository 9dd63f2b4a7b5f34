import Foundation
import PushCore
import PushStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts queued events to each app's webhook. A job leaves the outbox only after a 2xx
/// answer; anything else (no URL yet, transport error, non-2xx) retries it with
/// exponential back-off, forever, so no event is dropped while the service runs. A job
/// leased by a process that died is claimed again when its lease ends.
final class WebhookDispatcher: Sendable {
    private let service: ServiceContext
    private let session: URLSession
    private let running = Locked(true)

    init(service: ServiceContext) {
        self.service = service
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = service.configuration.webhookTimeout
        configuration.timeoutIntervalForResource = service.configuration.webhookTimeout
        session = URLSession(configuration: configuration)
    }

    func stop() {
        running.withLock { $0 = false }
        session.invalidateAndCancel()
    }

    /// Starts the dispatcher on its own thread (not the Swift concurrency pool, so busy or
    /// blocked tasks elsewhere in the process never delay retries).
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "push-webhooks"
        thread.start()
    }

    private func run() {
        while running.withLock({ $0 }) {
            let lease = service.configuration.webhookTimeout * 3 + 5
            let jobs = (try? service.store.claimWebhookJobs(limit: 16, lease: lease, now: service.now)) ?? []
            if jobs.isEmpty {
                Thread.sleep(forTimeInterval: service.configuration.pollInterval)
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
                WebhookDispatcherBackoff.delay(
                    attempts: job.attempts, base: service.configuration.webhookRetryBase, cap: service.configuration.webhookRetryMax))
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
        guard let urlText = app.webhookURL, let url = URL(string: urlText) else { return done("no webhook URL configured") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = job.body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(job.event, forHTTPHeaderField: "X-Push-Event")
        request.setValue(job.id, forHTTPHeaderField: "X-Push-Event-Id")
        request.setValue(String(job.attempts), forHTTPHeaderField: "X-Push-Attempt")
        if let sealed = app.sealedWebhookSecret, let secret = try? service.secrets.open(sealed, context: "webhook:\(app.id)") {
            let timestamp = Int64(service.now.timeIntervalSince1970)
            request.setValue(
                WebhookSignature.header(secret: secret, timestamp: timestamp, body: job.body), forHTTPHeaderField: "X-Push-Signature")
        }
        session.dataTask(with: request) { _, response, error in
            guard error == nil else { return done("transport error") }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done((200..<300).contains(status) ? nil : "HTTP \(status)")
        }.resume()
    }
}

/// The webhook retry schedule.
public enum WebhookDispatcherBackoff {
    /// The delay before attempt `attempts + 1`: base × 2^(attempts−1), capped, ±10 % jitter.
    public static func delay(attempts: Int, base: Double, cap: Double) -> Double {
        let exponent = Double(min(max(attempts - 1, 0), 30))
        let delay = min(cap, base * pow(2, exponent))
        return delay * Double.random(in: 0.9...1.1)
    }
}
