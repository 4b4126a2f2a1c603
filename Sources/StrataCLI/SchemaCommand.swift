import ArgumentParser
import Foundation
import Strata

/// `strata schema`: the tables with their columns, foreign keys and CHECK constraints, then the
/// indexes, views and triggers, read through Strata's introspection API (`Connection.schema`,
/// `tableInfoForTableNamed`) and its schema reader. Virtual tables (FTS5, ...) are listed as
/// such; their shadow tables are not (introspection hides them).
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the tables with their columns, foreign keys and CHECK constraints, then the indexes, views and triggers."
    )

    @Argument(help: "Path to an existing database file.") var database: String

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        let schema = try connection.readSchema()
        let byName: (SchemaEntryInfo, SchemaEntryInfo) -> Bool = { $0.name < $1.name }
        var lines: [String] = []
        var indexLines: [(name: String, line: String)] = []
        for table in schema.tables.sorted(by: byName) {
            if let module = table.virtualTableModule {
                lines.append("VIRTUAL TABLE \(table.name) USING \(module)")
                // Reading a virtual table's columns connects its module, which fails when the
                // module (or an FTS5 tokenizer) is one only the application registers.
                guard let info = try? connection.tableInfoForTableNamed(table.name) else {
                    lines.append("  (columns unavailable: module \(module) is not available here)")
                    continue
                }
                lines += aligned(info.columns.map { [$0.name, $0.type.isEmpty ? "(no type)" : $0.type] }).map { "  " + $0 }
                continue
            }
            guard let info = try connection.tableInfoForTableNamed(table.name) else { continue }
            lines.append("TABLE \(info.name)")
            let compositeKey = info.columns.filter(\.isPrimaryKey).count > 1
            lines += aligned(
                info.columns.map { column in
                    var traits: [String] = []
                    if column.isPrimaryKey {
                        traits.append(compositeKey ? "PRIMARY KEY (\(column.primaryKeyIndex))" : "PRIMARY KEY")
                    }
                    if column.notNull { traits.append("NOT NULL") }
                    if let value = column.defaultValue { traits.append("DEFAULT \(value)") }
                    return [column.name, column.type.isEmpty ? "(no type)" : column.type, traits.joined(separator: " ")]
                }
            ).map { "  " + $0 }
            lines += try foreignKeyLines(of: info.name, connection).map { "  " + $0 }
            lines += try connection.schemaReader.checkConstraints(ofTable: info.name).map { "  " + $0 }
            // Indexes made by CREATE INDEX; the automatic ones restate UNIQUE and PRIMARY KEY.
            for index in info.indexes where index.origin == .createIndex {
                let columns = index.columns.map { ($0.name ?? "<expression>") + ($0.isDescending ? " DESC" : "") }
                let partial = index.isPartial ? (schema.entryNamed(index.name)?.sql.flatMap(partialClause) ?? " WHERE ...") : ""
                indexLines.append(
                    (index.name, "\(index.isUnique ? "UNIQUE " : "")INDEX \(index.name) ON \(info.name) (\(columns.joined(separator: ", ")))\(partial)"))
            }
        }
        if !indexLines.isEmpty { lines += [""] + indexLines.sorted { $0.name < $1.name }.map(\.line) }
        for (kind, entries) in [("VIEW", schema.schemaEntries.filter(\.isView)), ("TRIGGER", schema.schemaEntries.filter(\.isTrigger))]
        where !entries.isEmpty {
            lines.append("")
            for entry in entries.sorted(by: byName) {
                lines.append("\(kind) \(entry.name)\(entry.isTrigger ? " ON \(entry.tableName)" : "")")
                lines += (entry.sql ?? "").split(whereSeparator: \.isNewline).map { "  " + $0 }
            }
        }
        if lines.isEmpty { lines.append("(no tables, indexes, views or triggers)") }
        lines.forEach { print($0) }
    }

    /// `FOREIGN KEY (columns) REFERENCES parent (columns)` and the actions that are not the
    /// default (NO ACTION), one line per foreign key; a key that names no parent columns shows
    /// the parent's primary key it refers to.
    private func foreignKeyLines(of table: String, _ connection: Connection) throws -> [String] {
        let reader = connection.schemaReader
        let rows = try reader.foreignKeys(ofTable: table)
        var lines: [String] = []
        // SQLite numbers a table's foreign keys from the last declared: the highest id is the first.
        for id in Set(rows.map(\.id)).sorted(by: >) {
            let key = rows.filter { $0.id == id }
            guard let first = key.first else { continue }
            var parentColumns = key.compactMap(\.parentColumn)
            if parentColumns.isEmpty {
                parentColumns = try reader.columns(ofTable: first.parentTable).filter { $0.primaryKeyIndex > 0 }
                    .sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }.map(\.name)
            }
            var line = "FOREIGN KEY (\(key.map(\.column).joined(separator: ", "))) REFERENCES \(first.parentTable)"
            if !parentColumns.isEmpty { line += " (\(parentColumns.joined(separator: ", ")))" }
            if first.onDelete != "NO ACTION" { line += " ON DELETE \(first.onDelete)" }
            if first.onUpdate != "NO ACTION" { line += " ON UPDATE \(first.onUpdate)" }
            lines.append(line)
        }
        return lines
    }

    /// ` WHERE ...` of a partial index's SQL, or nil.
    private func partialClause(_ sql: String) -> String? {
        guard let range = sql.range(of: " WHERE ", options: [.caseInsensitive, .backwards]),
            sql[..<range.lowerBound].contains(")")
        else { return nil }
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
