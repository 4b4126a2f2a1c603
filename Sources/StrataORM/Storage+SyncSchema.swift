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
    /// - Throws: `SQLiteError`, `TableRebuildError`, or `ORMError.invalidDefinition` (a mapped
    ///   virtual table lacks mapped columns), after rolling everything back.
    @discardableResult
    public func syncSchema(preserve: Bool) throws -> [String: SyncSchemaResult] {
        defer { connection.removeUnusedCachedStatements() }
        return try connection.withForeignKeysDisabled {
            if connection.isInTransaction {
                return try connection.strataSavepoint(named: "strata_orm_sync_schema") { try syncTables(preserve: preserve) }
            }
            return try connection.transaction(transactionType: .immediate) { try syncTables(preserve: preserve) }
        }
    }

    private func syncTables(preserve: Bool) throws -> [String: SyncSchemaResult] {
        var results: [String: SyncSchemaResult] = [:]
        for table in schema.tables {
            results[table.name] = try sync(table, preserve: preserve)
        }
        return results
    }


    private func sync(_ table: AnyTable, preserve: Bool) throws -> SyncSchemaResult {
        guard try tableExists(with: table.name) else {
            try connection.execute(table.createSQL)
            return .newTableCreated
        }
        let existing = try connection.tableInfoForTableNamed(table.name)?.columns ?? []
        if let module = try connection.readSchema().tableNamed(table.name)?.virtualTableModule {
            return try syncVirtual(table, module: module, existing: existing)
        }
        let existingByName = Dictionary(existing.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        let mappedNames = Set(table.columns.map { $0.name.lowercased() })
        let keys = table.primaryKeyColumns

        let excess = existing.filter { !mappedNames.contains($0.name.lowercased()) }
        let added = table.columns.filter { existingByName[$0.name.lowercased()] == nil }
        let rowIDAlias = try connection.schemaReader.rowIDAliasColumn(ofTable: table.name)
        let changed = table.columns.filter { column in
            guard let current = existingByName[column.name.lowercased()] else { return false }
            let keyPosition = keys.firstIndex { $0 === column }.map { $0 + 1 } ?? 0
            let aliasesRowID = rowIDAlias.map { sameIdentifier($0.name, current.name) } ?? false
            return DeclaredTypeAffinity(declaredType: current.type) != DeclaredTypeAffinity(declaredType: column.sqlType)
                || current.notNull != column.isNotNull
                || current.primaryKeyIndex != keyPosition
                || aliasesRowID != (column === table.rowidColumn)
        }
        // ALTER TABLE ADD COLUMN cannot add a key or UNIQUE column, nor NOT NULL without a default.
        let addable = added.allSatisfy { !$0.isPrimaryKey && !$0.isUnique && (!$0.isNotNull || $0.hasDefault) }
        let requiresRecreation = !changed.isEmpty || !addable

        if excess.isEmpty && added.isEmpty && changed.isEmpty { return .alredyInSync }
        if excess.isEmpty && !requiresRecreation {
            for column in added {
                try connection.execute(TableDefinition.addColumnSQL(table: table.name, column: column.definition(inlinePrimaryKey: false)))
            }
            return .newColumnsAdded
        }
        guard preserve else {
            try connection.execute("DROP TABLE \(table.name.quotedIdentifier)")
            try connection.execute(table.createSQL)
            return .droppedAndRecreated
        }
        let copies = try copyExpressions(for: table, existing: existingByName)
        try dropIndexes(of: table.name, onColumns: excess)
        try connection.rebuildTable(named: table.name, definition: table.definitionSQL, copying: copies)
        if requiresRecreation { return .droppedAndRecreated }
        return added.isEmpty ? .oldColumnsRemoved : .newColumnsAddedAndOldColumnsRemoved
    }

    /// Drops the indexes made by `CREATE INDEX` that key on one of `columns`, which go with them
    /// (the rebuild could not make them again), as the schema DSL drops a column's indexes.
    private func dropIndexes(of table: String, onColumns columns: [ColumnInfo]) throws {
        let names = Set(columns.map { $0.name.lowercased() })
        guard !names.isEmpty else { return }
        for index in try connection.schemaReader.indexes(ofTable: table) where index.origin == .createIndex
            && index.columnNames.contains(where: { names.contains($0.lowercased()) }) {
            try connection.execute("DROP INDEX main.\(index.name.quotedIdentifier)")
        }
    }

    /// A mapped virtual table (an FTS5 index, say) is never dropped or rebuilt: its module keeps
    /// its rows (in shadow tables), which a copy cannot carry over. Its columns have no declared
    /// types, so only their names are compared.
    ///
    /// - Throws: `ORMError.invalidDefinition` when the mapped columns are not the table's.
    private func syncVirtual(_ table: AnyTable, module: String, existing: [ColumnInfo]) throws -> SyncSchemaResult {
        let existingNames = Set(existing.map { $0.name.lowercased() })
        let missing = table.columns.map(\.name).filter { !existingNames.contains($0.lowercased()) }
        guard missing.isEmpty else {
            throw ORMError.invalidDefinition(
                "syncSchema cannot change '\(table.name)': it is a virtual table (USING \(module)) and lacks the mapped column(s) "
                    + missing.map { "'\($0)'" }.joined(separator: ", ") + "; drop it and create it again with its new columns"
            )
        }
        return .alredyInSync
    }

    /// For each column of the new table, what to fill it with from the old row: the old column
    /// (NULLs replaced by the model's default when the column is NOT NULL now), or, for a new
    /// NOT NULL column without a default, the model's default; other new columns take their default.
    ///
    /// - Throws: `ORMError.invalidDefinition` when a NOT NULL column's only fill is the model's nil
    ///   and some row needs it: `preserve: true` never drops rows, so the caller decides.
    private func copyExpressions(for table: AnyTable, existing: [String: ColumnInfo]) throws
        -> [(column: String, expression: String)] {
        let defaults = try defaultLiterals(of: table)
        var copies: [(column: String, expression: String)] = []
        for (column, literal) in zip(table.columns, defaults) {
            let old = existing[column.name.lowercased()]
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
            if let old = existing[column.name.lowercased()] {
                let source = old.name.quotedIdentifier
                copies.append((column.name, column.isNotNull && !old.notNull ? "coalesce(\(source), \(literal))" : source))
            } else if column.isNotNull && !column.hasDefault {
                copies.append((column.name, literal))
            }
        }
        return copies
    }

    /// Each column's value in a fresh model object, as an SQL literal.
    private func defaultLiterals(of table: AnyTable) throws -> [String] {
        guard let literals = (table as? DefaultLiteralProviding)?.defaultLiterals else {
            throw ORMError.invalidDefinition("table '\(table.name)' is not a Table<T>")
        }
        return literals
    }
}

/// A table that can render the values of a fresh model object (`T()`) as SQL literals.
protocol DefaultLiteralProviding {
    var defaultLiterals: [String] { get }
}

extension Table: DefaultLiteralProviding {
    var defaultLiterals: [String] {
        let object = T()
        return accessors.map { $0.literal(object) }
    }
}
