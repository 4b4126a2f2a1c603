/// Remembers the last dictionary insert on a connection (its SQL, its prepared statement, and
/// where each key goes), so a run of rows with the same keys builds no SQL, sorts nothing,
/// hashes neither keys nor SQL, and binds in one pass over the dictionary.
///
/// Dictionaries with the same keys need not iterate in the same order (Swift seeds each table),
/// so each key is compared with the remembered order as it is bound, and a row whose order
/// differs takes the planning path. The SQL always lists the columns sorted, so every order
/// shares one cached statement.
final class InsertStatementMemo {
    private(set) var table = ""
    private(set) var keyOrder: [String] = []
    private(set) var positions: [Int32] = []
    private(set) var sql = ""
    /// The statement the last insert ran, kept so the next one skips the cache lookup.
    var prepared: PreparedStatement?

    /// The remembered statement when `table` and the key count match the last insert and no
    /// enclosing call is using it.
    func statement(for table: String, keyCount: Int) -> PreparedStatement? {
        guard let prepared, !prepared.isInUse, keyCount == keyOrder.count, table == self.table else { return nil }
        return prepared
    }

    /// Binds `values` to `statement` if they iterate in the remembered key order; false (with
    /// some parameters possibly bound) when they do not.
    func bindInRememberedOrder(_ values: [String: Bindable?], to statement: Statement) throws -> Bool {
        var position = 0
        for (key, value) in values {
            guard position < keyOrder.count, key == keyOrder[position] else { return false }
            try statement.bindSquealValue(value, at: positions[position])
            position += 1
        }
        return position == keyOrder.count
    }

    /// The INSERT for `table` with `keys`, and the 1-based parameter of each key in `keys`'s order.
    func plan(_ table: String, keys: Dictionary<String, Bindable?>.Keys, build: (String, [String]) -> SQL) -> (SQL, [Int32]) {
        if table == self.table, keys.count == keyOrder.count, keys.elementsEqual(keyOrder) {
            return (sql, positions)
        }
        let sorted = keys.sorted()
        var parameterOfColumn: [String: Int32] = [:]
        for (offset, column) in sorted.enumerated() { parameterOfColumn[column] = Int32(offset + 1) }
        self.table = table
        keyOrder = Array(keys)
        positions = keyOrder.map { parameterOfColumn[$0] ?? 0 }
        let newSQL = build(table, sorted)
        if newSQL != sql { prepared = nil }
        sql = newSQL
        return (sql, positions)
    }
}
