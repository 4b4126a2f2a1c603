// The one table rebuild (SQLite's twelve steps) that the DSL and the ORM's syncSchema use.

import StrataKernel
import Foundation

extension Connection {
    /// SQLite's twelve-step table rebuild (https://www.sqlite.org/lang_altertable.html#otheralter).
    ///
    /// Changes what `ALTER TABLE` cannot (drop a column, change a type or constraint, add a
    /// constraint, fill a new column from an expression) by creating the table anew and copying
    /// the rows:
    /// ```swift
    /// // Drop "age" and make "name" NOT NULL, keeping ids and names:
    /// try connection.rebuildTable(
    ///     named: "people",
    ///     definition: #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL"#,
    ///     copying: [(column: "id", expression: #""id""#), (column: "name", expression: #"coalesce("name", '')"#)]
    /// )
    /// ```
    /// - `definition` is the text between the parentheses of the new `CREATE TABLE`; identifiers
    ///   in it are quoted by the caller. `tableOptions` (such as `WITHOUT ROWID`, `STRICT`) follow
    ///   the parenthesis; nil keeps the old table's options.
    /// - `columns` maps each new column (unquoted name) to an SQL expression over the old row.
    ///   Columns not listed take their default. For rowid tables without an `INTEGER PRIMARY KEY`
    ///   the rowids are kept too.
    /// - Generated columns are never copied into: SQLite computes them in the new table.
    /// - Indexes and triggers of the table (this connection's `TEMP` triggers on it included),
    ///   and views that mention it, are recreated from their SQL. An index or view naming a column
    ///   the new table lacks fails the rebuild; a trigger is recreated as written (SQLite checks
    ///   a trigger's body only when it fires). `AUTOINCREMENT` counters are kept.
    ///
    /// Outside a transaction the rebuild turns `foreign_keys` off, runs in `BEGIN IMMEDIATE`, and
    /// restores the setting. Inside one it runs under a savepoint, and foreign keys must already be
    /// off (SQLite cannot change the setting inside a transaction): callers such as `Schema.migrate`
    /// wrap their transaction in ``withForeignKeysDisabled(_:)``. Either way
    /// `PRAGMA foreign_key_check` runs on the table and the tables referencing it afterwards.
    /// Any failure rolls back: the database is exactly as before.
    /// - Throws: ``TableRebuildError`` (no such table, a virtual or shadow table, foreign keys on
    ///   inside a transaction, foreign key violations) or `SQLiteError` from the SQL, in which case
    ///   nothing changed.
    public func rebuildTable(
        named table: String,
        definition: String,
        copying columns: [(column: String, expression: String)],
        tableOptions: String? = nil
    ) throws {
        guard let entry = try schemaReader.table(named: table) else { throw TableRebuildError.noSuchTable(table) }
        // A virtual table's rows live in its module (and its shadow tables), which CREATE TABLE
        // plus INSERT … SELECT cannot recreate; a shadow table belongs to its virtual table.
        if let module = entry.virtualTableModule { throw TableRebuildError.virtualTable(entry.name, module: module) }
        if try schemaReader.shadowTableNames().contains(entry.name) { throw TableRebuildError.shadowTable(entry.name) }
        let stored = (name: entry.name, sql: entry.sql ?? "")
        let (table, oldSQL) = stored // the name as stored, so the rebuilt table keeps its case
        if isInTransaction {
            if try foreignKeysEnabled() { throw TableRebuildError.foreignKeysEnabledInTransaction(table: table) }
            try strataSavepoint(named: "strata_rebuild_table") {
                try performRebuild(of: table, oldSQL: oldSQL, definition: definition, copying: columns, tableOptions: tableOptions)
            }
        } else {
            try withForeignKeysDisabled {
                try transaction(transactionType: .immediate) {
                    try performRebuild(of: table, oldSQL: oldSQL, definition: definition, copying: columns, tableOptions: tableOptions)
                }
            }
        }
    }

    /// The `CREATE TABLE` text of a table of the main schema, found case-insensitively as SQLite does.
    func tableSQL(named table: String) throws -> String? {
        try tableNameAndSQL(named: table)?.sql
    }

    /// The stored name and `CREATE TABLE` text of a table of the main schema.
    private func tableNameAndSQL(named table: String) throws -> (name: String, sql: String)? {
        try schemaReader.table(named: table).map { (name: $0.name, sql: $0.sql ?? "") }
    }

