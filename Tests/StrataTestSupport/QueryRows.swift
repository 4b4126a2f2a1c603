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

/// Every row of every table of `db` (tables by name, rows by rowid), each as its values quoted
/// with `quote()` and joined by commas: what a migration must keep, as text to compare.
public func quotedRowsOfEveryTable(_ db: Connection) throws -> [String] {
    var rows: [String] = []
    let tables: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    for table in tables {
        let columns: [String] = try db.query("SELECT name FROM pragma_table_info(?)", table)
        let list = columns.map { "quote(" + quoteIdentifier($0) + ")" }.joined(separator: " || ',' || ")
        rows += try db.query("SELECT \(list) FROM \(quoteIdentifier(table)) ORDER BY rowid") as [String]
    }
    return rows
}
