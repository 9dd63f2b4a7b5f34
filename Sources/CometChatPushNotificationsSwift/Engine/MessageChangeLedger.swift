import Foundation

/// The edits and deletions this device has applied, kept for a while: a deletion's entry is the
/// tombstone that keeps its message from being presented when its push arrives late (after the
/// deletion overtook it), and each entry keeps the same change, arriving twice (as a push and
/// in the changes feed), from reaching the app's delegate twice.
///
/// Bounded: at most ``capacity`` entries (the oldest go first), each forgotten after
/// ``lifetime``, the service's default retention (`--retention-days 7`): a message push older
/// than that is no longer sent again. Persistent in plain storage (no secret: ids only), so a
/// tombstone outlives the process that a background push woke.
final class MessageChangeLedger: Sendable {
    /// One message's entry.
    struct Entry: Codable, Equatable, Sendable {
        var conversationId: String
        var messageId: String
        /// Its notification's identifier (the push's collapse id), when known.
        var notificationId: String?
        /// Deleted: a tombstone.
        var deleted: Bool
        /// The time of the latest edit applied (`distantPast` for an edit without one; `nil`: none).
        var editedAt: Date?
        /// When this device last recorded it; the entry is forgotten ``lifetime`` later.
        var recordedAt: Date
    }

    static let lifetime: TimeInterval = 7 * 24 * 60 * 60
    static let capacity = 500
    private static let key = "com.cometchat.push.messageChanges"

    private let store: PNKeyValueStore
    private let clock: PNClock
    /// The entries, oldest recorded first; `nil` until read from storage.
    private let entries = PNLocked<[Entry]?>(nil)

    init(store: PNKeyValueStore, clock: PNClock) {
        self.store = store
        self.clock = clock
    }

    /// Whether `messageId` of `conversationId` was deleted (a live tombstone).
    func isDeleted(conversationId: String, messageId: String) -> Bool {
        update { entries in entries.contains { $0.deleted && $0.messageId == messageId && $0.conversationId == conversationId } }
    }

    /// The live tombstones.
    var tombstones: [Entry] { update { entries in entries.filter(\.deleted) } }

    /// Records a deletion; returns whether it is new (not deleted already).
    func recordDeletion(_ change: MessageChange) -> Bool {
        guard let messageId = change.messageId else { return false }
        return record(change.conversationId, messageId, change.notificationId) { entry in
            defer { entry.deleted = true }
            return !entry.deleted
        }
    }

    /// Records an edit; returns whether it is news: the message is not deleted and no edit as
    /// recent (by the change's time; one without a time is older than any) was recorded.
    func recordEdit(_ change: MessageChange) -> Bool {
        guard let messageId = change.messageId else { return false }
        let at = change.at ?? .distantPast
        return record(change.conversationId, messageId, change.notificationId) { entry in
            guard !entry.deleted else { return false }
            if let previous = entry.editedAt, previous >= at { return false }
            entry.editedAt = at
            return true
        }
    }

    /// Forgets every entry (the changes feed lost track: a full resync).
    func removeAll() { update { $0.removeAll() } }

    /// Finds or adds the entry of a message, lets `change` update it, refreshes its time, and
    /// returns what `change` answered.
    private func record(
        _ conversationId: String, _ messageId: String, _ notificationId: String?, _ change: (inout Entry) -> Bool
    ) -> Bool {
        let now = clock.now()
        return update { entries in
            var entry =
                entries.first { $0.messageId == messageId && $0.conversationId == conversationId }
                ?? Entry(
                    conversationId: conversationId, messageId: messageId, notificationId: nil, deleted: false, editedAt: nil,
                    recordedAt: now)
            entries.removeAll { $0.messageId == messageId && $0.conversationId == conversationId }
            let answer = change(&entry)
            entry.notificationId = notificationId ?? entry.notificationId
            entry.recordedAt = now
            entries.append(entry)
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            return answer
        }
    }

    /// Runs `body` on the live entries (read from storage once, expired ones dropped) and saves
    /// them when they changed.
    private func update<T>(_ body: (inout [Entry]) -> T) -> T {
        let now = clock.now()
        return entries.withLock { cached in
            var current = cached ?? load()
            let before = current
            current.removeAll { now.timeIntervalSince($0.recordedAt) >= Self.lifetime }
            let answer = body(&current)
            cached = current
            if current != before { store.set(try? JSONEncoder().encode(current), forKey: Self.key) }
            return answer
        }
    }

    private func load() -> [Entry] {
        guard let data = store.data(forKey: Self.key) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }
}
