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
import Delivery
import HTTPServer
import PushCore
import PushStore
import ServerSupport

/// What every part of the running service shares.
final class ServiceContext: Sendable {
    let configuration: ServiceConfiguration
    let store: any ServiceStore
    let secrets: SecretBox
    /// The key of private pushes' keyed ids, derived from the sealing key (issue 28).
    let pushIds: PushIdKeys
    let adminKey: String
    let logger: Logger
    let rateLimiter: RateLimiter
    /// The API's clock: what requests stamp (jobs, events, idempotency records); the webhook
    /// dispatcher claims and signs with it too, as it compares with what the API stamped.
    let clock: @Sendable () -> Date
    /// The clock of the background workers' own time (idle waits, leases, the retention
    /// cutoff) and of the rate limiter.
    let workerClock: any ServiceClock
    /// The delivery engine's view of providers (tests may attach another).
    let deliveryStatus = Locked<(any DeliveryStatus)?>(nil)
    /// The service's delivery engine: `/healthz` and `/metrics` read it.
    let delivery = Locked<DeliveryService?>(nil)
    /// Rows the retention purge deleted since start, by kind (`/metrics`).
    let retentionDeleted = Locked(RetentionCounts())
    /// The HTTP server, once it runs: its connection counts go to `/metrics`.
    let httpServer = Locked<HTTPServer?>(nil)
    /// Wakes this instance's group send worker (``GroupSendWorker``) when a send to a large
    /// group was accepted; other instances find it at their next poll.
    let groupSendsWake = Locked<(@Sendable () -> Void)?>(nil)

    init(
        configuration: ServiceConfiguration, store: any ServiceStore, secrets: SecretBox, adminKey: String, logger: Logger,
        clock: @escaping @Sendable () -> Date = Date.init, workerClock: any ServiceClock = SystemClock()
    ) {
        self.configuration = configuration
        self.store = store
        self.secrets = secrets
        self.pushIds = PushIdKeys(secrets: secrets)
        self.adminKey = adminKey
        self.logger = logger
        self.rateLimiter = RateLimiter(
            perMinute: configuration.rateLimitPerMinute, burst: configuration.rateLimitBurst, clock: workerClock)
        self.clock = clock
        self.workerClock = workerClock
    }

    var now: Date { clock() }

    /// Wakes the group send worker (a send to a large group was accepted).
    func wakeGroupSends() {
        groupSendsWake.withLock { $0 }?()
    }

    /// A new random id for jobs, requests and messages: a lowercase version-4 UUID.
    func newId() -> String {
        RandomIds.shared.next()
    }
}

/// Version-4 UUID strings from kernel randomness fetched 4 KB at a time (`UUID()` opens,
/// reads and closes `/dev/urandom` for each id, which dominated creating a large send's jobs).
final class RandomIds: Sendable {
    static let shared = RandomIds()

    struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var used = 4096
    }

    private let pool = Locked(Pool())

    /// The next id, e.g. `1b4e28ba-2fa1-4d2e-883f-0016d3cca427`.
    func next() -> String {
        var raw = pool.withLock { pool -> (UInt64, UInt64) in
            if pool.used + 16 > pool.bytes.count {
                Self.fill(&pool.bytes)
                pool.used = 0
            }
            var value = (UInt64(0), UInt64(0))
            withUnsafeMutableBytes(of: &value) { target in
                pool.bytes.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[pool.used..<pool.used + 16]))
                }
            }
            pool.used += 16
            return value
        }
        return withUnsafeMutableBytes(of: &raw) { bytes in
            bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
            let digits = Array("0123456789abcdef".utf8)
            return String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int(bytes[index] >> 4)]
                    out[position + 1] = digits[Int(bytes[index] & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    private static func fill(_ bytes: inout [UInt8]) {
        // glibc's arc4random_buf reads the kernel's getrandom(2); one call per 4 KB.
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { arc4random_buf(base, buffer.count) }
        }
    }
}
