import Foundation

extension Storage {
    /// Brings every table of the storage to its definition and says what it did to each.
    ///
    /// ```swift
    /// let results = try storage.syncSchema(preserve: true)  // ["users": .newTableCreated, ...]
    /// ```
    /// Tables in the database that the storage does not map are left alone, and so are the shadow
    /// tables of virtual tables. A mapped virtual table (an FTS5 index) is never dropped or rebuilt:
    /// it is in sync when it has the mapped columns. For each other table:
    /// - missing: created (`.newTableCreated`);
    /// - columns to add, each nullable or with a default: `ALTER TABLE ... ADD COLUMN`
    ///   (`.newColumnsAdded`);
    /// - excess columns: with `preserve: true` the table is rebuilt without them, the other
    ///   columns' rows copied (`.oldColumnsRemoved`, or `.newColumnsAddedAndOldColumnsRemoved`);
    ///   with `preserve: false` it is dropped and recreated empty (`.droppedAndRecreated`);
    /// - a column whose type affinity, `NOT NULL` or primary key changed (or whose key stopped or
    ///   started being the rowid, as `INTEGER PRIMARY KEY DESC` is not), or an added `NOT NULL`
    ///   column without default: `.droppedAndRecreated`, and with `preserve: true` the rows are
    ///   copied into the new table. A new or newly `NOT NULL` column takes, for existing rows, the
    ///   value the model's `init()` gives the property.
    ///
    /// Types are compared as SQLite reads them, by affinity: `text`, `TEXT` and `VARCHAR(20)` are
    /// one type, so a spelling never counts as a change. Rebuilds use Strata's table rebuild
    /// (`Connection.rebuildTable`), which keeps indexes, triggers (`TEMP` ones included) and
    /// views; an index made by hand on a removed column is dropped with it (one on an expression
    /// over it makes the sync throw `TableRebuildError.indexDoesNotFit`). Defaults, `UNIQUE` and
    /// conflict clauses are not compared (as in SQLiteORM). Everything runs in one transaction with foreign keys off: a failure (a copy
    /// that breaks the new primary key, say) leaves the database exactly as it was.
    /// - Throws: `SQLiteError`, `TableRebuildError` (`foreignKeysEnabledInTransaction` inside a transaction with foreign keys enforced), or `ORMError.invalidDefinition` (a mapped
    ///   virtual table lacks mapped columns), after rolling everything back.
    @discardableResult
    public func syncSchema(preserve: Bool) throws -> [String: SyncSchemaResult] {
        defer { connection.removeUnusedCachedStatements() }
        // Inside the caller's transaction SQLite keeps enforcement on, so a dropped table's rows
        // would be deleted through its children's ON DELETE actions: refused before anything runs.
        if connection.isInTransaction, try connection.foreignKeysEnabled() {
            throw TableRebuildError.foreignKeysEnabledInTransaction(table: "")
        }
        // SQLiteORM's sync_schema checks no foreign keys; rebuilds run with enforcement off.
        return try SchemaChange(savepointName: "strata_orm_sync_schema", foreignKeyCheck: .none)
            .run(on: connection) { try syncTables(preserve: preserve) }
    }

    private func syncTables(preserve: Bool) throws -> [String: SyncSchemaResult] {
        var results: [String: SyncSchemaResult] = [:]
        for table in schema.tables {
            results[table.name] = try sync(table, preserve: preserve)
        }
        return results
    }

