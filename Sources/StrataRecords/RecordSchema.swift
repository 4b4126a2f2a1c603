// `RecordSchema`: the difference between the tables records declare and the database, as a plan of
// steps (CREATE TABLE, ADD COLUMN, the kernel's table rebuild, CREATE INDEX), and `migrate`, which
// applies the plan in one transaction. The comparison is `checkSchema`'s; the rebuild is the
// kernel's `Connection.rebuildTable`; the DDL is `createTable`'s.
import Foundation

/// The tables a set of records declares, compared with a database.
///
/// ```swift
/// let schema = RecordSchema(Author.self, Book.self)
/// let plan = try schema.plan(for: db)        // empty when the database matches the records
/// try schema.migrate(db)                      // applies the plan in one transaction
/// ```
/// Tables of the database that no record declares are left alone. A renamed property is never
/// guessed: it is a dropped column and an added one.
public struct RecordSchema: Sendable {
    let records: [TableDeclaration]

    /// What one record declares.
    struct TableDeclaration: Sendable {
        let record: String
        let table: String
        let columns: [RecordColumn]
        let primaryKeyIndex: Int?
        let constraints: [RecordConstraint]
        let statements: RecordStatements
        /// An ``FTS5Record``'s options: its table is that FTS5 table, not a plain one.
        var fullText: FTS5Options? = nil
    }

    /// The schema of `records`, in the order given (a referenced record before its referrers
    /// reads best, though SQLite does not require it).
    public init(_ records: any Record.Type...) {
        self.init(records)
    }

    /// The schema of tables described by their parts.
    init(tables: [TableDeclaration]) {
        records = tables
    }

    /// The schema of `records`, in the order given.
    public init(_ records: [any Record.Type]) {
        self.records = records.map { record in
            TableDeclaration(
                record: "\(record)", table: record.tableName, columns: record.recordColumns, primaryKeyIndex: record.primaryKeyIndex,
                constraints: record.recordConstraints, statements: record.recordStatements,
                fullText: (record as? any FTS5Record.Type)?.fts5Options)
        }
    }

    /// The steps that make the database match the records; empty when it does.
    ///
    /// A missing table is created as `createTable` creates it, with its indexes. A missing
    /// column SQLite can add (optional or with a `@Default`, not a key, not UNIQUE, no foreign key
    /// or CHECK on it) is added with `ALTER TABLE … ADD COLUMN`, the existing rows taking its
    /// default. Any other change (a type, nullability, key, foreign key, UNIQUE or CHECK, a column
    /// to drop) rebuilds the table with SQLite's twelve steps, keeping its rows, indexes, triggers
    /// and views. A missing index is created. A column's default alone is not compared. A new
    /// non-optional column without `@Default` over a table that has rows is planned as a rebuild
    /// whose summary says it needs a default; `migrate` refuses it.
    ///
    /// An ``FTS5Record``'s table is created as `createTable` creates it: the FTS5 virtual table
    /// with its ``FTS5Record/fts5Options``, and for external content the triggers that keep it in
    /// sync and the statement that fills it, after every other table of the plan (its content
    /// table among them). One already there with the same `CREATE VIRTUAL TABLE` plans nothing;
    /// one made another way (other columns, tokenizer or content) is refused, never rebuilt by
    /// guesswork. A record keyed by `rowid` that is not an `FTS5Record` is refused too: that is
    /// the shape of a record over an FTS5 table, which as a plain table could not be searched.
    /// - Throws: `SQLiteError` when the schema cannot be read; ``RecordError/noPrimaryKey(record:)``
    ///   for a reference to a record without a key;
    ///   ``RecordSchemaError/cannotPlan(record:table:reason:)`` for a table the plan cannot make
    ///   match its record (an FTS5 table that differs, a rowid-keyed record that does not
    ///   declare its FTS5 options).
    public func plan(for db: Connection) throws -> RecordSchemaPlan {
        var steps: [RecordSchemaPlan.Step] = []
        var fullTextSteps: [RecordSchemaPlan.Step] = []
        for record in records {
            if let options = record.fullText {
                fullTextSteps += try self.fullTextSteps(for: record, options: options, in: db)
            } else {
                steps += try self.steps(for: record, in: db)
            }
        }
        return RecordSchemaPlan(steps: steps + fullTextSteps)
    }

