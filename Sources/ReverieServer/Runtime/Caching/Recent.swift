import NIOConcurrencyHelpers
import NIOCore

/// Values read from the database kept for a moment, so that what every request asks again (its
/// session, the file behind an audio item) costs no query and no thread hop while it is fresh.
///
/// Writes made by this server call `forgetAll()`, so they are seen at once. Writes made by another
/// process (the `reverie` command line on the same data) are seen when an entry is older than
/// `lifetime`. A reader takes `generation` before its query and stores with it: a value read
/// before a write but stored after it is dropped, never kept for a whole lifetime.
final class Recent<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var stored: NIODeadline
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: [Key: Entry] = [:]
    }

    let lifetime: TimeAmount
    /// More entries than this and the stale ones are dropped when the next is stored.
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(lifetime: TimeAmount, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Taken before reading what will be stored.
    var generation: UInt64 { state.withLockedValue { $0.generation } }

    /// The value stored for `key`, while it is younger than `lifetime`.
    func value(for key: Key) -> Value? {
        let now = NIODeadline.now()
        return state.withLockedValue { state in
            guard let entry = state.entries[key], now - entry.stored < lifetime else { return nil }
            return entry.value
        }
    }

    /// Keeps `value`, unless a write was made since `generation` was taken.
    func store(_ value: Value, for key: Key, readAt generation: UInt64) {
        let now = NIODeadline.now()
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { now - $0.value.stored < lifetime }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[key] = Entry(value: value, stored: now)
        }
    }

    /// After a write: nothing read before it is given out or stored.
    func forgetAll() {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }
}
