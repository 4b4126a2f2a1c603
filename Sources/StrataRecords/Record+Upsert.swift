// Upsert choices: what an INSERT does when its row collides with a stored one. Every form names
// its columns through the record's typed columns and renders through the one statement renderer
// (`StatementClauses.insert(into:columns:onConflict:)`); the record's values are bound positionally
// as for a plain insert. A statement is cached by its SQL text, so repeated calls with the same
// choice reuse one prepared statement.
import Foundation

/// What ``Record/insert(_:onConflict:)`` and ``Record/insertAll(_:_:onConflict:)`` do with a row
/// that breaks a uniqueness constraint: the choice of SQLite's `INSERT OR …`.
public enum InsertConflict: Sendable, Equatable {
    /// The collision fails the statement (a plain `INSERT`).
    case abort
    /// The new row is dropped, whatever constraint it breaks (`INSERT OR IGNORE`).
    case ignore
    /// The stored rows it collides with are deleted first (`REPLACE INTO`): their other columns
    /// are lost, and delete triggers fire only with `recursive_triggers` on.
    case replace

    var action: InsertConflictAction {
        switch self {
        case .abort: return .abort
        case .ignore: return .ignore
        case .replace: return .replace
        }
    }
}

/// A typed column's name, whatever its value type: how a key path chosen at run time
/// (`[\.name, \.email]`) becomes a column.
protocol NamedRecordColumn {
    var name: String { get }
}

extension TypedColumn: NamedRecordColumn {}

extension QueryableRecord {
    /// The column each key path names, in order.
    /// - Throws: ``RecordError/unsupported(_:)`` for a key path that is no column (`\.name.name`).
    static func columnNames(_ keyPaths: [PartialKeyPath<Columns>], for operation: String) throws -> [String] {
        try keyPaths.map { keyPath in
            guard let column = columns[keyPath: keyPath] as? any NamedRecordColumn else {
                throw RecordError.unsupported("\(operation) on \(Self.self) takes key paths to its columns, and \(keyPath) is not one")
            }
            return column.name
        }
    }
}

extension Record {
    /// Runs an INSERT of this record rendered with `action`, and writes a nil key back from the
    /// row it wrote; returns whether a row was written (inserted or updated).
    private mutating func runInsert(_ db: Connection, _ action: InsertConflictAction) throws -> Bool {
        let statements = Self.statements
        let insert = StatementClauses.insert(into: statements.table, columns: statements.columns.map(\.name), onConflict: action)
        let isUpsert: Bool
        switch action {
        case .doNothing, .update, .updateAll: isUpsert = true
        case .abort, .ignore, .replace: isUpsert = false
        }
        if isUpsert, hasNilPrimaryKey {
            // An upsert that updates sets no last-insert rowid: the row it wrote says its own.
            let key = StatementCacheKey(sql: insert.sql + " RETURNING rowid")
            let rowID: Int64? = try RecordStatements.withStatement(key, on: db, bind: { try bindRecordColumns(to: &$0, order: .all) }) { statement in
                guard try statement.step() else { return nil }
                let rowID: Int64? = statement.currentRow.value(at: 0)
                while try statement.step() {}
                return rowID
            }
            if let rowID { recordDidInsert(rowID: rowID) }
            return rowID != nil
        } else {
            try RecordStatements.run(StatementCacheKey(sql: insert.sql), on: db) { try bindRecordColumns(to: &$0, order: .all) }
            let written = db.changes > 0
            if written, hasNilPrimaryKey { recordDidInsert(rowID: db.lastInsertRowID) }
            return written
        }
    }

    /// Inserts the record, choosing what a collision with a stored row does; a nil key is
    /// assigned and written back only when the row was inserted.
    ///
    /// ```swift
    /// try user.insert(db, onConflict: .ignore)     // INSERT OR IGNORE: false when dropped
    /// ```
    /// - Returns: Whether the row was inserted (false when `.ignore` dropped it).
    /// - Throws: `SQLiteError` (a collision under `.abort`, a NOT NULL or CHECK failure).
    @discardableResult
    public mutating func insert(_ db: Connection, onConflict: InsertConflict) throws -> Bool {
        try runInsert(db, onConflict.action)
    }

    /// Inserts the record, or, when it collides with a stored row on `target` (a unique column),
    /// updates only `columns` of that row to the record's values
    /// (`ON CONFLICT ("email") DO UPDATE SET "name" = excluded."name"`).
    ///
    /// ```swift
    /// try user.upsert(db, onConflict: \.email, doUpdate: [\.name])
    /// ```
    /// A nil key is written back from the row inserted or updated. An empty `columns` does nothing
    /// on a collision.
    /// - Throws: ``RecordError/unsupported(_:)`` for a key path that is no column;
    ///   `SQLiteError` when `target` is not a unique column or key ("ON CONFLICT clause does not
    ///   match any PRIMARY KEY or UNIQUE constraint"), or for a collision on another constraint.
    public mutating func upsert<V>(
        _ db: Connection, onConflict target: KeyPath<Columns, TypedColumn<V>>,
        doUpdate columns: [PartialKeyPath<Columns>]
    ) throws {
        try upsert(db, onConflict: [target], doUpdate: columns)
    }

