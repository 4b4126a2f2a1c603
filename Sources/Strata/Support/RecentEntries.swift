/// A few recently used entries, the newest replacing the oldest: a memo for a hot path whose keys
/// repeat (a cached statement run again), searched linearly because it is small. Not thread-safe:
/// its owner is confined to one connection's thread.
package struct RecentEntries<Entry> {
    @usableFromInline var entries: [Entry] = []
    @usableFromInline var oldest = 0
    @usableFromInline let capacity: Int

    @inlinable
    package init(capacity: Int) {
        precondition(capacity > 0, "RecentEntries needs room for one entry")
        self.capacity = capacity
    }

    /// An entry that `matches` accepts (its owner keeps one entry per key), or nil.
    @inlinable
    package func first(where matches: (Entry) throws -> Bool) rethrows -> Entry? {
        for entry in entries where try matches(entry) { return entry }
        return nil
    }

    /// Keeps `entry`, in place of the oldest when full.
    @inlinable
    package mutating func insert(_ entry: Entry) {
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[oldest] = entry
            oldest = (oldest + 1) % capacity
        }
    }

    @inlinable
    package mutating func removeAll() {
        entries.removeAll()
        oldest = 0
    }
}
