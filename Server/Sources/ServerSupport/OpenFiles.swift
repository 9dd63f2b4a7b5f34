#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`): every connection the service holds is
/// one, and the usual soft limit of 1,024 is far below what an epoll server can serve.
public enum OpenFiles {
    /// The soft limit now, or nil when it cannot be read or is unlimited.
    public static var current: Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (what an unprivileged process may do). Returns
    /// the soft limit before and after; both are equal when nothing changed.
    @discardableResult
    public static func raiseToHardLimit() -> (before: Int, after: Int)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let before = Int(clamping: limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (before, before) }
        return (before, Int(clamping: limit.rlim_cur))
    }
}
