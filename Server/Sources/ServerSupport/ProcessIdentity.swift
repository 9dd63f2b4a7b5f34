#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who holds a lease on a job: this machine's boot, this process's id and the moment it
/// started, as `<boot id>/<pid>/<start time>`. A lease written by a process that is no
/// longer running (the machine rebooted, the pid is gone, or the pid now belongs to a
/// process started later) can be taken over at once instead of waiting for it to expire.
public enum ProcessIdentity {
    /// This process's identity.
    public static let current: String = identity(pid: getpid()) ?? "unknown/\(getpid())/0"

    /// Whether the process that wrote `owner` still runs. Unknown formats count as running
    /// (their leases then simply expire).
    public static func isRunning(_ owner: String) -> Bool {
        if owner == current { return true }
        let parts = owner.split(separator: "/").map(String.init)
        guard parts.count == 3, let pid = Int32(parts[1]) else { return true }
        #if os(Linux)
        guard let boot = bootId, parts[0] == boot else { return parts[0] == "unknown" }
        // Same boot: the pid must exist and have started at the recorded moment.
        guard let now = identity(pid: pid) else { return false }
        return now == owner
        #else
        return kill(pid, 0) == 0 || errno == EPERM
        #endif
    }

    /// The kernel's id of this boot (Linux), nil elsewhere.
    static let bootId: String? = readFile("/proc/sys/kernel/random/boot_id")?.trimmingWhitespace

    static func identity(pid: Int32) -> String? {
        #if os(Linux)
        guard let boot = bootId, let stat = readFile("/proc/\(pid)/stat") else { return nil }
        // Field 22 (start time in clock ticks since boot) follows the parenthesised name.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        return "\(boot)/\(pid)/\(fields[19])"
        #else
        return "host/\(pid)/0"
        #endif
    }

    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
