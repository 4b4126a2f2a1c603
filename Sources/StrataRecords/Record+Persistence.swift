import Foundation

/// A record type's SQL, built once per type, with statement-cache keys built once too: each call
/// finds its prepared statement in the connection's cache by identity, hashing no SQL.
public final class RecordStatements: Sendable {
    let table: String
    let columns: [RecordColumn]
    let keyColumn: String?
    let insert: StatementCacheKey
    let upsert: StatementCacheKey
    let update: StatementCacheKey?
    let delete: StatementCacheKey?
    let fetchByKey: StatementCacheKey?
    let selectList: String
    /// The columns qualified by the table: a column the table lacks is then an error, where
    /// SQLite would read an unknown double-quoted name as a string literal.
    let qualifiedSelectList: String

    /// Builds the statements of a table with `columns`, whose key (if any) is at `primaryKeyIndex`.
    public init(table: String, columns: [RecordColumn], primaryKeyIndex: Int?) {
        self.table = table
        self.columns = columns
        let names = columns.map(\.name)
        let keyColumn = primaryKeyIndex.map { names[$0] }
        self.keyColumn = keyColumn
        let quotedTable = quoteIdentifier(table)
        selectList = names.map(quoteIdentifier).joined(separator: ", ")
        qualifiedSelectList = names.map { quotedTable + "." + quoteIdentifier($0) }.joined(separator: ", ")
        insert = StatementCacheKey(reusing: StatementClauses.insert(into: table, columns: names).sql)
        if let keyColumn {
            let byKey = StatementClauses.byKey(table, keyColumns: [keyColumn])
            upsert = StatementCacheKey(reusing: StatementClauses.insert(into: table, columns: names, onConflict: .updateAll(conflictTarget: [keyColumn])).sql)
            let nonKey = names.filter { $0 != keyColumn }
            update = nonKey.isEmpty ? nil : StatementCacheKey(reusing: byKey.update(nonKey))
            delete = StatementCacheKey(reusing: byKey.delete())
            fetchByKey = StatementCacheKey(reusing: byKey.select(names))
        } else {
            upsert = insert
            update = nil
            delete = nil
            fetchByKey = nil
        }
    }

    /// Runs the cached INSERT on `db` after `bind` bound its parameters.
    @usableFromInline
    func runInsert(on db: Connection, _ bind: (inout RecordBinder) throws -> Void) throws {
        try RecordStatements.run(insert, on: db, bind)
    }

    /// Runs the statement cached under `key` once, to completion, after `bind` bound its
    /// parameters straight onto the handle (no `Statement` object per call).
    static func run(_ key: StatementCacheKey, on db: Connection, _ bind: (inout RecordBinder) throws -> Void) throws {
        try db.runCachedStatement(key) { handle in
            var binder = RecordBinder(handle)
            try bind(&binder)
            return binder.failure
        }
    }

    /// Runs the statement cached under `key` with `body`, after `bind` bound its parameters.
    static func withStatement<T>(
        _ key: StatementCacheKey, on db: Connection, bind: (inout RecordBinder) throws -> Void,
        _ body: (Statement) throws -> T
    ) throws -> T {
        try db.withStatement(cachedFor: key) { statement in
            var binder = RecordBinder(statement.statementHandle)
            try bind(&binder)
            if let failure = binder.failure { try statement.checkBindResult(failure.code, index: failure.index) }
            return try body(statement)
        }
    }

    /// `CREATE TABLE`: column types from the property types, NOT NULL for non-optionals, and the
    /// primary key (an integer key is SQLite's rowid, so a nil key is assigned on insert).
    /// `unique` names the columns declared `UNIQUE`; `constraints` follow the columns.
    func createTableSQL(ifNotExists: Bool, unique: Set<String> = [], constraints: [TableDefinition.Constraint] = []) -> String {
        tableDefinition(ifNotExists: ifNotExists, unique: unique, constraints: constraints).sql
    }

    /// The kernel's definition of the table `createTableSQL` creates.
    func tableDefinition(ifNotExists: Bool, unique: Set<String> = [], constraints: [TableDefinition.Constraint] = []) -> TableDefinition {
        let definitions = columns.map { columnDefinition($0, unique: unique) }
        return TableDefinition(table, columns: definitions, constraints: constraints, ifNotExists: ifNotExists)
    }

