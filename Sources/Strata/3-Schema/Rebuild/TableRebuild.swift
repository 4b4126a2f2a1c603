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
    /// - Indexes and triggers of the table, and views that mention it, are recreated from their
    ///   SQL. An index or view naming a column the new table lacks fails the rebuild; a trigger is
    ///   recreated as written (SQLite checks a trigger's body only when it fires).
    ///   `AUTOINCREMENT` counters are kept.
    ///
    /// Outside a transaction the rebuild turns `foreign_keys` off, runs in `BEGIN IMMEDIATE`, and
    /// restores the setting. Inside one it runs under a savepoint, and foreign keys must already be
    /// off (SQLite cannot change the setting inside a transaction): callers such as `Schema.migrate`
    /// wrap their transaction in ``withForeignKeysDisabled(_:)``. Either way
    /// `PRAGMA foreign_key_check` runs on the table and the tables referencing it afterwards.
    /// Any failure rolls back: the database is exactly as before.
    /// - Throws: ``TableRebuildError`` (no such table, foreign keys on inside a transaction,
    ///   foreign key violations) or `SQLiteError` from the SQL, in which case nothing changed.
    public func rebuildTable(
        named table: String,
        definition: String,
        copying columns: [(column: String, expression: String)],
        tableOptions: String? = nil
    ) throws {
        guard let stored = try tableNameAndSQL(named: table) else { throw TableRebuildError.noSuchTable(table) }
        let (table, oldSQL) = stored   // the name as stored, so the rebuilt table keeps its case
        if isInTransaction {
            if try foreignKeysEnabled() { throw TableRebuildError.foreignKeysEnabledInTransaction(table: table) }
            try savepoint(named: "strata_rebuild_table") {
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
        try prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", table)
            .query { (row: Row) -> (name: String, sql: String) in (name: row[0] ?? table, sql: row[1] ?? "") }
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
        try execute("CREATE TABLE main.\(quoteIdentifier(temporaryName)) (\(definition))\(options.isEmpty ? "" : " " + options)")

        // 5. copy the rows
        if !columns.isEmpty {
            var targetList = columns.map { quoteIdentifier($0.column) }
            var sourceList = columns.map(\.expression)
            if try shouldCopyRowIDs(from: table, oldSQL: oldSQL, to: temporaryName, newOptions: options) {
                targetList.insert("rowid", at: 0)
                sourceList.insert("rowid", at: 0)
            }
            try execute("""
                INSERT INTO main.\(quoteIdentifier(temporaryName)) (\(targetList.joined(separator: ", "))) \
                SELECT \(sourceList.joined(separator: ", ")) FROM main.\(quoteIdentifier(table))
                """)
        }

        // 6. drop the old table (with its indexes and triggers) and the views that mention it
        for view in dependents where view.type == "view" {
            try execute("DROP VIEW main.\(quoteIdentifier(view.name))")
        }
        try execute("DROP TABLE main.\(quoteIdentifier(table))")

        // 7. rename; legacy mode so SQLite neither rewrites nor validates other schema objects now
        let legacy: Int? = try query("PRAGMA legacy_alter_table")
        try execute("PRAGMA legacy_alter_table = ON")
        defer { if legacy != 1 { try? execute("PRAGMA legacy_alter_table = OFF") } }
        try execute("ALTER TABLE main.\(quoteIdentifier(temporaryName)) RENAME TO \(quoteIdentifier(table))")
        if let sequence { try restoreAutoincrementSequence(sequence, ofTable: table) }

        // 8. indexes, triggers and views, in their original order
        for object in dependents {
            try execute(object.sql)
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
        try prepare("""
            SELECT type, name, sql FROM main.sqlite_master
            WHERE sql IS NOT NULL AND (
                (type IN ('index', 'trigger') AND tbl_name = ?1 COLLATE NOCASE)
                OR (type = 'view' AND instr(lower(sql), lower(?1)) > 0)
                OR (type = 'trigger' AND tbl_name IN (
                    SELECT name FROM main.sqlite_master WHERE type = 'view' AND instr(lower(sql), lower(?1)) > 0)))
            ORDER BY rowid
            """, table).query { (row: Row) in
            (type: row[0] ?? "", name: row[1] ?? "", sql: row[2] ?? "")
        }
    }

    /// The indexed column names of an index, nil for expressions.
    private func indexedColumnNames(ofIndex index: String) throws -> [String?] {
        try prepare("SELECT name FROM pragma_index_info(?)", index).query { (row: Row) -> String? in row[0] }
    }

    /// The result column names of a view; empty when the view cannot be evaluated.
    private func resultColumnNames(ofView view: String) throws -> [String] {
        let names: [String]? = try? prepare("SELECT name FROM pragma_table_info(?)", view).query { (row: Row) -> String in row[0] ?? "" }
        return names ?? []
    }

    /// The names of tables whose foreign keys refer to `table`.
    func tablesReferencing(_ table: String) throws -> [String] {
        let tables: [String] = try query(
            "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        var result: [String] = []
        for candidate in tables where candidate.caseInsensitiveCompare(table) != .orderedSame {
            let parents: [String] = try prepare("SELECT \"table\" FROM pragma_foreign_key_list(?)", candidate).query { (row: Row) in
                row[0] ?? ""
            }
            if parents.contains(where: { $0.caseInsensitiveCompare(table) == .orderedSame }) { result.append(candidate) }
        }
        return result
    }

    /// What follows the closing parenthesis of a `CREATE TABLE` (`WITHOUT ROWID`, `STRICT`, ...).
    static func tableOptions(ofCreateTableSQL sql: String) -> String {
        guard let close = sql.lastIndex(of: ")") else { return "" }
        return sql[sql.index(after: close)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func isWithoutRowID(options: String) -> Bool {
        options.uppercased().replacingOccurrences(of: " ", with: "").contains("WITHOUTROWID")
    }

    /// Rowids are copied when both tables have them, none is aliased by an `INTEGER PRIMARY KEY`
    /// of the new table (the copied column carries it), and no column shadows the name `rowid`.
    private func shouldCopyRowIDs(from table: String, oldSQL: String, to newTable: String, newOptions: String) throws -> Bool {
        if Self.isWithoutRowID(options: Self.tableOptions(ofCreateTableSQL: oldSQL)) || Self.isWithoutRowID(options: newOptions) {
            return false
        }
        let reserved: Set<String> = ["rowid", "oid", "_rowid_"]
        var primaryKeyTypes: [String] = []
        for name in [table, newTable] {
            let info: [(name: String, type: String, pk: Int)] = try prepare(
                "SELECT name, type, pk FROM pragma_table_info(?)", name).query { (row: Row) in
                (name: row[0] ?? "", type: row[1] ?? "", pk: row[2] ?? 0)
            }
            if info.contains(where: { reserved.contains($0.name.lowercased()) }) { return false }
            if name == newTable { primaryKeyTypes = info.filter { $0.pk > 0 }.map { $0.type.uppercased() } }
        }
        return !(primaryKeyTypes.count == 1 && primaryKeyTypes[0] == "INTEGER")
    }

    /// A table name not yet used in the main schema, for the new table during the rebuild.
    private func unusedTableName(basedOn table: String) throws -> String {
        var counter = 0
        while true {
            let candidate = "strata_rebuild_\(counter)_\(table)"
            if try tableSQL(named: candidate) == nil,
               (try query("SELECT count(*) FROM main.sqlite_master WHERE name = ? COLLATE NOCASE", candidate) as Int?) == 0 {
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
