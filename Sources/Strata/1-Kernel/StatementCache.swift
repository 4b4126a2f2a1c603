import Foundation

/// A bounded cache of prepared statements keyed by SQL, least recently used evicted first.
final class StatementCache {
    let capacity: Int
    private var entries: [SQL: PreparedStatement] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    /// A statement for `sql` that no one is using, or nil.
    func available(for sql: SQL) -> PreparedStatement? {
        guard let statement = entries[sql], !statement.isInUse else { return nil }
        clock &+= 1
        statement.lastUse = clock
        return statement
    }

    func insert(_ statement: PreparedStatement) {
        guard capacity > 0, entries[statement.sql] == nil else { return }
        if entries.count >= capacity,
           let victim = entries.values.filter({ !$0.isInUse }).min(by: { $0.lastUse < $1.lastUse }) {
            entries[victim.sql] = nil
        }
        clock &+= 1
        statement.lastUse = clock
        entries[statement.sql] = statement
    }

    /// Finalizes statements no one uses (they are re-prepared on demand).
    func removeAll() {
        entries = entries.filter { $0.value.isInUse }
    }
}
