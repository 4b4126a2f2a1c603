// The one schema-reconciliation engine: a table as a higher layer declares it (records' `RecordSchema`, the
// ORM's `syncSchema(preserve:)`) compared with the database, and the plan that brings the table to
// the declaration: nothing, `ADD COLUMN`s, or the kernel's twelve-step rebuild with the rows
// copied. Both layers call it; each keeps only its own policy (what counts as a change worth a
// rebuild, what fills a new NOT NULL column, what a caller is told).

/// A table as a layer above the kernel declares it.
import StrataKernel
package struct DeclaredTable: Sendable {
    /// One declared column.
    package struct Column: Sendable {
        package let name: String
        /// Whether `ALTER TABLE … ADD COLUMN` can add it (nullable or with a default, not a key,
        /// not UNIQUE, no foreign key or CHECK of its own): the layer that declares it knows.
        package let isAddable: Bool
        /// The `ALTER TABLE … ADD COLUMN` statement that adds it to the declared table.
        package let addColumnSQL: String

        /// The column `definition` declares, of the table named `table`.
        package init(_ definition: TableDefinition.Column, of table: String, isAddable: Bool) {
            name = definition.name
            self.isAddable = isAddable
            addColumnSQL = TableDefinition.addColumnSQL(table: table, column: definition)
        }
    }

    package let name: String
    package let columns: [Column]
    /// What goes between the parentheses of its `CREATE TABLE` (columns and table constraints).
    package let definitionSQL: String
    /// What follows the parentheses (`WITHOUT ROWID`, `STRICT`, or ""); nil keeps the table's own.
    package let tableOptions: String?

    package init(name: String, columns: [Column], definitionSQL: String, tableOptions: String?) {
        self.name = name
        self.columns = columns
        self.definitionSQL = definitionSQL
        self.tableOptions = tableOptions
    }
}

/// A declared table beside the one in the database: which columns match by name (as SQLite
/// compares identifiers: bytes, ASCII case folded), which are missing and which are extra.
package struct TableComparison: Sendable {
    /// The table's schema entry (its name as the database spells it, its SQL).
    package let entry: SchemaEntryInfo
    /// The database's visible columns, and its generated ones when the caller matches them
    /// (a virtual table's hidden columns never: a declaration does not name them).
    package let existing: [TableColumn]
    /// Declared columns the table has, each with the table's column.
    package let matches: [(declared: DeclaredTable.Column, existing: TableColumn)]
    /// Declared columns the table lacks.
    package let missing: [DeclaredTable.Column]
    /// The table's columns nothing declares.
    package let extra: [TableColumn]

    /// The table's column of that name: the exact spelling first, then as SQLite compares.
    package func existingColumn(named name: String) -> TableColumn? {
        existing.first { sameBytes($0.name, name) } ?? existing.first { sameIdentifier($0.name, name) }
    }
}

/// What the engine would do to one table.
package enum TableReconciliationPlan: Sendable, Equatable {
    /// The table matches the declaration.
    case inSync
    /// Columns `ALTER TABLE … ADD COLUMN` adds, one statement each.
    case addColumns([String])
    /// The twelve-step rebuild.
    case rebuild(TableRebuildPlan)
}

/// A rebuild the engine planned: the new definition, what fills each column from the old rows,
/// the indexes that go with dropped columns, and the columns whose data goes.
package struct TableRebuildPlan: Sendable, Equatable {
    package let table: String
    package let definitionSQL: String
    package let tableOptions: String?
    /// For each new column filled from the old rows: its name and the SQL over the old row.
    package let copies: [Copy]
    /// Indexes made by `CREATE INDEX` over a column that goes: dropped first (the rebuild could
    /// not make them again).
    package let droppedIndexes: [String]
    /// Dropped columns that hold a value other than NULL.
    package let columnsLosingData: [String]
    /// Columns that go (empty or not).
    package let droppedColumns: [String]
    /// The procedure as SQL, for a reader: the statements SQLite's documentation gives, then
    /// the indexes and triggers made again. `applyTableRebuild(_:)` runs the
    /// kernel's `rebuildTable`, which also keeps views and `AUTOINCREMENT` counters.
    package let sql: [String]

    /// One column of the new table and what fills it.
    package struct Copy: Sendable, Equatable {
        package let column: String
        package let expression: String
    }

    /// `DROP INDEX` for each index that goes.
    package var dropIndexSQL: [String] { droppedIndexes.map { "DROP INDEX main." + quoteIdentifier($0) } }
}

