import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Owns one compiled `sqlite3_stmt` and what Strata learns about it once: column names and the
/// name → index table. Shared by a `Statement` and the connection's statement cache, so it holds
/// no reference back to the connection.
@usableFromInline
package final class PreparedStatement {
    @usableFromInline package let handle: SQLiteStatementHandle
    /// The SQL text the statement was prepared from.
    package var sql: SQL { givenSQL ?? sqlite3_sql(handle).map { String(cString: $0) } ?? "" }
    /// The text the statement was prepared from, as given; nil for a statement of a script,
    /// whose own text SQLite keeps (`sqlite3_sql`), so a script builds no string per statement.
    private let givenSQL: SQL?
    /// Set while a convenience call uses this cached statement, so a nested call with the same
    /// SQL prepares its own instead of resetting this one mid-iteration.
    package var isInUse = false
    var lastUse: UInt64 = 0

    /// What the statement reads and writes, learned while it compiled on a monitored
    /// connection; nil when it compiled unmonitored.
    package var access: StatementAccess? {
        didSet { accessCapturedAt = reprepareCount }
    }
    /// What a layer above derived from the compiled statement (the column indexes a reader type
    /// resolved, say), under the key that layer chose. It goes with the names when SQLite
    /// re-prepares the statement (``forgetDerivedState()``), so it never outlives the column list
    /// it came from. One entry: the last layer to store keeps it.
    @exclusivity(unchecked) private var layerEntry: (key: ObjectIdentifier, value: AnyObject)?

    /// The value stored for `key` with ``storeLayerCache(_:for:)`` if it is still current and a `Value`.
    ///
    /// Two identity comparisons; no lookup, so a reader may ask once per row.
    @inline(__always)
    func layerCache<Value: AnyObject>(for key: ObjectIdentifier, as type: Value.Type) -> Value? {
        guard let entry = layerEntry, entry.key == key, ObjectIdentifier(Swift.type(of: entry.value)) == ObjectIdentifier(Value.self) else {
            return nil
        }
        return unsafeDowncast(entry.value, to: Value.self)
    }

    /// Keeps `value` for `key` until SQLite re-prepares the statement or another key is stored.
    func storeLayerCache(_ value: AnyObject, for key: ObjectIdentifier) {
        // Record the compiled form the value belongs to, so the next execution notices a re-prepare.
        if !namesResolved { resolveNames() }
        layerEntry = (key, value)
    }

    /// `SQLITE_STMTSTATUS_REPREPARE` when `access` was learned: after SQLite re-prepares a
    /// statement (a schema change: a new column, a new trigger), it must be learned again.
    package var accessCapturedAt: Int32 = 0

    /// Whether the current execution has produced a row; a table-lock retry is only safe before,
    /// and the first row is where a re-prepare by SQLite is noticed.
    @exclusivity(unchecked) @usableFromInline var hasProducedRow = false

    /// `SQLITE_STMTSTATUS_REPREPARE` when the names were derived: SQLite re-prepares a statement
    /// by itself after a schema change, and everything derived from it must then be derived again.
    @exclusivity(unchecked) var derivedAtReprepareCount: Int32 = 0

    /// Result column names, in order; empty until first needed.
    @exclusivity(unchecked) @usableFromInline var names: [String] = []
    /// Name → index of its first occurrence; the fallback when the prediction misses.
    @exclusivity(unchecked) @usableFromInline var nameIndexes: [String: Int32] = [:]
    /// The column the next by-name read is expected to ask for.
    @exclusivity(unchecked) @usableFromInline var predictedColumn = 0
    @exclusivity(unchecked) @usableFromInline var namesResolved = false
    @exclusivity(unchecked) @usableFromInline var hasDuplicateNames = false

    /// The statement's parameter names, read from SQLite at its first named bind. The SQL text
    /// alone numbers the parameters, so they outlive a re-prepare by SQLite (the same text,
    /// recompiled after a schema change); the same SQL prepared again (on another connection, or
    /// after the cache evicted it) is another `PreparedStatement`, which reads its own.
    @exclusivity(unchecked) private var parameterNameTable: ParameterNameTable?

    /// The statement's parameter names, read once.
    var parameterNames: ParameterNameTable {
        if let table = parameterNameTable { return table }
        let table = ParameterNameTable(handle)
        parameterNameTable = table
        return table
    }

    /// The index of the parameter named `name` (with its prefix), or 0 when there is none.
    func parameterIndex(forName name: String) -> Int32 {
        parameterNames.indexOfParameter(prefixedName: name)
    }

    /// The names of the previous named bind in the dictionary's iteration order, which repeats
    /// for dictionaries with the same keys, so the next bind usually matches by one comparison.
    @exclusivity(unchecked) var namedBindOrder: [(name: String, index: Int32)] = []

    /// The index of the parameter named `name`, bound at `position` of a named bind.
    @usableFromInline
    func parameterIndex(forName name: String, position: Int) -> Int32 {
        if position < namedBindOrder.count, sameParameterName(namedBindOrder[position].name, name) {
            return namedBindOrder[position].index
        }
        return learnParameterIndex(forName: name, position: position)
    }

    /// The prediction's miss: the table's answer, remembered for the next bind at `position`.
    /// Kept out of line so the hit, once per value of every row, stays a few instructions.
    @inline(never)
    func learnParameterIndex(forName name: String, position: Int) -> Int32 {
        let index = parameterIndex(forName: name)
        if position < namedBindOrder.count {
            namedBindOrder[position] = (name, index)
        } else if position == namedBindOrder.count {
            namedBindOrder.append((name, index))
        }
        return index
    }

    /// Resets the statement to the start of a new execution (bindings are kept).
    @inline(__always) @usableFromInline
    package func reset() {
        sqlite3_reset(handle)
        hasProducedRow = false
        if awaitsEndReport { executionAbandoned() }
    }

    /// The connection whose access monitor must hear of the end of the current execution, which
    /// produced a row and may write: set at its first row, cleared at its end. An execution reset
    /// or finalized before `SQLITE_DONE` ends there, and SQLite commits its autocommit writes then.
    /// Weak: the connection's statement cache holds its statements.
    weak var endReportTarget: Connection?
    /// Whether `endReportTarget` is set for the current execution: the one check a reset pays.
    @exclusivity(unchecked) @usableFromInline var awaitsEndReport = false

    /// Asks for the end of the current execution to be reported to `connection`'s monitor.
    func reportsEnd(to connection: Connection) {
        endReportTarget = connection
        awaitsEndReport = true
    }

    /// Reports the end of an execution reset before `SQLITE_DONE`, after the reset's commit.
    @usableFromInline @inline(never)
    func executionAbandoned() {
        awaitsEndReport = false
        guard let connection = endReportTarget else { return }
        connection.notifyStatementEnded(self, afterRow: true)
    }

    /// How many times SQLite has re-prepared the statement since it was compiled.
    package var reprepareCount: Int32 { sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0) }

    /// Called on the first step of an execution (once per execution, not per row): when SQLite
    /// re-prepared the statement since the names were derived, forget them so they are derived
    /// again from the new column list.
    @usableFromInline @inline(never)
    func executionStarted() {
        if namesResolved, reprepareCount != derivedAtReprepareCount { forgetDerivedState() }
    }

    /// Drops everything derived from the compiled statement (names, name table, prediction, and
    /// what layers above derived from them).
    func forgetDerivedState() {
        layerEntry = nil
        namesResolved = false
        names = []
        nameIndexes = [:]
        predictedColumn = 0
        hasDuplicateNames = false
    }

    init(handle: SQLiteStatementHandle, sql: SQL) {
        self.handle = handle
        self.givenSQL = sql
    }

    /// A statement of a script: its text is what SQLite compiled, from its first token to just
    /// past its `;`.
    init(handle: SQLiteStatementHandle) {
        self.handle = handle
        self.givenSQL = nil
    }

    deinit {
        // An execution that produced a row and was never reset ends here (and commits).
        if awaitsEndReport, let connection = endReportTarget, !connection.executionObservers.isEmpty {
            connection.notifyStatementFinalized(self) { sqlite3_finalize(handle) }
        } else {
            sqlite3_finalize(handle)
        }
    }

    /// The result column names, in order (built once per compiled form of the statement).
    var columnNames: [String] {
        // Not a hot path: also notice a re-prepare that happened in an execution with no row.
        if namesResolved, reprepareCount != derivedAtReprepareCount { forgetDerivedState() }
        if !namesResolved { resolveNames() }
        return names
    }

    /// Builds the name table once per compiled form of the statement.
    @usableFromInline @inline(never)
    func resolveNames() {
        derivedAtReprepareCount = reprepareCount
        let count = Int(sqlite3_column_count(handle))
        names = (0..<count).map { index in sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "" }
        nameIndexes = [:]
        for (index, name) in names.enumerated() where nameIndexes[name] == nil {
            nameIndexes[name] = Int32(index)
        }
        hasDuplicateNames = nameIndexes.count != names.count
        namesResolved = true
    }

    /// The index of the column named `name`, or nil.
    ///
    /// Rows are usually read in column order, so the column after the previous lookup is tried
    /// first with one string comparison; the hash table answers the rest (and duplicates, which
    /// resolve to the first column of that name).
    @inlinable @inline(__always)
    func columnIndex(forName name: String) -> Int32? {
        if !namesResolved { resolveNames() }
        let guess = predictedColumn
        if guess < names.count, !hasDuplicateNames, names[guess] == name {
            predictedColumn = guess + 1 == names.count ? 0 : guess + 1
            return Int32(guess)
        }
        guard let found = nameIndexes[name] else { return nil }
        predictedColumn = Int(found) + 1 == names.count ? 0 : Int(found) + 1
        return found
    }
}
