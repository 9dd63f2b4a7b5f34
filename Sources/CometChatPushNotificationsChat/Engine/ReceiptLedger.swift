import Foundation
@_spi(PNProducts) import CometChatPushNotificationsSwift

/// Records which receipts were sent, in a directory the app and its Notification Service
/// Extension share (in the App Group's container; the app's own container without one), so
/// that a message is marked delivered once, by whichever thread of whichever process sees it
/// first.
///
/// Every decision rests on one atomic file-system operation: creating a file with
/// `open(O_CREAT | O_EXCL)`, which exactly one caller wins, whatever the thread or process.
/// Files of one receipt (`<kind>_<id>` below):
///
/// - `<kind>_<id>.claim.<g>`: the claim of generation `g` (0, 1, …), holding the time it was
///   made. Whoever creates it sends the receipt.
/// - `<kind>_<id>.released.<g>`: generation `g`'s send failed; the next sighting may claim
///   generation `g + 1`.
/// - `<kind>_<id>.sent`: the receipt was sent.
///
/// ``claim(_:id:)`` reads the newest generation: no claim yet, or the newest released, or
/// older than ``claimLifetime`` (its process was killed while sending) → it tries to create
/// the next generation's claim file; anything else → `heldElsewhere`. Two callers that both
/// try the same generation race on `O_EXCL`: one is granted, the other sees the winner's claim.
/// Nothing is ever read, changed and written back, and no lock is held while sending (iOS kills
/// a suspended app that holds a file lock in a shared container).
///
/// Records older than ``retention`` are deleted, at most once per ``pruneInterval``.
public struct PNReceiptLedger: Sendable {
    /// The kinds of receipt the ledger tracks.
    public enum Kind: String, Sendable, CaseIterable {
        /// A chat message was delivered.
        case messageDelivered
        /// A campaign push was delivered.
        case campaignDelivered
        /// A campaign push was opened.
        case campaignClicked
        /// A push of a self-hosted service was opened (its push id's opened call).
        case pushOpened
    }

    /// The outcome of ``claim(_:id:)``.
    public enum Claim: Sendable, Equatable {
        /// This caller holds claim `generation` and must send, then call
        /// ``markSent(_:id:generation:)`` or ``release(_:id:generation:)``.
        case granted(generation: Int)
        /// Already sent.
        case alreadySent
        /// Another thread or process is sending it now.
        case heldElsewhere
    }

    /// How long a claim blocks the others. Longer than a send with its retries in the
    /// extension (about 30 s).
    public static let claimLifetime: TimeInterval = 60
    /// How long records are kept (APNs keeps an undelivered push for at most about 30 days).
    public static let retention: TimeInterval = 31 * 24 * 3600
    /// How often a process looks for records past ``retention``.
    public static let pruneInterval: TimeInterval = 3600
    /// The most generations of one receipt (sends that failed) the ledger tries.
    static let generationLimit = 1000

    /// The directory of the records.
    public let directory: URL
    let now: @Sendable () -> Date

    /// Creates a ledger in `directory` (created on first use).
    ///
    /// - Parameters:
    ///   - directory: the ledger's directory; see ``directory(inContainer:)``.
    ///   - now: the time claims and records are stamped with.
    public init(directory: URL, now: @escaping @Sendable () -> Date) {
        self.directory = directory
        self.now = now
    }

    /// The ledger's directory inside a container directory (the App Group's, or the app's own).
    public static func directory(inContainer container: URL) -> URL {
        container.appendingPathComponent("CometChatPushNotifications", isDirectory: true)
            .appendingPathComponent("Receipts", isDirectory: true)
    }

    // MARK: Claims

    /// Tries to claim the receipt `kind` for `id`.
    public func claim(_ kind: Kind, id: String) -> Claim {
        let base = Self.baseName(kind, id)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for _ in 0..<8 {
            if exists(base + ".sent") { return .alreadySent }
            let next: Int
            if let newest = newestGeneration(base) {
                guard exists(base + ".released.\(newest)") || isAbandoned(base + ".claim.\(newest)") else {
                    return .heldElsewhere
                }
                next = newest + 1
            } else {
                next = 0
            }
            guard next < Self.generationLimit else { return .heldElsewhere }
            guard createExclusively(base + ".claim.\(next)") else { continue }  // another caller won `next`
            // A holder that finished between our first look and our claim wrote `.sent` first.
            if exists(base + ".sent") {
                release(kind, id: id, generation: next)
                return .alreadySent
            }
            pruneIfDue()
            return .granted(generation: next)
        }
        return .heldElsewhere
    }

    /// The receipt was sent.
    public func markSent(_ kind: Kind, id: String, generation: Int) {
        stampFile(Self.baseName(kind, id) + ".sent", exclusive: false)
    }

