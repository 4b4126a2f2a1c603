/// Remembers the SQL of the last dictionary insert on a connection and where each key goes, so
/// a run of rows with the same keys builds no SQL, sorts nothing and hashes no key.
///
/// Dictionaries with the same keys need not iterate in the same order (Swift seeds each
/// table), so the memo is checked against the order of this dictionary's keys, one string
/// comparison per key; the SQL itself always lists the columns sorted, so every order shares
/// one cached statement.
final class InsertStatementMemo {
    private var table = ""
    private var keyOrder: [String] = []
    private var positions: [Int32] = []
    private var sql = ""

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
        sql = build(table, sorted)
        return (sql, positions)
    }
}
