import Foundation

// Each call that completes later is written once, as `async` work; its public `async` form
// awaits that work, and its completion-handler form (wrapped in turn by the Objective-C form)
// hands the same result to a completion on the callback queue. The work is queued when the call
// is made, in either form, so calls keep the order they were made in (a token handed over just
// before `registerTokens` is seen by it).
extension CometChatPushNotifications {
    /// Queues `work` behind the calls made before it and returns its result: the `async` forms.
    func queued<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        await withCheckedContinuation { continuation in
            jobs.submit { continuation.resume(returning: await work()) }
        }
    }

    /// Queues `work` behind the calls made before it, now, and hands its result to `completion`
    /// on the callback queue: the completion-handler forms. `work` answers `nil` when there is
    /// nothing to report (the SDK instance is gone).
    func queued<T: Sendable>(_ work: @escaping @Sendable () async -> T?, completion: (@Sendable (T) -> Void)?) {
        jobs.submit { [weak self] in
            guard let result = await work(), let completion else { return }
            self?.onCallbackQueue { completion(result) }
        }
    }

    /// Runs `work` as pending work of the SDK (so the simulated platform's `settle` waits for it)
    /// and returns its result: the `async` forms of calls that are not queued.
    func tracked<T: Sendable>(_ work: () async -> T) async -> T {
        tracker.begin()
        defer { tracker.end() }
        return await work()
    }

    /// Runs `work` in a task, as pending work of the SDK, and hands its result to `completion` on
    /// the callback queue: the completion-handler forms of calls that are not queued.
    func tracked<T: Sendable>(_ work: @escaping @Sendable () async -> T, completion: (@Sendable (T) -> Void)?) {
        tracker.begin()
        Task { [weak self, tracker] in
            defer { tracker.end() }
            let result = await work()
            if let completion { self?.onCallbackQueue { completion(result) } }
        }
    }

    /// Hands `error` to `completion` on the callback queue, if there is a completion.
    func fail<T>(_ completion: (@Sendable (PNResult<T>) -> Void)?, _ error: PNError) {
        if let completion { onCallbackQueue { completion(.failure(error)) } }
    }

    /// The accepted configuration, or ``PNError/Code-swift.enum/notInitialised`` (saying why
    /// `initialize` refused one, if it did).
    func initialisedConfiguration() -> PNResult<PNConfiguration> {
        if let config = configuration { return .success(config) }
        let problem = state.withLock { $0.configurationProblem }
        return .failure(
            .notInitialised(
                problem.map { "initialize(config:) rejected the configuration: \($0)" }
                    ?? "CometChatPushNotifications.initialize(config:) has not run."))
    }
}