    /// The send failed: the next sighting may claim the receipt again. A late release of a
    /// generation that was taken over changes nothing.
    public func release(_ kind: Kind, id: String, generation: Int) {
        stampFile(Self.baseName(kind, id) + ".released.\(generation)", exclusive: false)
    }

    /// Whether the receipt is recorded as sent.
    public func isSent(_ kind: Kind, id: String) -> Bool { exists(Self.baseName(kind, id) + ".sent") }

    /// The newest claim generation of `base`, probing 0, 1, … (generations are created in
    /// order, each only after the one before it).
    private func newestGeneration(_ base: String) -> Int? {
        var next = 0
        while next < Self.generationLimit, exists(base + ".claim.\(next)") { next += 1 }
        return next == 0 ? nil : next - 1
    }

    /// Whether a claim is older than ``claimLifetime``. A claim whose time cannot be read yet
    /// (empty, or cut short) was just created (its creator writes the time right after `open`)
    /// and counts as fresh, unless the file itself is older than the lifetime (its creator died
    /// before it finished writing).
    private func isAbandoned(_ name: String) -> Bool {
        if let stamped = stamp(name) { return now().timeIntervalSince(stamped) > Self.claimLifetime }
        guard let modified = modificationDate(name) else { return false }
        return Date().timeIntervalSince(modified) > Self.claimLifetime
    }

    // MARK: Pruning

    /// Deletes the records of receipts whose newest file is older than ``retention``, when
    /// the last pruning is more than ``pruneInterval`` ago. Returns how many receipts it forgot.
    @discardableResult
    public func pruneIfDue() -> Int {
        let marker = ".pruned"
        if let last = stamp(marker), now().timeIntervalSince(last) < Self.pruneInterval { return 0 }
        stampFile(marker, exclusive: false)
        return prune()
    }

    /// Deletes the records of receipts whose newest file is older than ``retention``.
    /// Returns how many receipts it forgot.
    @discardableResult
    public func prune() -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var files: [String: [String]] = [:]
        for name in names where !name.hasPrefix(".") {
            guard let base = name.split(separator: ".", maxSplits: 1).first else { continue }
            files[String(base), default: []].append(name)
        }
        let time = now()
        var forgotten = 0
        for (_, group) in files {
            let old = group.allSatisfy { name in
                if let stamped = stamp(name) { return time.timeIntervalSince(stamped) > Self.retention }
                return modificationDate(name).map { Date().timeIntervalSince($0) > Self.retention } ?? true
            }
            guard old else { continue }
            // `.sent` last: until it goes, a late sighting still sees the receipt as sent.
            for name in group.sorted(by: { !$0.hasSuffix(".sent") && $1.hasSuffix(".sent") }) { remove(name) }
            forgotten += 1
        }
        return forgotten
    }

    // MARK: Files

    /// `<kind>_<id>` with every byte outside `[A-Za-z0-9-]` as `%XX`; a long id as its hash.
    static func baseName(_ kind: Kind, _ id: String) -> String {
        var encoded = PNPercentEncoding.encode(id) {
            PNPercentEncoding.isASCIILetterOrDigit($0) || $0 == UInt8(ascii: "-")
        }
        if encoded.utf8.count > 160 {
            encoded = "h" + String(PNFNV1a.hash64(id.utf8), radix: 16) + "-" + String(id.utf8.count)
        }
        return kind.rawValue + "_" + encoded
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func exists(_ name: String) -> Bool { access(path(name), F_OK) == 0 }

    /// Creates `name` with the current time in it, only if it does not exist yet: `O_EXCL`
    /// makes exactly one caller succeed. Returns whether this caller created it.
    private func createExclusively(_ name: String) -> Bool { stampFile(name, exclusive: true) }

    /// Creates or overwrites `name` with the current time (or, with `exclusive`, creates it
    /// only if it does not exist). Returns whether the file was written.
    @discardableResult
    private func stampFile(_ name: String, exclusive: Bool) -> Bool {
        let flags = O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC)
        let descriptor = open(path(name), flags, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array("\(now().timeIntervalSince1970)\n".utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return true
    }

    /// The time written in `name`, if it can be read. Only a whole stamp counts: one that ends
    /// with its newline (a reader racing the writer may see a prefix, which would read as a
    /// much older time).
    private func stamp(_ name: String) -> Date? {
        guard let data = FileManager.default.contents(atPath: path(name)), data.last == UInt8(ascii: "\n"),
            let seconds = Double(String(decoding: data.dropLast(), as: UTF8.self))
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    private func modificationDate(_ name: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path(name)))?[.modificationDate] as? Date
    }

    private func remove(_ name: String) { unlink(path(name)) }
}