extension Connection {
    /// The declared table beside the database's, or nil when the main database has no table of
    /// that name (a view or a virtual table is returned; callers decide what they may do to it).
    /// - Parameter matchingGeneratedColumns: Whether a declared column may match a generated
    ///   one (records: its values are copied when the table is rebuilt); never counted as extra.
    package func compareTable(_ declared: DeclaredTable, matchingGeneratedColumns: Bool = false) throws -> TableComparison? {
        let reader = schemaReader
        guard let entry = try reader.table(named: declared.name, includingViews: true) else { return nil }
        let all = try reader.columns(ofTable: entry.name)
        let existing = all.filter { $0.hidden == 0 || (matchingGeneratedColumns && $0.hidden >= 2) }
        var matches: [(declared: DeclaredTable.Column, existing: TableColumn)] = []
        var missing: [DeclaredTable.Column] = []
        var matched = IdentifierSet()
        for column in declared.columns {
            let found = existing.first { sameBytes($0.name, column.name) } ?? existing.first { sameIdentifier($0.name, column.name) }
            if let found {
                matches.append((column, found))
                matched.insert(found.name)
            } else {
                missing.append(column)
            }
        }
        let extra = existing.filter { $0.hidden == 0 && !matched.contains($0.name) }
        return TableComparison(entry: entry, existing: existing, matches: matches, missing: missing, extra: extra)
    }

    /// The plan for one table that exists: in sync, columns to add, or a rebuild.
    ///
    /// A rebuild is planned when `rebuildReasons` is not empty (the layer's own comparison found a
    /// type, a key or a constraint that changed), when a column goes, or when a missing column is
    /// one `ADD COLUMN` cannot add.
    /// - Parameters:
    ///   - copyExpression: For each declared column, the SQL (over the old row) that fills it in
    ///     the rebuilt table, given the old column when there is one; nil leaves it to its
    ///     default. It may throw to refuse the rebuild (the ORM does when rows cannot be kept).
    package func planTableReconciliation(
        _ declared: DeclaredTable,
        comparison: TableComparison,
        rebuildReasons: [String],
        copyExpression: (DeclaredTable.Column, TableColumn?) throws -> String?
    ) throws -> TableReconciliationPlan {
        let needsRebuild = !rebuildReasons.isEmpty || !comparison.extra.isEmpty || comparison.missing.contains { !$0.isAddable }
        guard needsRebuild else {
            return comparison.missing.isEmpty ? .inSync : .addColumns(comparison.missing.map(\.addColumnSQL))
        }
        let reader = schemaReader
        let table = comparison.entry.name
        let quotedTable = quoteIdentifier(table)
        let dropped = IdentifierSet(comparison.extra.map(\.name))
        let droppedIndexes = try reader.indexes(ofTable: table).filter { index in
            index.origin == .createIndex && index.columnNames.contains { dropped.contains($0) }
        }.map(\.name)
        var losing: [String] = []
        for column in comparison.extra {
            let holdsData: Int? = try query("SELECT EXISTS (SELECT 1 FROM main.\(quotedTable) WHERE \(quoteIdentifier(column.name)) IS NOT NULL)")
            if holdsData == 1 { losing.append(column.name) }
        }
        var copies: [TableRebuildPlan.Copy] = []
        for column in declared.columns {
            let old = comparison.existingColumn(named: column.name)
            if let expression = try copyExpression(column, old) { copies.append(.init(column: column.name, expression: expression)) }
        }
        let temporaryName = "strata_rebuild_0_" + table
        let temporary = quoteIdentifier(temporaryName)
        let tableOptions = declared.tableOptions ?? Connection.tableOptions(ofCreateTableSQL: comparison.entry.sql ?? "")
        var sql = [TableDefinition.createTableSQL(schema: "main", name: temporaryName, body: declared.definitionSQL, options: tableOptions)]
        if !copies.isEmpty {
            sql.append(
                "INSERT INTO main.\(temporary) (\(copies.map { quoteIdentifier($0.column) }.joined(separator: ", "))) SELECT "
                    + copies.map(\.expression).joined(separator: ", ") + " FROM main.\(quotedTable)")
        }
        sql += [
            "DROP TABLE main.\(quotedTable)",
            // Legacy renaming, as the kernel's rebuild does: a view naming the table would
            // otherwise fail the rename while the table is gone.
            "PRAGMA legacy_alter_table = ON",
            "ALTER TABLE main.\(temporary) RENAME TO \(quotedTable)",
            "PRAGMA legacy_alter_table = OFF"
        ]
        let doomed = IdentifierSet(droppedIndexes)
        sql += try reader.entries().filter { entry in
            (entry.type == "index" || entry.type == "trigger") && sameIdentifier(entry.tableName, table) && entry.sql != nil
                && !doomed.contains(entry.name)
        }.compactMap(\.sql)
        return .rebuild(
            TableRebuildPlan(
                table: table, definitionSQL: declared.definitionSQL, tableOptions: declared.tableOptions,
                copies: copies, droppedIndexes: droppedIndexes, columnsLosingData: losing,
                droppedColumns: comparison.extra.map(\.name), sql: sql))
    }

    /// Runs a planned rebuild: the kernel's `rebuildTable` (indexes, triggers and views kept).
    /// The indexes the plan drops must be dropped first (`TableRebuildPlan.dropIndexSQL`).
    package func applyTableRebuild(_ plan: TableRebuildPlan) throws {
        try rebuildTable(
            named: plan.table, definition: plan.definitionSQL,
            copying: plan.copies.map { (column: $0.column, expression: $0.expression) },
            tableOptions: plan.tableOptions)
    }
}
