import Foundation
import CometChatPushNotificationsSwift

/// Records which receipts were sent, in storage the app and its Notification Service
/// Extension share (the App Group's `UserDefaults` suite), so that a message is marked
/// delivered once, by whichever process sees it first.
///
/// The store only gets and sets single keys; there is no compare-and-swap across processes.
/// A process therefore *claims* a receipt before sending it:
///
/// 1. read the receipt's record: `sent` → skip; a fresh claim by another process → skip
///    (it is sending; a claim older than ``claimLifetime`` is abandoned, e.g. the extension
///    was killed, and may be taken over);
/// 2. write its own claim (a random nonce), read it back, and go on only if the nonce is its
///    own;
/// 3. send; on success write `sent`, on failure remove the claim so the other process (or a
///    later push) may try.
///
/// Residual race: two processes that both read "nothing", then each write and read back
/// their own claim before the other's write lands, both send. Step 2 narrows the window to
/// the few microseconds between one process's write and its read-back; `UserDefaults` offers
/// nothing stronger across processes. The receipts are idempotent on the service, so the
/// cost of losing the race is one duplicate request, never a wrong state.
public struct PNReceiptLedger: Sendable {
    /// The kinds of receipt the ledger tracks.
    public enum Kind: String, Sendable, CaseIterable {
        /// A chat message was delivered.
        case messageDelivered
        /// A campaign push was delivered.
        case campaignDelivered
        /// A campaign push was opened.
        case campaignClicked
    }

    /// The outcome of ``claim(_:id:)``.
    public enum Claim: Sendable, Equatable {
        /// This process holds the claim and must send, then call ``markSent(_:id:nonce:)`` or
        /// ``release(_:id:nonce:)``.
        case granted(nonce: String)
        /// Already sent.
        case alreadySent
        /// Another process is sending it now.
        case heldElsewhere
    }

    private struct Record: Codable {
        var sent: Bool
        var nonce: String
        var at: Date
    }

    /// How long a claim blocks the other process. Longer than a send with its retries in the
    /// extension (about 30 s).
    public static let claimLifetime: TimeInterval = 60
    /// How long records are kept (APNs keeps an undelivered push for at most about 30 days).
    public static let retention: TimeInterval = 31 * 24 * 3600
    /// The most ids the index keeps for clean-up.
    static let indexLimit = 500

    let store: PNKeyValueStore
    let now: @Sendable () -> Date
    let makeNonce: @Sendable () -> String

    /// Creates a ledger over `store` (the App Group suite, or the app's own store without one).
    public init(
        store: PNKeyValueStore, now: @escaping @Sendable () -> Date,
        makeNonce: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.store = store
        self.now = now
        self.makeNonce = makeNonce
    }

    static func key(_ kind: Kind, _ id: String) -> String { "com.cometchat.push.receipt.\(kind.rawValue).\(id)" }
    static let indexKey = "com.cometchat.push.receipt.index"

    /// Tries to claim the receipt `kind` for `id`.
    public func claim(_ kind: Kind, id: String) -> Claim {
        let key = Self.key(kind, id)
        let time = now()
        if let record = read(key) {
            if record.sent { return .alreadySent }
            if time.timeIntervalSince(record.at) < Self.claimLifetime { return .heldElsewhere }
        }
        let nonce = makeNonce()
        write(Record(sent: false, nonce: nonce, at: time), key)
        guard let back = read(key), back.nonce == nonce, !back.sent else {
            return read(key)?.sent == true ? .alreadySent : .heldElsewhere
        }
        remember(key)
        return .granted(nonce: nonce)
    }

    /// The receipt was sent.
    public func markSent(_ kind: Kind, id: String, nonce: String) {
        write(Record(sent: true, nonce: nonce, at: now()), Self.key(kind, id))
    }

    /// The send failed: drop the claim if it is still ours.
    public func release(_ kind: Kind, id: String, nonce: String) {
        let key = Self.key(kind, id)
        if read(key)?.nonce == nonce { store.set(nil, forKey: key) }
    }

    /// Whether the receipt is recorded as sent.
    public func isSent(_ kind: Kind, id: String) -> Bool { read(Self.key(kind, id))?.sent == true }

    private func read(_ key: String) -> Record? {
        store.data(forKey: key).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
    }

    private func write(_ record: Record, _ key: String) {
        store.set(try? JSONEncoder().encode(record), forKey: key)
    }

    /// Adds `key` to the index and deletes records past ``retention`` or beyond ``indexLimit``.
    /// The index is only for clean-up: losing an entry in a race leaves one record behind.
    private func remember(_ key: String) {
        var index = (store.data(forKey: Self.indexKey).flatMap { try? JSONDecoder().decode([String].self, from: $0) }) ?? []
        index.removeAll { $0 == key }
        index.append(key)
        let time = now()
        var kept: [String] = []
        for (position, entry) in index.enumerated() {
            let expired = read(entry).map { time.timeIntervalSince($0.at) > Self.retention } ?? true
            if (expired && entry != key) || position < index.count - Self.indexLimit {
                store.set(nil, forKey: entry)
            } else {
                kept.append(entry)
            }
        }
        store.set(try? JSONEncoder().encode(kept), forKey: Self.indexKey)
    }
}