    /// One column as `CREATE TABLE` and `ALTER TABLE … ADD COLUMN` write it: its type, the key,
    /// NOT NULL for a non-optional, UNIQUE when `unique` names it, and its `@Default`.
    func columnDefinition(_ column: RecordColumn, unique: Set<String> = []) -> TableDefinition.Column {
        var constraints: [TableDefinition.ColumnConstraint] = []
        if column.isPrimaryKey {
            constraints.append(.primaryKey())
            if column.sqlType != "INTEGER" { constraints.append(.notNull()) }
        } else if !column.isOptional {
            constraints.append(.notNull())
        }
        if unique.contains(column.name) { constraints.append(.unique()) }
        if let value = column.defaultValue { constraints.append(.defaultValue(value)) }
        return TableDefinition.Column(column.name, type: column.sqlType, constraints)
    }
}

extension QueryableRecord {
    /// The record type's statements (built on first use, by the generated static).
    static var statements: RecordStatements { recordStatements }

    static func require(_ key: StatementCacheKey?) throws -> StatementCacheKey {
        guard let key else { throw RecordError.noPrimaryKey(record: "\(Self.self)") }
        return key
    }

    // MARK: - Type-level reads

    /// Every row of the table (or view).
    /// - Throws: `SQLiteError`; ``RecordError`` for a row that does not map.
    @inlinable
    public static func fetchAll(_ db: Connection) throws -> [Self] {
        try all().fetchAll(db)
    }

    /// The row whose primary key is `id`, or nil.
    /// - Throws: ``RecordError/noPrimaryKey(record:)``; `SQLiteError`; ``RecordError``.
    public static func fetchOne<ID: Bindable>(_ db: Connection, id: ID) throws -> Self? {
        let key = try require(statements.fetchByKey)
        return try RecordStatements.withStatement(key, on: db, bind: { try $0.bind(id, at: 1) }) { statement -> Self? in
            guard try statement.step() else { return nil }
            return try Self(columnOrderedRow: statement.currentRow)
        }
    }

    /// The number of rows in the table (or view).
    public static func fetchCount(_ db: Connection) throws -> Int {
        try all().fetchCount(db)
    }
}

extension Record {
    // MARK: - Persistence

    /// Inserts the record; an optional integer key left nil is assigned by SQLite and written
    /// back to `self`.
    ///
    /// ```swift
    /// var player = Player(id: nil, name: "Ann", score: 12, team: nil)
    /// try player.insert(db)   // player.id == 1
    /// ```
    /// - Throws: `SQLiteError` (a constraint, a missing table).
    @inlinable
    public mutating func insert(_ db: Connection) throws {
        // Inlined into the caller, so the binds are calls on the concrete record type.
        try Self.recordStatements.runInsert(on: db) { binder in
            try bindRecordColumns(to: &binder, order: .all)
        }
        if hasNilPrimaryKey { recordDidInsert(rowID: db.lastInsertRowID) }
    }

    /// Updates the row with the record's primary key.
    /// - Throws: ``RecordError/notFound(record:)`` when no row has the key;
    ///   ``RecordError/noPrimaryKey(record:)``; `SQLiteError`.
    public func update(_ db: Connection) throws {
        let statements = Self.statements
        guard statements.keyColumn != nil else { throw RecordError.noPrimaryKey(record: "\(Self.self)") }
        // A record that is all key has nothing to set; it exists or it does not.
        guard let key = statements.update else {
            guard try Self.exists(db, matching: self) else { throw RecordError.notFound(record: "\(Self.self)") }
            return
        }
        try RecordStatements.run(key, on: db) { try bindRecordColumns(to: &$0, order: .keyLast) }
        if db.changes == 0 { throw RecordError.notFound(record: "\(Self.self)") }
    }

    /// Inserts the record, or updates the row with its key (`INSERT … ON CONFLICT DO UPDATE`).
    /// - Throws: ``RecordError/noPrimaryKey(record:)``; `SQLiteError`.
    public mutating func upsert(_ db: Connection) throws {
        let statements = Self.statements
        guard statements.keyColumn != nil else { throw RecordError.noPrimaryKey(record: "\(Self.self)") }
        try RecordStatements.run(statements.upsert, on: db) { try bindRecordColumns(to: &$0, order: .all) }
        if hasNilPrimaryKey { recordDidInsert(rowID: db.lastInsertRowID) }
    }

    /// Inserts the record when its key is nil, else updates its row, inserting it when there is
    /// none.
    /// - Throws: `SQLiteError`.
    public mutating func save(_ db: Connection) throws {
        if hasNilPrimaryKey || Self.statements.keyColumn == nil { return try insert(db) }
        do {
            try update(db)
        } catch RecordError.notFound {
            try insert(db)
        }
    }