    /// Applies ``plan(for:)`` in one transaction (a savepoint inside one): afterwards the
    /// database matches the records, or, when anything fails, it is exactly as before.
    ///
    /// Foreign keys are off while tables are rebuilt (SQLite's procedure), and
    /// `PRAGMA foreign_key_check` runs on the changed tables before the commit. Inside the
    /// caller's transaction the plan runs under a savepoint; a plan that rebuilds a table then
    /// needs foreign keys off before that transaction began.
    /// - Parameters:
    ///   - db: The connection whose main database is migrated.
    ///   - allowingDataLoss: Whether to apply a plan that drops a column or table holding data;
    ///     without it such a plan is refused and nothing changes.
    /// - Throws: ``RecordSchemaError/wouldLoseData(_:)``;
    ///   ``RecordSchemaError/newColumnNeedsDefault(table:column:)`` for a new non-optional column
    ///   without `@Default` over a table that has rows (before anything runs);
    ///   ``RecordSchemaError/foreignKeysViolated(_:)``; `TableRebuildError` or `SQLiteError` from a
    ///   step (a NOT NULL column over rows holding NULL, say). The database is then unchanged.
    public func migrate(_ db: Connection, allowingDataLoss: Bool = false) throws {
        let plan = try plan(for: db)
        guard !plan.isEmpty else { return }
        if plan.losesData && !allowingDataLoss {
            throw RecordSchemaError.wouldLoseData(plan.steps.filter(\.losesData).map(\.summary))
        }
        if let step = plan.steps.first(where: { !$0.columnsNeedingDefault.isEmpty }) {
            throw RecordSchemaError.newColumnNeedsDefault(table: step.table, column: step.columnsNeedingDefault[0])
        }
        // Inside a migration, as `createTable`: the tables become the records as they are now.
        if let trail = db.existingState(in: MigrationTrail.slot) {
            for step in plan.steps {
                trail.noteLiveDefinition(table: step.table, maker: "RecordSchema.migrate") {
                    "the same schema's plan(for: db).frozenMigration(\($0.debugDescription)) on a database from before it"
                }
            }
        }
        // Only a rebuild drops a table, which would fire ON DELETE actions with foreign keys on.
        try SchemaChange(
            savepointName: "strata_record_schema",
            disablesForeignKeys: plan.steps.contains { $0.rebuild != nil },
            foreignKeyCheck: .always,
            violationError: { RecordSchemaError.foreignKeysViolated($0) }
        )
        .run(on: db) {
            for step in plan.steps {
                if let rebuild = step.rebuild {
                    try db.applyTableRebuild(rebuild)
                } else {
                    for sql in step.sql { try db.execute(sql) }
                }
            }
        }
    }

    // MARK: - Planning one FTS5 table

    /// Creating an ``FTS5Record``'s table as `createFTS5Table` does, or nothing when it is there
    /// as declared.
    private func fullTextSteps(for record: TableDeclaration, options declared: FTS5Options, in db: Connection) throws -> [RecordSchemaPlan.Step] {
        let reader = db.schemaReader
        let quotedTable = quoteIdentifier(record.table)
        var options = declared
        options.ifNotExists = false
        let columns = record.columns.map(\.name).filter { !isRowIDName($0) }
        let tableSQL = Connection.fts5TableDefinition(record.table, columns: columns, options: options).sql
        guard let entry = try reader.table(named: record.table, includingViews: true) else {
            // A keyed index finds a replaced row under its key index's collation, read from the
            // content table when it is there already.
            var keyCollation: String?
            if case .externalByKey(let table, let key) = options.content, try reader.table(named: table) != nil {
                keyCollation = try reader.keyIndexCollations(ofTable: table, column: key).first { !sameIdentifier($0, "BINARY") }
            }
            return [
                RecordSchemaPlan.Step(
                    kind: .createTable, table: record.table, summary: "create FTS5 table \(quotedTable)",
                    sql: Connection.fts5CreateStatements(record.table, columns: columns, options: options, keyCollation: keyCollation),
                    losesData: false)
            ]
        }
        guard entry.type == "table", entry.virtualTableModule.map({ sameIdentifier($0, "fts5") }) == true else {
            let what = entry.type == "table" ? (entry.virtualTableModule.map { "a virtual table using \($0)" } ?? "a plain table") : "a \(entry.type)"
            throw RecordSchemaError.cannotPlan(
                record: record.record, table: record.table,
                reason: "the record is an FTS5Record, but the database's \(quotedTable) is \(what), which cannot be searched: "
                    + "drop it in a migration of your own (keeping what it holds), then plan again")
        }
        func normalized(_ sql: String) -> String {
            sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
        }
        guard let existing = entry.sql, normalized(existing) != normalized(tableSQL) else { return [] }
        throw RecordSchemaError.cannotPlan(
            record: record.record, table: record.table,
            reason: "the FTS5 table differs from the record's declaration (the database has \(existing), the record declares \(tableSQL)); "
                + "an FTS5 table is not rebuilt by the plan: drop it and its triggers in a migration of your own, then plan again to create it as declared")
    }

