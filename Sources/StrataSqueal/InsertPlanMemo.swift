import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Remembers how the last dictionary insert on a connection was planned (its table, where each
/// key goes, and the cache key of its SQL), so a run of rows with the same keys builds no SQL,
/// sorts nothing, hashes neither keys nor SQL, and binds in one pass over the dictionary. The
/// statement itself lives in the connection's one statement cache.
///
/// Dictionaries with the same keys need not iterate in the same order (Swift seeds each table),
/// so each key is compared with the remembered order as it is bound, and a row whose order
/// differs takes the planning path. The SQL always lists the columns sorted, so every order
/// shares one cached statement.
final class InsertPlanMemo {
    /// Each connection's memo, kept in the kernel's per-connection storage.
    static let slot = ConnectionSlot { InsertPlanMemo() }

    private(set) var table = ""
    private(set) var keyOrder: [String] = []
    private(set) var positions: [Int32] = []
    private(set) var key: StatementCacheKey? {
        didSet { keyIdentity = key?.identity }
    }
    /// The identity of `key`, which the memo keeps alive.
    private var keyIdentity: ObjectIdentifier?

    /// Whether `table` and the key count match the last insert, so its plan may apply.
    func matches(_ table: String, keyCount: Int) -> Bool {
        key != nil && keyCount == keyOrder.count && sameBytes(table, self.table)
    }

    /// The remembered statement checked out of `connection`'s cache (the entry found last is
    /// recognised by the identity of the kept key, without copying the key), marked in use: the
    /// caller resets it and clears `isInUse`. Nil when nothing is remembered.
    func checkOutStatement(on connection: Connection) throws -> PreparedStatement? {
        if let keyIdentity, let prepared = connection.statementCache.availableAgain(identity: keyIdentity) {
            prepared.isInUse = true
            return prepared
        }
        guard let key else { return nil }
        return try connection.checkOutStatement(cachedFor: key)
    }

    /// Binds `values` onto the handle of `prepared` (checked out of `connection`'s cache) if they
    /// iterate in the remembered key order; false (with some parameters possibly bound) when
    /// they do not. A failed bind throws the connection's error.
    func bindInRememberedOrder(_ values: [String: Bindable?], to prepared: PreparedStatement, on connection: Connection) throws -> Bool {
        let handle = prepared.handle
        var position = 0
        for (key, value) in values {
            guard position < keyOrder.count, sameBytes(key, keyOrder[position]) else { return false }
            let index = positions[position]
            let code = try value?.bind(to: handle, at: index) ?? sqlite3_bind_null(handle, index)
            if code != SQLITE_OK { try connection.bindFailed(prepared, code: code, index: index) }
            position += 1
        }
        return position == keyOrder.count
    }

    /// The statement key for `table` with `keys`, and the 1-based parameter of each key in
    /// `keys`'s order.
    func plan(_ table: String, keys: Dictionary<String, Bindable?>.Keys) -> (StatementCacheKey, [Int32]) {
        // Names compared by bytes, as SQLite does (String equality would take `é` and `e` +
        // U+0301 for one table or column).
        if let key, sameBytes(table, self.table), keys.count == keyOrder.count, keys.elementsEqual(keyOrder, by: sameBytes) {
            return (key, positions)
        }
        let sorted = keys.sorted()
        var parameterOfColumn: [String: Int32] = [:]
        for (offset, column) in sorted.enumerated() { parameterOfColumn[column] = Int32(offset + 1) }
        let sql = StatementClauses.insert(into: table, columns: sorted).sql
        self.table = table
        keyOrder = Array(keys)
        positions = keyOrder.map { parameterOfColumn[$0] ?? 0 }
        if let current = key?.sql, sameBytes(current, sql) {} else { key = StatementCacheKey(reusing: sql) }
        return (key ?? StatementCacheKey(sql: sql), positions)
    }
}
