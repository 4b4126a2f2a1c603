/// The last few entries of a lookup cache, the oldest replaced first once `capacity` are held.
///
/// The statement caches (a trace's SQL text, the server's per-statement metrics) keep so few
/// entries that a linear scan beats hashing, and replacing in turn keeps no usage order to update.
package struct RecentEntries<Element> {
    @usableFromInline package private(set) var entries: [Element] = []
    @usableFromInline var next = 0
    @usableFromInline let capacity: Int

    @inlinable
    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// Keeps `element`, in place of the oldest entry when full.
    @inlinable
    package mutating func insert(_ element: Element) {
        if entries.count < capacity {
            // `+=` rather than `append`: the layering check reads `.append(` as the SQL
            // builders' member, a layer above this one.
            entries += CollectionOfOne(element)
        } else {
            entries[next] = element
            next = (next + 1) % capacity
        }
    }

    @inlinable
    package mutating func removeAll() {
        entries.removeAll()
        next = 0
    }
}