    // MARK: - Planning one table

    private func steps(for record: TableDeclaration, in db: Connection) throws -> [RecordSchemaPlan.Step] {
        let reader = db.schemaReader
        let quotedTable = quoteIdentifier(record.table)
        let (unique, tableConstraints) = try record.statements.tableParts(constraints: record.constraints)
        let indexes = record.statements.indexStatements(ifNotExists: false, constraints: record.constraints)

        guard let entry = try reader.table(named: record.table, includingViews: true) else {
            // A key mapped to `rowid` is how a record over an FTS5 table reads the document's
            // rowid: created as a plain table, it would take rows and never match a search.
            if let key = record.primaryKeyIndex, record.columns.indices.contains(key), isRowIDName(record.columns[key].name) {
                throw RecordSchemaError.cannotPlan(
                    record: record.record, table: record.table,
                    reason: "its key is the rowid, as a record over an FTS5 table has, so a plain table is not created for it: "
                        + "conform it to FTS5Record (with its fts5Options) to plan its FTS5 table, or key it by a column of its own")
            }
            let sql = try record.statements.createTableStatements(ifNotExists: false, constraints: record.constraints)
            return [RecordSchemaPlan.Step(kind: .createTable, table: record.table, summary: "create table \(quotedTable)", sql: sql, losesData: false)]
        }
        let differences = try recordSchemaDifferences(
            table: record.table, columns: record.columns, primaryKeyIndex: record.primaryKeyIndex,
            constraints: record.constraints, in: db)
        let isPlainTable = entry.type == "table" && entry.virtualTableModule == nil
        guard isPlainTable else {
            // A view or a virtual table is not the records' to rebuild; `checkSchema` says what differs.
            return []
        }
        let table = entry.name
        func label(_ column: String) -> String { "column \(quoteIdentifier(column)) of table \(quotedTable)" }

        // The one schema-reconciliation engine decides between nothing, ADD COLUMN and a rebuild; the records'
        // comparison (`checkSchema`'s) and their CHECKs are the reasons to rebuild it is given.
        let constrained = Set(record.constraints.filter { if case .indexed = $0.kind { return false } else { return true } }.map(\.column))
        let declared = DeclaredTable(
            name: table,
            // The rowid (`@Column("rowid")`) is no declared column, yet reads and writes reach it.
            columns: try record.columns.filter { column in
                try !isRowIDName(column.name) || db.schemaReader.columns(ofTable: table).contains { sameIdentifier($0.name, column.name) }
            }.map { column in
                DeclaredTable.Column(
                    record.statements.columnDefinition(column, unique: unique), of: table,
                    isAddable: (column.isOptional || column.hasValueDefault) && column.hasConstantDefault && !column.isPrimaryKey
                        && !unique.contains(column.name) && !constrained.contains(column.name))
            },
            definitionSQL: record.statements.tableDefinition(ifNotExists: false, unique: unique, constraints: tableConstraints).bodySQL,
            tableOptions: "")
        // A generated column the record declares is matched, so a rebuild copies its values.
        guard let comparison = try db.compareTable(declared, matchingGeneratedColumns: true) else { return [] }
        // A new NOT NULL column without a default cannot be filled for the rows already there:
        // `migrate` says so, with the fix, rather than meet the constraint failure in the rebuild.
        var needingDefault: [String] = []
        for missing in comparison.missing {
            guard let column = record.columns.first(where: { $0.name == missing.name }), column.needsValueForExistingRows else { continue }
            let hasRows: Int? = try db.query("SELECT EXISTS (SELECT 1 FROM main.\(quoteIdentifier(table)))")
            if hasRows == 1 { needingDefault.append(column.name) }
        }
        let missingLabels = Set(comparison.missing.map { label($0.name) + " is missing" })
        let indexLabels = Set(indexes.map { label($0.column) + " has no index" })
        let otherDifferences = differences.filter { !missingLabels.contains($0) && !indexLabels.contains($0) }
        // SQLite keeps a CHECK only in the table's text: one the record declares must be there as `createTable` writes it.
        let tableSQL = Array((entry.sql ?? "").utf8)
        let missingChecks = tableConstraints.filter { constraint in
            guard case .check = constraint else { return false }
            return !containsBytes(tableSQL, Array(constraint.sql.utf8))
        }
        let reasons = otherDifferences + missingChecks.map { "table \(quotedTable) gains \($0.sql)" }
        let plan = try db.planTableReconciliation(declared, comparison: comparison, rebuildReasons: reasons) { _, old in
            old.map { quoteIdentifier($0.name) }
        }

        var steps: [RecordSchemaPlan.Step] = []
        switch plan {
        case .inSync:
            break
        case .addColumns:
            for column in comparison.missing {
                steps.append(
                    RecordSchemaPlan.Step(
                        kind: .addColumn, table: record.table, summary: "add \(label(column.name))", sql: [column.addColumnSQL], losesData: false))
            }
        case .rebuild(let rebuild):
            for (index, sql) in zip(rebuild.droppedIndexes, rebuild.dropIndexSQL) {
                steps.append(
                    RecordSchemaPlan.Step(
                        kind: .dropIndex, table: record.table,
                        summary: "drop index \(quoteIdentifier(index)), which covers a column to be dropped",
                        sql: [sql], losesData: false))
            }
            let losing = IdentifierSet(rebuild.columnsLosingData)
            var summaryReasons = otherDifferences
            summaryReasons += rebuild.droppedColumns.map { label($0) + (losing.contains($0) ? " is dropped, with its data" : " is dropped") }
            summaryReasons += comparison.missing.map { column in
                label(column.name) + (needingDefault.contains(column.name) ? " is added, but needs a @Default to fill the rows there" : " is added")
            }
            summaryReasons += missingChecks.map { "table \(quotedTable) gains \($0.sql)" }
            steps.append(
                RecordSchemaPlan.Step(
                    kind: .rebuildTable, table: record.table, summary: "rebuild table \(quotedTable): " + summaryReasons.joined(separator: "; "),
                    sql: rebuild.sql, losesData: !rebuild.columnsLosingData.isEmpty, rebuild: rebuild,
                    columnsNeedingDefault: needingDefault))
        }
        // Indexes a rebuild keeps are there already; the ones the records add are made after it.
        let existingIndexNames = IdentifierSet(try reader.indexes(ofTable: table).map(\.name))
        for index in indexes
        where differences.contains(label(index.column) + " has no index")
            && !existingIndexNames.contains(recordIndexName(table: record.table, column: index.column))
        {
            steps.append(
                RecordSchemaPlan.Step(kind: .createIndex, table: record.table, summary: "index \(label(index.column))", sql: [index.sql], losesData: false))
        }
        return steps
    }
}

