import ArgumentParser
import Foundation
import Strata

/// `strata schema`: the tables with their columns, then the indexes, views and triggers.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the tables with their columns, then the indexes, views and triggers."
    )

    @Argument(help: "Path to an existing database file.") var database: String

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        let entries = try SchemaEntry.all(in: connection)
        var lines: [String] = []
        for table in entries where table.type == "table" {
            lines.append("TABLE \(table.name)")
            let columns = try ColumnEntry.all(ofTable: table.name, in: connection)
            let compositeKey = columns.filter { $0.primaryKeyIndex > 0 }.count > 1
            lines += aligned(columns.map { column in
                var traits: [String] = []
                if column.primaryKeyIndex > 0 {
                    traits.append(compositeKey ? "PRIMARY KEY (\(column.primaryKeyIndex))" : "PRIMARY KEY")
                }
                if column.notNull { traits.append("NOT NULL") }
                if let value = column.defaultValue { traits.append("DEFAULT \(value)") }
                return [column.name, column.type.isEmpty ? "(no type)" : column.type, traits.joined(separator: " ")]
            }).map { "  " + $0 }
        }
        let indexes = entries.filter { $0.type == "index" }
        if !indexes.isEmpty { lines.append("") }
        for index in indexes {
            let columns = try IndexEntry.columns(ofIndex: index.name, in: connection)
            let unique = index.sql?.uppercased().hasPrefix("CREATE UNIQUE") == true ? "UNIQUE " : ""
            let partial = index.sql.flatMap(partialClause) ?? ""
            lines.append("\(unique)INDEX \(index.name) ON \(index.tableName) (\(columns.joined(separator: ", ")))\(partial)")
        }
        for kind in ["view", "trigger"] {
            let group = entries.filter { $0.type == kind }
            if !group.isEmpty { lines.append("") }
            for entry in group {
                let target = kind == "trigger" ? " ON \(entry.tableName)" : ""
                lines.append("\(kind.uppercased()) \(entry.name)\(target)")
                lines += (entry.sql ?? "").split(whereSeparator: \.isNewline).map { "  " + $0 }
            }
        }
        if lines.isEmpty { lines.append("(no tables, indexes, views or triggers)") }
        lines.forEach { print($0) }
    }

    /// ` WHERE ...` of a partial index's SQL, or nil.
    private func partialClause(_ sql: String) -> String? {
        guard let range = sql.range(of: " WHERE ", options: [.caseInsensitive, .backwards]),
              sql[..<range.lowerBound].contains(")") else { return nil }
        return " WHERE " + String(sql[range.upperBound...]).trimmingWhitespace()
    }

    /// Rows of cells padded to their column's width.
    private func aligned(_ rows: [[String]]) -> [String] {
        guard let columnCount = rows.first?.count else { return [] }
        let widths = (0..<columnCount).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ").trailingSpacesRemoved()
        }
    }
}

/// One row of `sqlite_master`, read through Strata's query API.
struct SchemaEntry {
    let type: String
    let name: String
    let tableName: String
    let sql: String?

    /// Every table, index, view and trigger except SQLite's own (`sqlite_%`), by kind then name.
    static func all(in connection: Connection) throws -> [SchemaEntry] {
        try connection.query("""
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, name
            """) { row in
            SchemaEntry(type: row.value(at: 0) as? String ?? "", name: row.value(at: 1) as? String ?? "",
                        tableName: row.value(at: 2) as? String ?? "", sql: row.value(at: 3) as? String)
        }
    }
}

/// One column of a table (`pragma_table_info`).
struct ColumnEntry {
    let name: String
    let type: String
    let notNull: Bool
    let defaultValue: String?
    let primaryKeyIndex: Int

    static func all(ofTable table: String, in connection: Connection) throws -> [ColumnEntry] {
        try connection.query("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid", table) { row in
            ColumnEntry(name: row.value(at: 0) as? String ?? "", type: row.value(at: 1) as? String ?? "",
                        notNull: (row.value(at: 2) as? Int64 ?? 0) != 0, defaultValue: row.value(at: 3) as? String,
                        primaryKeyIndex: Int(row.value(at: 4) as? Int64 ?? 0))
        }
    }
}

/// The columns of an index (`pragma_index_info`); an expression column has no name.
enum IndexEntry {
    static func columns(ofIndex index: String, in connection: Connection) throws -> [String] {
        try connection.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", index) { row in
            row.value(at: 0) as? String ?? "<expression>"
        }
    }
}
