/// Reads `condition` every `interval` until it holds or `timeout` seconds of real time have
/// passed, without holding a thread of Swift's cooperative pool while it sleeps (the service's
/// workers share it); true when it held. It reads the condition once more at the deadline, so a
/// machine too busy to read it in time still sees one that holds.
///
/// The tests' one wait with a deadline: for a condition that must come true within a time, or
/// one whose work shows no progress to follow. Work that does show its progress (jobs
/// delivered, requests answered) is waited for with ``waitWhileProgressing(_:stall:limit:_:until:)``,
/// which never fails a slow machine that is still working. The default is generous: the wait
/// ends as soon as the condition holds, and CI runs the suites in parallel on two cores, where
/// a first TLS handshake once took many seconds.
public func eventually(
    timeout: Double = 30, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1_000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