/// What ``RecordSchema/migrate(_:allowingDataLoss:)`` would do: its steps, in order.
public struct RecordSchemaPlan: Sendable, Equatable, CustomStringConvertible {
    /// One change to one table.
    public struct Step: Sendable, Equatable, CustomStringConvertible {
        /// The kinds of step.
        public enum Kind: String, Sendable, Equatable {
            /// `CREATE TABLE` (and its indexes), as `createTable` makes it.
            case createTable
            /// `ALTER TABLE … ADD COLUMN`.
            case addColumn
            /// SQLite's twelve-step rebuild (`Connection.rebuildTable`), keeping the rows.
            case rebuildTable
            /// `DROP INDEX` of an index over a column the rebuild drops.
            case dropIndex
            /// `CREATE INDEX`.
            case createIndex
        }

        /// What the step does.
        public let kind: Kind
        /// The record's table.
        public let table: String
        /// One sentence saying what changes and why.
        public let summary: String
        /// The statements. For a rebuild, those that rebuild the table as SQLite's procedure
        /// describes (run with foreign keys off); `migrate` runs the kernel's rebuild, which also
        /// keeps views that mention the table and `AUTOINCREMENT` counters.
        public let sql: [String]
        /// Whether the step drops a column or table that holds non-NULL values.
        public let losesData: Bool

        /// The engine's rebuild, which `migrate` runs.
        let rebuild: TableRebuildPlan?
        /// New NOT NULL columns without a default over a table with rows, which `migrate` refuses.
        let columnsNeedingDefault: [String]

        init(
            kind: Kind, table: String, summary: String, sql: [String], losesData: Bool, rebuild: TableRebuildPlan? = nil,
            columnsNeedingDefault: [String] = []
        ) {
            self.kind = kind
            self.table = table
            self.summary = summary
            self.sql = sql
            self.losesData = losesData
            self.rebuild = rebuild
            self.columnsNeedingDefault = columnsNeedingDefault
        }

        /// The summary, marked when the step loses data.
        public var description: String { summary + (losesData ? " (loses data)" : "") }
    }

