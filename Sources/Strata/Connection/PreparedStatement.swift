import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Owns one compiled `sqlite3_stmt` and what Strata learns about it once: column names and the
/// name → index table. Shared by a `Statement` and the connection's statement cache, so it holds
/// no reference back to the connection.
@usableFromInline
final class PreparedStatement {
    @usableFromInline let handle: OpaquePointer
    let sql: SQL
    /// Set while a convenience call uses this cached statement, so a nested call with the same
    /// SQL prepares its own instead of resetting this one mid-iteration.
    var isInUse = false
    var lastUse: UInt64 = 0

    /// Whether the current execution has produced a row; a table-lock retry is only safe before.
    @exclusivity(unchecked) @usableFromInline var hasProducedRow = false

    @exclusivity(unchecked) @usableFromInline var lookup: ColumnLookup?

    /// Parameter name → index, filled as names are first bound (named binds happen per row).
    @exclusivity(unchecked) var parameterIndexes: [String: Int32] = [:]

    /// The index of the parameter named `name` (with its prefix), or 0 when there is none.
    func parameterIndex(forName name: String) -> Int32 {
        if let index = parameterIndexes[name] { return index }
        let index = sqlite3_bind_parameter_index(handle, name)
        if index > 0 { parameterIndexes[name] = index }
        return index
    }

    init(handle: OpaquePointer, sql: SQL) {
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    @usableFromInline var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The result column names, in order (built once).
    var columnNames: [String] { columnLookup.names }

    @usableFromInline var columnLookup: ColumnLookup {
        if let lookup { return lookup }
        let built = ColumnLookup(handle: handle)
        lookup = built
        return built
    }

    /// The index of the column named `name`, or nil.
    ///
    /// Rows are usually read in column order, so the column after the previous lookup is tried
    /// first with one string comparison; a hash table answers the rest.
    @usableFromInline
    func columnIndex(forName name: String) -> Int32? {
        let lookup = columnLookup
        return lookup.index(of: name)
    }
}

/// Column names of a statement and a hash table from name to index, built once per statement.
@usableFromInline
final class ColumnLookup {
    @usableFromInline let names: [String]
    let indexes: [String: Int32]
    @exclusivity(unchecked) @usableFromInline var predicted: Int = 0

    init(handle: OpaquePointer) {
        let count = Int(sqlite3_column_count(handle))
        var names: [String] = []
        names.reserveCapacity(count)
        var indexes: [String: Int32] = [:]
        for index in 0..<count {
            let name = sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
            names.append(name)
            if indexes[name] == nil { indexes[name] = Int32(index) }
        }
        self.names = names
        self.indexes = indexes
    }

    @usableFromInline
    func index(of name: String) -> Int32? {
        let guess = predicted
        if !hasDuplicates, guess < names.count, names[guess] == name {
            predicted = guess + 1 == names.count ? 0 : guess + 1
            return Int32(guess)
        }
        guard let found = indexes[name] else { return nil }
        predicted = Int(found) + 1 == names.count ? 0 : Int(found) + 1
        return found
    }

    /// With duplicate names the first column wins, which only the hash table knows.
    @usableFromInline var hasDuplicates: Bool { indexes.count != names.count }
}

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

    func contains(_ sql: SQL) -> Bool { entries[sql] != nil }

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
