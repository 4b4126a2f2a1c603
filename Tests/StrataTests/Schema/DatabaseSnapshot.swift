import Foundation
import Strata

/// Everything a failed schema change must leave untouched: schema text, every row of every table,
/// `user_version`, `foreign_keys`, and the AUTOINCREMENT counters.
struct DatabaseSnapshot: Equatable, CustomStringConvertible {
    var schema: [String]
    var rows: [String: [String]]
    var userVersion: Int
    var foreignKeys: Int

    init(_ connection: Connection) throws {
        schema = try connection.query(
            "SELECT type || ' ' || name || ' ' || tbl_name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
        let tables: [String] = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        rows = [:]
        for table in tables {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            rows[table] = try connection.query("SELECT * FROM \(quoted)") { (row: Row) -> String in
                row.values.map { "\($0 ?? "NULL")" }.joined(separator: "|")
            }.sorted()
        }
        userVersion = try connection.query("PRAGMA user_version") ?? -1
        foreignKeys = try connection.query("PRAGMA foreign_keys") ?? -1
    }

    var description: String { "schema: \(schema)\nrows: \(rows)\nuser_version: \(userVersion) foreign_keys: \(foreignKeys)" }
}
