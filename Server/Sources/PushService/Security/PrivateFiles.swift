#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerSupport

/// The modes of what the service keeps in its data directory: the directory 0700, its files
/// 0600 (the SQLite database and its `-wal`, `-shm` and `-journal`, `admin.key`, `secret.key`,
/// `dev-seed.json`). New ones are created so; ones an older version (or a careless copy) left
/// readable by others are tightened at start, one info line per path changed (a warning when
/// it cannot be changed).
///
/// Only what the service owns is touched: those names in the data directory, and the directory
/// itself when it belongs to the service's user and is not a shared one (sticky bit, like
/// `/tmp`). A `--database`, `--admin-key-file` or `--secret-key-file` elsewhere is the
/// operator's choice and left as it is (created 0600 when the service creates it).
enum PrivateFiles {
    /// The permission bits of a private file and of a private directory.
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    /// The files of the data directory the service owns, besides the SQLite database's.
    static let ownedNames = ["admin.key", "secret.key", DevSeed.fileName]

    /// Creates the data directory (0700; its parents as usual) or tightens it, and tightens
    /// the files the service owns in it: those of ``ownedNames``, and `database` (a SQLite path)
    /// with its `-wal`, `-shm` and `-journal` files when it lies in the directory.
    static func secureDataDirectory(_ directory: String, database: String?, logger: Logger) throws {
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, directoryMode)
        } else {
            tighten(directory, to: directoryMode, directory: true, logger: logger)
        }
        var files = ownedNames.map { directory.appendingPathComponent($0) }
        if let database, isInside(database, directory: directory) {
            files += ["", "-wal", "-shm", "-journal"].map { database + $0 }
        }
        for file in files { tighten(file, to: fileMode, directory: false, logger: logger) }
    }

    /// Writes `text` to `path` as a private file: a new file of mode 0600 in the same directory,
    /// renamed over `path`, so no reader ever sees it with other modes or half written.
    static func write(_ text: String, to path: String) throws {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw ConfigurationError.invalid("cannot write \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { writeBytes(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            written += count
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ConfigurationError.invalid("cannot write \(path)")
        }
    }

    /// Removes the group and other bits of `path` (not following a symbolic link) when it exists,
    /// is what it should be (a regular file, or a directory that is the process's own and not
    /// sticky), and has some; logs the change.
    private static func tighten(_ path: String, to mode: mode_t, directory: Bool, logger: Logger) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        guard kind == (directory ? S_IFDIR : S_IFREG) else { return }
        if directory, info.st_uid != geteuid() || info.st_mode & S_ISVTX != 0 { return }
        let current = info.st_mode & 0o7777
        guard current & ~mode != 0 else { return }
        let tightened = current & mode
        guard chmod(path, tightened) == 0 else {
            logger.warning("could not tighten \(path) from \(octal(current)) to \(octal(tightened)): \(String(cString: strerror(errno)))")
            return
        }
        logger.info("tightened \(path) from \(octal(current)) to \(octal(tightened))")
    }

    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Whether `path` is in `directory` (both made absolute, symbolic links resolved).
    static func isInside(_ path: String, directory: String) -> Bool {
        let file = StoreLocation.absolute(path)
        let folder = StoreLocation.absolute(directory)
        return file.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }
}

/// `write(2)` (the name is taken inside ``PrivateFiles``).
private func writeBytes(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}