    /// Steps 3 to 11 of the procedure; the caller provides the transaction and the foreign key setting.
    private func performRebuild(
        of table: String,
        oldSQL: String,
        definition: String,
        copying columns: [(column: String, expression: String)],
        tableOptions: String?
    ) throws {
        let dependents = try schemaObjectsDepending(onTable: table)
        let indexColumns = try dependents.filter { $0.type == "index" }.map { try indexedColumnNames(ofIndex: $0.name) }
        let viewColumns = try dependents.filter { $0.type == "view" }.map { try resultColumnNames(ofView: $0.name) }
        let options = tableOptions ?? Self.tableOptions(ofCreateTableSQL: oldSQL)
        let sequence: Int64? = try autoincrementSequence(ofTable: table)
        let temporaryName = try unusedTableName(basedOn: table)

        // 3-4. the new table under a temporary name
        try runSingleStatement(TableDefinition.createTableSQL(schema: "main", name: temporaryName, body: definition, options: options))

        // 5. copy the rows; SQLite refuses any value for a generated column, and computes it
        let generated = Set(try schemaReader.columns(ofTable: temporaryName).filter { $0.hidden >= 2 }.map { $0.name.lowercased() })
        let columns = columns.filter { !generated.contains($0.column.lowercased()) }
        if !columns.isEmpty {
            var targetList = columns.map { quoteIdentifier($0.column) }
            var sourceList = columns.map(\.expression)
            if try shouldCopyRowIDs(from: table, oldSQL: oldSQL, to: temporaryName, newOptions: options) {
                targetList.insert("rowid", at: 0)
                sourceList.insert("rowid", at: 0)
            }
            try runSingleStatement(
                """
                INSERT INTO main.\(quoteIdentifier(temporaryName)) (\(targetList.joined(separator: ", "))) \
                SELECT \(sourceList.joined(separator: ", ")) FROM main.\(quoteIdentifier(table))
                """)
        }

        // 6. drop the old table (with its indexes and triggers) and the views that mention it.
        // TEMP triggers on it go too; which ones did is seen by what is gone after the drop (an
        // unqualified TEMP trigger may be on a TEMP table of the same name instead).
        for view in dependents where view.type == "view" {
            try execute("DROP VIEW main.\(quoteIdentifier(view.name))")
        }
        let temporaryTriggers = try temporaryTriggers(onTable: table)
        try execute("DROP TABLE main.\(quoteIdentifier(table))")
        let remainingTriggers = Set(try self.temporaryTriggers(onTable: table).map { $0.name.lowercased() })
        let droppedTemporaryTriggers = temporaryTriggers.filter { !remainingTriggers.contains($0.name.lowercased()) }

        // 7. rename; legacy mode so SQLite neither rewrites nor validates other schema objects now
        let legacy: Int? = try withBookkeeping { try query("PRAGMA legacy_alter_table") }
        try withBookkeeping { try execute("PRAGMA legacy_alter_table = ON") }
        defer { if legacy != 1 { withBookkeeping { _ = try? execute("PRAGMA legacy_alter_table = OFF") } } }
        try execute("ALTER TABLE main.\(quoteIdentifier(temporaryName)) RENAME TO \(quoteIdentifier(table))")
        if let sequence { try restoreAutoincrementSequence(sequence, ofTable: table) }

        // 8. indexes, triggers and views, in their original order. An index on an expression
        // over a column that is gone cannot be made again: said as such, not as "no such column".
        for object in dependents {
            do {
                try execute(object.sql)
            } catch is SQLiteError where object.type == "index" {
                throw TableRebuildError.indexDoesNotFit(index: object.name, table: table)
            }
        }
        for trigger in droppedTemporaryTriggers {
            try execute(Self.temporaryTriggerSQL(trigger.sql))
        }
        // An index on a column that is gone would silently index the string "column" instead
        // (SQLite's double-quoted string fallback): refuse it.
        for (index, columns) in zip(dependents.filter { $0.type == "index" }, indexColumns)
        where try indexedColumnNames(ofIndex: index.name) != columns {
            throw TableRebuildError.indexDoesNotFit(index: index.name, table: table)
        }
        // Likewise a view selecting a column that is gone would select the string "column", and
        // name its result column with the quotes.
        for (view, columns) in zip(dependents.filter { $0.type == "view" }, viewColumns) {
            let stringFallbacks = try resultColumnNames(ofView: view.name).filter {
                $0.count > 1 && $0.hasPrefix("\"") && $0.hasSuffix("\"") && !columns.contains($0)
            }
            if !stringFallbacks.isEmpty { throw TableRebuildError.viewDoesNotFit(view: view.name, table: table) }
        }

        // 10. foreign key check on the table and the tables that reference it
        var violations: [ForeignKeyViolation] = []
        for child in try [table] + tablesReferencing(table) {
            violations += try foreignKeyViolations(inTable: child)
        }
        if !violations.isEmpty { throw TableRebuildError.foreignKeysViolated(table: table, violations: violations) }
    }