    /// The steps, in the order `migrate` runs them.
    public let steps: [Step]

    /// Whether the database already matches the records.
    public var isEmpty: Bool { steps.isEmpty }

    /// The statements, in order, that `migrate` would run.
    public var sql: [String] { steps.flatMap(\.sql) }

    /// Whether a step drops a column or table that holds data.
    public var losesData: Bool { steps.contains(where: \.losesData) }

    /// One line per step.
    public var description: String {
        steps.isEmpty ? "The database matches the records." : steps.map { "- " + $0.description }.joined(separator: "\n")
    }
}

/// Whether `needle` occurs in `haystack`, byte for byte.
private func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty else { return true }
    guard haystack.count >= needle.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
}

extension RecordSchemaPlan {
    /// The plan as Swift source for one `DatabaseMigrator` migration named `identifier`, to
    /// paste into the app's migrations: the step frozen as it is today, while later changes to the
    /// records become later migrations.
    ///
    /// ```swift
    /// print(try RecordSchema(Author.self, Book.self).plan(for: db).frozenMigration("v3"))
    /// // migrator.registerMigration("v3", sql: #"""
    /// // ALTER TABLE "book" ADD COLUMN "note" TEXT;
    /// // """#)
    /// ```
    /// The migrator runs it in one transaction with foreign keys checked at the end, as
    /// `migrate` runs the plan.
    ///
    /// An empty plan has nothing to freeze: rather than a migration that changes nothing (and
    /// would still be recorded as applied), it gives a Swift comment saying so,
    /// `// Nothing to freeze for "v3": the database already matches the records.`, which
    /// registers nothing if pasted. Check ``isEmpty`` to tell the case in code.
    public func frozenMigration(_ identifier: String) -> String {
        guard !isEmpty else {
            return "// Nothing to freeze for \(identifier.debugDescription): the database already matches the records."
        }
        let text = sql.map { statement in
            guard statement.unicodeScalars.last != ";" else { return statement }
            // A `;` after a trailing `--` comment would be inside it: it goes on a line of its own.
            let lastLine = statement.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).last ?? []
            let commented = zip(lastLine, lastLine.dropFirst()).contains { $0 == "-" && $1 == "-" }
            return statement + (commented ? "\n;" : ";")
        }.joined(separator: "\n")
        // Enough `#`s that nothing in the SQL ends the raw string or starts an escape in it,
        // looked for in UTF-8 bytes (as the compiler reads them: a `#` followed by a combining
        // mark still counts).
        let bytes = Array(text.utf8)
        func occurs(_ needle: String) -> Bool {
            let pattern = Array(needle.utf8)
            guard bytes.count >= pattern.count else { return false }
            return (0...(bytes.count - pattern.count)).contains { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
        }
        var hashes = "#"
        while occurs("\"\"\"" + hashes) || occurs("\\" + hashes) { hashes += "#" }
        // A multi-line literal turns CR and CRLF into LF and refuses other control characters:
        // those are written as escapes, which a raw string reads with its `#`s.
        var body = ""
        for scalar in text.unicodeScalars {
            if scalar == "\r" {
                body += "\\" + hashes + "r"
            } else if (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || scalar.value == 0x7F {
                body += "\\" + hashes + "u{" + String(scalar.value, radix: 16) + "}"
            } else {
                body.unicodeScalars.append(scalar)
            }
        }
        return "migrator.registerMigration(\(identifier.debugDescription), sql: \(hashes)\"\"\"\n\(body)\n\"\"\"\(hashes))"
    }
}

extension RecordColumn {
    /// Whether the column has a `@Default` other than NULL, which a NOT NULL column added to a
    /// table with rows needs.
    var hasValueDefault: Bool {
        guard let defaultValue else { return false }
        return defaultValue != .null
    }

    /// Whether the column's default (if any) is a plain literal, which `ADD COLUMN` accepts; a
    /// default SQLite cannot read as one literal (text holding NUL, some reals) is written as a
    /// parenthesized expression, which only `CREATE TABLE` (a rebuild) accepts.
    var hasConstantDefault: Bool {
        guard let defaultValue else { return true }
        return sqlLiteral(defaultValue).utf8.first != UInt8(ascii: "(")
    }

    /// Whether a new column of this kind needs a value for each existing row that nothing
    /// supplies: NOT NULL without a default, and not the rowid (an integer key), which SQLite fills.
    var needsValueForExistingRows: Bool {
        !isOptional && !hasValueDefault && !(isPrimaryKey && sqlType == "INTEGER")
    }
}