    // MARK: - Non-mutating writes

    /// Inserts the record and returns it as written, with the key SQLite assigned: the form for
    /// a `@Sendable` closure, which cannot mutate a captured `var`.
    ///
    /// ```swift
    /// let bob = Player(id: nil, name: "Bob", score: 30, team: nil)
    /// let saved = try await database.write { try bob.inserted($0) }   // saved.id == 1
    /// ```
    /// - Throws: `SQLiteError` (a constraint, a missing table).
    public func inserted(_ db: Connection) throws -> Self {
        var copy = self
        try copy.insert(db)
        return copy
    }

    /// Saves the record as ``save(_:)`` does and returns it as written, with its key set.
    ///
    /// ```swift
    /// let saved = try await database.write { try bob.saved($0) }
    /// ```
    /// - Throws: `SQLiteError`.
    public func saved(_ db: Connection) throws -> Self {
        var copy = self
        try copy.save(db)
        return copy
    }

    /// Upserts the record as ``upsert(_:)`` does and returns it as written, with its key set.
    ///
    /// ```swift
    /// let saved = try await database.write { try bob.upserted($0) }
    /// ```
    /// - Throws: ``RecordError/noPrimaryKey(record:)``; `SQLiteError`.
    public func upserted(_ db: Connection) throws -> Self {
        var copy = self
        try copy.upsert(db)
        return copy
    }

    /// Deletes the row with the record's key; returns whether there was one.
    /// - Throws: ``RecordError/noPrimaryKey(record:)``; `SQLiteError`.
    @discardableResult
    public func delete(_ db: Connection) throws -> Bool {
        let key = try Self.require(Self.statements.delete)
        try RecordStatements.run(key, on: db) { try bindRecordColumns(to: &$0, order: .keyOnly) }
        return db.changes > 0
    }

    static func exists(_ db: Connection, matching record: Self) throws -> Bool {
        let key = try require(statements.fetchByKey)
        return try RecordStatements.withStatement(key, on: db, bind: { try record.bindRecordColumns(to: &$0, order: .keyOnly) }) {
            try $0.step()
        }
    }

    // MARK: - Type-level calls

    /// Deletes every row; returns how many there were.
    @discardableResult
    public static func deleteAll(_ db: Connection) throws -> Int {
        try all().deleteAll(db)
    }

    /// Creates the table from the declaration: column types from the property types, NOT NULL for
    /// non-optionals, the primary key, and what the properties declare with `@References`,
    /// `@Unique`, `@Check` and `@Indexed` (the indexes named `<table>_<column>_idx`).
    ///
    /// ```swift
    /// try Player.createTable(db)   // CREATE TABLE "player" ("id" INTEGER PRIMARY KEY, ...)
    /// ```
    /// The table and its indexes are created together or not at all. An ``FTS5Record``'s table
    /// is its FTS5 table, made with its ``FTS5Record/fts5Options`` (generic code included).
    /// - Throws: `SQLiteError` (the table exists, unless `ifNotExists`; a CHECK that is not
    ///   valid SQL); ``RecordError/noPrimaryKey(record:)`` for a reference to a record without a key.
    public static func createTable(_ db: Connection, ifNotExists: Bool = false) throws {
        // Inside a migration, the table is the record as it is now: noted, so a later migration
        // that fails on what this one already made ("duplicate column name") says why.
        db.existingState(in: MigrationTrail.slot)?.noteLiveDefinition(table: tableName, maker: "\(Self.self).createTable") {
            "RecordSchema(\(Self.self).self).plan(for: db).frozenMigration(\($0.debugDescription)) on a database from before it"
        }
        if var options = (Self.self as? any FTS5Record.Type)?.fts5Options {
            // Checked here, not with FTS5's IF NOT EXISTS, which would still add the triggers again.
            if ifNotExists, try db.schemaReader.table(named: tableName, includingViews: true) != nil { return }
            options.ifNotExists = false
            return try db.createFTS5Table(tableName, columns: ftsColumns, options: options)
        }
        let sql = try statements.createTableStatements(ifNotExists: ifNotExists, constraints: recordConstraints)
        guard sql.count > 1 else { return try db.execute(sql[0]) }
        try db.strataSavepoint(named: "strata_create_table") {
            for statement in sql { try db.execute(statement) }
        }
    }
}