    private func sync(_ table: AnyTable, preserve: Bool) throws -> SyncSchemaResult {
        let keys = table.primaryKeyColumns
        let declared = DeclaredTable(
            name: table.name,
            columns: table.columns.map { column in
                // ALTER TABLE ADD COLUMN cannot add a key or UNIQUE column, nor NOT NULL without a default.
                DeclaredTable.Column(
                    column.definition(inlinePrimaryKey: false), of: table.name,
                    isAddable: !column.isPrimaryKey && !column.isUnique && (!column.isNotNull || column.hasDefault))
            },
            definitionSQL: table.definitionSQL,
            tableOptions: nil)
        // The one schema-reconciliation engine (records' `RecordSchema` runs on it too) compares and plans.
        guard try tableExists(with: table.name), let comparison = try connection.compareTable(declared) else {
            try connection.execute(table.createSQL)
            return .newTableCreated
        }
        if let module = comparison.entry.virtualTableModule {
            return try syncVirtual(table, module: module, existing: comparison.existing)
        }
        let rowIDAlias = try connection.schemaReader.rowIDAliasColumn(ofTable: comparison.entry.name)
        // A column whose type affinity, NOT NULL, key position or rowid aliasing changed.
        let changed = table.columns.filter { column in
            guard let current = comparison.existingColumn(named: column.name) else { return false }
            let keyPosition = keys.firstIndex { $0 === column }.map { $0 + 1 } ?? 0
            let aliasesRowID = rowIDAlias.map { sameIdentifier($0.name, current.name) } ?? false
            return DeclaredTypeAffinity(declaredType: current.declaredType) != DeclaredTypeAffinity(declaredType: column.sqlType)
                || current.notNull != column.isNotNull
                || current.primaryKeyIndex != keyPosition
                || aliasesRowID != (column === table.rowidColumn)
        }
        let requiresRecreation = !changed.isEmpty || comparison.missing.contains { !$0.isAddable }
        // The model's defaults, read only when a rebuild copies rows.
        var defaults: [String]?
        let plan = try connection.planTableReconciliation(declared, comparison: comparison, rebuildReasons: changed.map(\.name)) { declaredColumn, old in
            guard preserve, let position = table.columns.firstIndex(where: { $0.name == declaredColumn.name }) else { return nil }
            if defaults == nil { defaults = try defaultLiterals(of: table) }
            let literal = defaults.map { $0[position] } ?? "NULL"
            return try copyExpression(for: table.columns[position], in: table, old: old, literal: literal)
        }
        switch plan {
        case .inSync:
            return .alredyInSync
        case .addColumns(let statements):
            for sql in statements { try connection.execute(sql) }
            return .newColumnsAdded
        case .rebuild(let rebuild):
            guard preserve else {
                try connection.execute("DROP TABLE \(table.name.quotedIdentifier)")
                try connection.execute(table.createSQL)
                return .droppedAndRecreated
            }
            // An index made by hand over a column that goes is dropped with it, as the schema DSL does.
            for sql in rebuild.dropIndexSQL { try connection.execute(sql) }
            try connection.applyTableRebuild(rebuild)
            if requiresRecreation { return .droppedAndRecreated }
            return comparison.missing.isEmpty ? .oldColumnsRemoved : .newColumnsAddedAndOldColumnsRemoved
        }
    }

    /// A mapped virtual table (an FTS5 index, say) is never dropped or rebuilt: its module keeps
    /// its rows (in shadow tables), which a copy cannot carry over. Its columns have no declared
    /// types, so only their names are compared.
    ///
    /// - Throws: `ORMError.invalidDefinition` when the mapped columns are not the table's.
    private func syncVirtual(_ table: AnyTable, module: String, existing: [TableColumn]) throws -> SyncSchemaResult {
        let existingNames = IdentifierSet(existing.map(\.name))
        let missing = table.columns.map(\.name).filter { !existingNames.contains($0) }
        guard missing.isEmpty else {
            throw ORMError.invalidDefinition(
                "syncSchema cannot change '\(table.name)': it is a virtual table (USING \(module)) and lacks the mapped column(s) "
                    + missing.map { "'\($0)'" }.joined(separator: ", ") + "; drop it and create it again with its new columns"
            )
        }
        return .alredyInSync
    }

    /// What fills `column` of the rebuilt table from the old row: the old column (NULLs replaced
    /// by the model's default when the column is NOT NULL now), or, for a new NOT NULL column
    /// without a default, the model's default (`literal`); other new columns take their default.
    ///
    /// - Throws: `ORMError.invalidDefinition` when a NOT NULL column's only fill is the model's nil
    ///   and some row needs it: `preserve: true` never drops rows, so the caller decides.
    private func copyExpression(for column: AnyColumn, in table: AnyTable, old: TableColumn?, literal: String) throws -> String? {
        if column.isNotNull, !column.hasDefault, literal == "NULL", old.map({ !$0.notNull }) ?? true {
            let filter = old.map { " WHERE \($0.name.quotedIdentifier) IS NULL" } ?? ""
            let needed: Bool? = try connection.query("SELECT EXISTS(SELECT 1 FROM \(table.name.quotedIdentifier)\(filter))")
            if needed == true {
                throw ORMError.invalidDefinition(
                    "syncSchema(preserve: true) cannot keep the rows of '\(table.name)': column '\(column.name)' is NOT NULL "
                        + "without a default and a new object leaves it nil; give it a default or a non-nil initial value, "
                        + "or call syncSchema(preserve: false)"
                )
            }
        }
        if let old {
            let source = old.name.quotedIdentifier
            return column.isNotNull && !old.notNull ? "coalesce(\(source), \(literal))" : source
        }
        return column.isNotNull && !column.hasDefault ? literal : nil
    }

    /// Each column's value in a fresh model object, as an SQL literal; NULL for a model that is
    /// not `Initializable` (no fresh object to read), so a NOT NULL column without a default that
    /// rows need is refused by name.
    private func defaultLiterals(of table: AnyTable) throws -> [String] {
        (table as? DefaultLiteralProviding)?.defaultLiterals ?? Array(repeating: "NULL", count: table.columns.count)
    }
}

/// A table that can render the values of a fresh model object (`T()`) as SQL literals.
protocol DefaultLiteralProviding {
    var defaultLiterals: [String] { get }
}

extension Table: DefaultLiteralProviding where T: Initializable {
    var defaultLiterals: [String] {
        let object = T()
        return accessors.map { $0.literal(object) }
    }
}
