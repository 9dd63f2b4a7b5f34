#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushStore
import ServerSupport

/// Where a store lives, as an operator writes it (`--database`, `PUSH_DATABASE_URL`,
/// `migrate-store --from/--to`):
///
/// - `postgres://user[:password]@host[:port]/database[?…]` (or `postgresql://…`): a
///   PostgreSQL database, as a libpq connection URI;
/// - `sqlite:/path/push.sqlite`, `sqlite:///path/push.sqlite` or a plain path: a SQLite file.
///
/// A URL's password is never part of what this type prints: ``description`` and
/// ``redact(_:)`` replace it with `***`.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL database (the URL as given, password included: pass it to libpq only).
    case postgres(url: String)

    /// Why a location cannot be used.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, with any password masked.
        public let description: String
    }

    /// Reads a location: a `postgres://` or `postgresql://` URL, `sqlite:<path>`, or a path.
    /// Another `scheme://` is refused rather than taken for a file name.
    public static func parse(_ text: String) throws -> StoreLocation {
        let trimmed = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        guard !trimmed.isEmpty else { throw ParseError(description: "the store location is empty") }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            return .postgres(url: trimmed)
        }
        if lower.hasPrefix("sqlite:") {
            var path = String(trimmed.dropFirst("sqlite:".count))
            // sqlite:///abs/path is the URL form of /abs/path.
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else { throw ParseError(description: "sqlite: needs a file path (sqlite:/var/lib/push/push.sqlite)") }
            return .sqlite(path: path)
        }
        if let scheme = trimmed.firstRange(of: "://"), !trimmed[..<scheme.lowerBound].contains("/") {
            throw ParseError(
                description: "\(redact(trimmed)): unsupported store \"\(trimmed[..<scheme.lowerBound])\"; "
                    + "use postgres://…, sqlite:<path> or a file path")
        }
        return .sqlite(path: trimmed)
    }

    /// The location with any password replaced by `***` (for messages and logs).
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:" + path
        case .postgres(let url): return Self.redact(url)
        }
    }

    /// A short name of the kind of store: `SQLite` or `PostgreSQL`.
    public var kind: String {
        switch self {
        case .sqlite: return "SQLite"
        case .postgres: return "PostgreSQL"
        }
    }

    /// Whether two locations name the same store: the same file (after resolving the path,
    /// and by inode when both exist), or the same PostgreSQL host, port, database and options
    /// whoever connects. (Two spellings of one server, such as `localhost` and `127.0.0.1`,
    /// are not recognised: `migrate-store` also refuses a destination that holds rows.)
    public func isSameStore(as other: StoreLocation) -> Bool {
        switch (self, other) {
        case (.sqlite(let a), .sqlite(let b)):
            let (pathA, pathB) = (Self.absolute(a), Self.absolute(b))
            if pathA == pathB { return true }
            guard let idA = Self.fileIdentity(pathA), let idB = Self.fileIdentity(pathB) else { return false }
            return idA == idB
        case (.postgres(let a), .postgres(let b)):
            return Self.serverIdentity(a) == Self.serverIdentity(b)
        default:
            return false
        }
    }

    /// Opens the store (creating a SQLite file, and migrating either schema, as the service
    /// does). `poolSize`: the PostgreSQL connection pool; `sqliteSynchronousFull`: SQLite's
    /// `synchronous=FULL` (the service's default); `logger`: where a PostgreSQL store tells of
    /// its listener's lost connection.
    public func open(poolSize: Int = 8, sqliteSynchronousFull: Bool = true, logger: Logger) throws -> any ServiceStore {
        switch self {
        case .sqlite(let path):
            return try SQLiteStore(path: path, synchronousFull: sqliteSynchronousFull)
        case .postgres(let url):
            return try PostgresStore(url: url, poolSize: poolSize, logger: logger)
        }
    }

    /// `text` with the password of every `scheme://user:password@` in it, and every
    /// `password=` value, replaced by `***`. Use it on any message that may quote a URL.
    public static func redact(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let scheme = rest.firstRange(of: "://") {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            // The authority ends at the first '/', '?', '#' or whitespace; its user part at its last '@'.
            let authorityEnd = rest.firstIndex { "/?#".contains($0) || $0.isWhitespace } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result += authority[...colon] + "***" + authority[at...]
            } else {
                result += authority
            }
            rest = rest[authorityEnd...]
        }
        result += rest
        return redactPasswordParameters(result)
    }

    /// Replaces the value of each `password=` (a URL query parameter or a libpq keyword,
    /// in any letter case).
    static func redactPasswordParameters(_ text: String) -> String {
        let key = Array("password=".utf8)
        var bytes = Array(text.utf8)
        var index = 0
        while index + key.count <= bytes.count {
            let matches = (0..<key.count).allSatisfy { bytes[index + $0] | 0x20 == key[$0] | 0x20 }
            // A key starts a parameter: at the start, or after '?', '&', ';' or whitespace.
            let starts = index == 0 || [UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: ";"), 32, 9, 10].contains(bytes[index - 1])
            guard matches, starts else {
                index += 1
                continue
            }
            let valueStart = index + key.count
            var valueEnd = valueStart
            let stops: [UInt8] = [UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ";"), 32, 9, 10, 13]
            while valueEnd < bytes.count, !stops.contains(bytes[valueEnd]) { valueEnd += 1 }
            if valueEnd > valueStart { bytes.replaceSubrange(valueStart..<valueEnd, with: Array("***".utf8)) }
            index = valueStart + 3
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The path made absolute with symbolic links resolved (the file itself may not exist yet:
    /// then its directory is resolved).
    static func absolute(_ path: String) -> String {
        if let resolved = realPath(path) { return resolved }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let resolvedDirectory = realPath(directory) else { return path }
        return (resolvedDirectory == "/" ? "" : resolvedDirectory) + "/" + name
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func fileIdentity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// Host(s), port, database and query of a PostgreSQL URL, without the user and password,
    /// lowercased where PostgreSQL is case-insensitive, the default port made explicit.
    static func serverIdentity(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        var hosts = String(rest[..<authorityEnd])
        if let at = hosts.lastIndex(of: "@") { hosts = String(hosts[hosts.index(after: at)...]) }
        let hostList = hosts.lowercased().split(separator: ",").map { host -> String in
            // An IPv6 literal keeps its colons inside brackets.
            let afterBracket = host.lastIndex(of: "]").map { host[$0...] } ?? host[...]
            return afterBracket.contains(":") ? String(host) : host + ":5432"
        }
        var path = String(rest[authorityEnd...])
        if path.hasPrefix("/") == false { path = "/" + path }
        return hostList.joined(separator: ",") + path
    }
}