    /// Indexes and triggers on `table` (with SQL; automatic indexes come back with the table),
    /// every view whose text mentions the table's name, and the triggers on those views (dropping
    /// a view drops them), in schema order.
    private func schemaObjectsDepending(onTable table: String) throws -> [(type: String, name: String, sql: String)] {
        let entries = try schemaReader.entries()
        let lowered = table.lowercased()
        let views = Set(entries.filter { $0.type == "view" && ($0.sql ?? "").lowercased().contains(lowered) }.map { $0.name.lowercased() })
        return entries.compactMap { entry in
            guard let sql = entry.sql else { return nil }
            let dependsOnTable = (entry.type == "index" || entry.type == "trigger") && sameIdentifier(entry.tableName, table)
            let isDependentView = entry.type == "view" && views.contains(entry.name.lowercased())
            let isTriggerOnView = entry.type == "trigger" && views.contains(entry.tableName.lowercased())
            return dependsOnTable || isDependentView || isTriggerOnView ? (type: entry.type, name: entry.name, sql: sql) : nil
        }
    }

    /// This connection's `TEMP` triggers whose table is called `table` (it may be the main table
    /// or a `TEMP` one of the same name), in schema order.
    private func temporaryTriggers(onTable table: String) throws -> [(name: String, sql: String)] {
        try withBookkeeping {
            let rows: [(name: String, sql: String)] = try query(
                "SELECT name, sql FROM sqlite_temp_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY rowid", [table]
            ) { row in
                let name: String? = row[0], sql: String? = row[1]
                return (name: name ?? "", sql: sql ?? "")
            }
            return rows
        }
    }

    /// The statement that makes a `TEMP` trigger again from its `sqlite_temp_master` text, which
    /// SQLite stores as `CREATE TRIGGER ...` without the `TEMP` that put it there.
    static func temporaryTriggerSQL(_ stored: String) -> String {
        let prefix = Array("CREATE TRIGGER ".utf8)
        let bytes = Array(stored.utf8)
        let upper = bytes.prefix(prefix.count).map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }
        guard upper == prefix else { return stored }
        return "CREATE TEMP TRIGGER " + String(decoding: bytes.dropFirst(prefix.count), as: UTF8.self)
    }

    /// The indexed column names of an index, nil for expressions.
    private func indexedColumnNames(ofIndex index: String) throws -> [String?] {
        try schemaReader.indexedColumnNames(ofIndex: index)
    }

    /// The result column names of a view; empty when the view cannot be evaluated.
    private func resultColumnNames(ofView view: String) throws -> [String] {
        let names = try? schemaReader.visibleColumns(ofTable: view).map(\.name)
        return names ?? []
    }

    /// The names of tables whose foreign keys refer to `table`.
    func tablesReferencing(_ table: String) throws -> [String] {
        try schemaReader.tablesReferencing(table)
    }

    /// What follows the closing parenthesis of a `CREATE TABLE` (`WITHOUT ROWID`, `STRICT`, ...).
    package static func tableOptions(ofCreateTableSQL sql: String) -> String {
        guard let close = sql.lastIndex(of: ")") else { return "" }
        return sql[sql.index(after: close)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Rowids are copied when both tables have them, the new table has no rowid alias (the copied
    /// key column carries the rowid then), and no column shadows the names `rowid`, `oid`, `_rowid_`.
    private func shouldCopyRowIDs(from table: String, oldSQL: String, to newTable: String, newOptions: String) throws -> Bool {
        if tableOptionsAreWithoutRowID(Self.tableOptions(ofCreateTableSQL: oldSQL)) || tableOptionsAreWithoutRowID(newOptions) {
            return false
        }
        let reserved: Set<String> = ["rowid", "oid", "_rowid_"]
        for name in [table, newTable] where try schemaReader.columns(ofTable: name).contains(where: { reserved.contains($0.name.lowercased()) }) {
            return false
        }
        return try schemaReader.rowIDAliasColumn(ofTable: newTable) == nil
    }

    /// A table name not yet used in the main schema, for the new table during the rebuild.
    private func unusedTableName(basedOn table: String) throws -> String {
        var counter = 0
        while true {
            let candidate = "strata_rebuild_\(counter)_\(table)"
            if try schemaReader.entry(named: candidate) == nil {
                return candidate
            }
            counter += 1
        }
    }

    private func autoincrementSequence(ofTable table: String) throws -> Int64? {
        guard try tableSQL(named: "sqlite_sequence") != nil else { return nil }
        return try query("SELECT seq FROM main.sqlite_sequence WHERE name = ? COLLATE NOCASE", table)
    }

    /// Puts back the `AUTOINCREMENT` counter of the old table, so rowids of deleted rows are not reused.
    private func restoreAutoincrementSequence(_ sequence: Int64, ofTable table: String) throws {
        guard let sql = try tableSQL(named: table), sql.uppercased().contains("AUTOINCREMENT") else { return }
        try run("UPDATE main.sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", sequence, table)
        if changes == 0 {
            try run("INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)", table, sequence)
        }
    }
}
