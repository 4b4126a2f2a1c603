import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// The rows `sql` returns on `connection`, each as its values in column order with their storage
/// class kept (`1` and `1.0` differ), for comparisons such as
/// `#expect(try queryRows(db, "SELECT id, name FROM t ORDER BY id") == [[.integer(1), .text("a")]])`.
public func queryRows(_ connection: Connection, _ sql: String) throws -> [[BindingValue]] {
    let statement = try connection.prepare(sql)
    let columnCount = sqlite3_column_count(statement.statementHandle)
    var rows: [[BindingValue]] = []
    while try statement.step() {
        rows.append(
            (0..<columnCount).map { column in
                sqlite3_column_value(statement.statementHandle, column).map(BindingValue.init(reading:)) ?? .null
            })
    }
    return rows
}