    /// ``upsert(_:onConflict:doUpdate:)`` on a conflict target of several columns (a composite
    /// unique constraint or key).
    public mutating func upsert(
        _ db: Connection, onConflict target: [PartialKeyPath<Columns>],
        doUpdate columns: [PartialKeyPath<Columns>]
    ) throws {
        let target = try Self.columnNames(target, for: "upsert")
        let updated = try Self.columnNames(columns, for: "upsert")
        _ = try runInsert(db, .update(columns: updated, conflictTarget: target))
    }

    /// Inserts the record unless it collides with a stored row on `target`
    /// (`ON CONFLICT ("email") DO NOTHING`); with `doNothing: false`, updates that row's other
    /// columns instead (all but the target and the primary key, which keeps the row's identity).
    ///
    /// ```swift
    /// try user.upsert(db, onConflict: \.email, doNothing: true)
    /// ```
    /// Unlike `insert(_:onConflict: .ignore)`, a collision on any other constraint still fails.
    /// - Returns: Whether a row was written.
    /// - Throws: `SQLiteError` as for ``upsert(_:onConflict:doUpdate:)``.
    @discardableResult
    public mutating func upsert<V>(_ db: Connection, onConflict target: KeyPath<Columns, TypedColumn<V>>, doNothing: Bool) throws -> Bool {
        try upsert(db, onConflict: [target], doNothing: doNothing)
    }

    /// ``upsert(_:onConflict:doNothing:)`` on a conflict target of several columns.
    @discardableResult
    public mutating func upsert(_ db: Connection, onConflict target: [PartialKeyPath<Columns>], doNothing: Bool) throws -> Bool {
        let target = try Self.columnNames(target, for: "upsert")
        guard !doNothing else { return try runInsert(db, .doNothing(conflictTarget: target)) }
        // Every column but the target's and the key: the stored row keeps its identity (a nil
        // key offered would otherwise renumber it).
        let kept = IdentifierSet(target + (Self.statements.keyColumn.map { [$0] } ?? []))
        let updated = Self.statements.columns.map(\.name).filter { !kept.contains($0) }
        return try runInsert(db, .update(columns: updated, conflictTarget: target))
    }

    // MARK: - Non-mutating forms, for @Sendable closures

    /// ``insert(_:onConflict:)`` that returns the record as written (its key set when it was
    /// inserted), for a `@Sendable` closure that cannot mutate a captured `var`.
    public func inserted(_ db: Connection, onConflict: InsertConflict) throws -> Self {
        var copy = self
        try copy.insert(db, onConflict: onConflict)
        return copy
    }

    /// ``upsert(_:onConflict:doUpdate:)`` that returns the record with the key of the row written.
    public func upserted<V>(
        _ db: Connection, onConflict target: KeyPath<Columns, TypedColumn<V>>,
        doUpdate columns: [PartialKeyPath<Columns>]
    ) throws -> Self {
        var copy = self
        try copy.upsert(db, onConflict: target, doUpdate: columns)
        return copy
    }

    /// ``upsert(_:onConflict:doNothing:)`` that returns the record with the key of the row written.
    public func upserted<V>(_ db: Connection, onConflict target: KeyPath<Columns, TypedColumn<V>>, doNothing: Bool) throws -> Self {
        var copy = self
        try copy.upsert(db, onConflict: target, doNothing: doNothing)
        return copy
    }

    /// Inserts every record with one prepared statement, all or nothing, choosing what a
    /// collision with a stored row does: in a transaction when none is open, in a savepoint
    /// inside an open one.
    ///
    /// ```swift
    /// try User.insertAll(db, users, onConflict: .replace)
    /// ```
    /// - Returns: Each record's rowid, in order; nil for a record `.ignore` dropped.
    /// - Throws: `SQLiteError` for the first row that fails, after rolling back every row this
    ///   call inserted.
    @discardableResult
    public static func insertAll(_ db: Connection, _ records: [Self], onConflict: InsertConflict) throws -> [Int64?] {
        guard !records.isEmpty else { return [] }
        let statements = Self.statements
        let key =
            onConflict == .abort
            ? statements.insert
            : StatementCacheKey(
                sql: StatementClauses.insert(
                    into: statements.table, columns: statements.columns.map(\.name),
                    onConflict: onConflict.action
                ).sql)
        return try db.strataSavepoint(named: "strata_insert_all") {
            var rowIDs: [Int64?] = []
            rowIDs.reserveCapacity(records.count)
            for record in records {
                try RecordStatements.run(key, on: db) { binder in try record.bindRecordColumns(to: &binder, order: .all) }
                rowIDs.append(db.changes > 0 ? db.lastInsertRowID : nil)
            }
            return rowIDs
        }
    }
}
