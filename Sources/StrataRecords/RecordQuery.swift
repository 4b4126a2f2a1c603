import Foundation

/// A record property's column, typed by the property, for building queries.
///
/// ```swift
/// Player.where { $0.score > 10 && $0.team == nil }
/// ```
/// Every comparison binds its value; the column name is quoted.
// @unchecked Sendable: `binding` is one of the pure conversions below, which capture nothing and
// keep no state; a Sendable closure would also capture `Value`'s metatype, which need not be.
public struct TypedColumn<Value>: @unchecked Sendable {
    /// The column's name.
    public let name: String
    let binding: (Value) -> BindingValue

    /// A column of a `Bindable` property.
    public init(_ name: String) where Value: Bindable {
        self.name = name
        binding = { $0.bindingValue }
    }

    /// A column of a `RawRepresentable` property, compared by raw value.
    public init(_ name: String) where Value: RawRepresentable, Value.RawValue: Bindable {
        self.name = name
        binding = { $0.rawValue.bindingValue }
    }

    /// A column of an optional `RawRepresentable` property.
    public init<Wrapped: RawRepresentable>(_ name: String) where Value == Wrapped?, Wrapped.RawValue: Bindable {
        self.name = name
        binding = { $0?.rawValue.bindingValue ?? .null }
    }

    /// A column of a property that is both: it binds as itself.
    public init(_ name: String) where Value: Bindable & RawRepresentable, Value.RawValue: Bindable {
        self.name = name
        binding = { $0.bindingValue }
    }

    var quoted: String { quoteIdentifier(name) }

    func comparison(_ operator: String, _ value: Value) -> RecordPredicate {
        RecordPredicate(sql: quoted + " " + `operator` + " ?", arguments: [binding(value)])
    }

    /// `column = value`; `column IS NULL` when `value` is nil.
    public static func == (column: TypedColumn, value: Value) -> RecordPredicate {
        let bound = column.binding(value)
        if bound == .null { return column.isNull }
        return RecordPredicate(sql: column.quoted + " = ?", arguments: [bound])
    }

    /// `column <> value`; `column IS NOT NULL` when `value` is nil.
    public static func != (column: TypedColumn, value: Value) -> RecordPredicate {
        let bound = column.binding(value)
        if bound == .null { return RecordPredicate(sql: column.quoted + " IS NOT NULL", arguments: []) }
        return RecordPredicate(sql: column.quoted + " <> ?", arguments: [bound])
    }

    /// `column < value`.
    public static func < (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison("<", value) }
    /// `column <= value`.
    public static func <= (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison("<=", value) }
    /// `column > value`.
    public static func > (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison(">", value) }
    /// `column >= value`.
    public static func >= (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison(">=", value) }

    /// `column IS NULL`.
    public var isNull: RecordPredicate { RecordPredicate(sql: quoted + " IS NULL", arguments: []) }

    /// `column LIKE pattern` (SQLite's LIKE: `%` and `_`, ASCII case-insensitive).
    public func like(_ pattern: String) -> RecordPredicate {
        RecordPredicate(sql: quoted + " LIKE ?", arguments: [.text(pattern)])
    }

    /// `column IN (values)`; false for no values.
    public func `in`(_ values: [Value]) -> RecordPredicate {
        guard !values.isEmpty else { return RecordPredicate(sql: "0", arguments: []) }
        return RecordPredicate(sql: quoted + " IN (" + placeholders(values.count) + ")", arguments: values.map(binding))
    }

    /// `column BETWEEN low AND high` (both ends included).
    public func between(_ low: Value, _ high: Value) -> RecordPredicate {
        RecordPredicate(sql: quoted + " BETWEEN ? AND ?", arguments: [binding(low), binding(high)])
    }

    /// `column = value`, for `RecordQuery.update(_:set:)`.
    public func set(_ value: Value) -> ColumnAssignment {
        ColumnAssignment(column: name, value: binding(value))
    }
}

/// A condition on a record's columns: SQL text with its values to bind.
public struct RecordPredicate: Sendable {
    /// The condition's SQL, with `?` for each value.
    public let sql: String
    /// The values, in the order of the `?`s.
    public let arguments: [BindingValue]

    /// Both conditions.
    public static func && (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        RecordPredicate(sql: "(" + lhs.sql + ") AND (" + rhs.sql + ")", arguments: lhs.arguments + rhs.arguments)
    }

    /// Either condition.
    public static func || (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        RecordPredicate(sql: "(" + lhs.sql + ") OR (" + rhs.sql + ")", arguments: lhs.arguments + rhs.arguments)
    }

    /// The condition's negation.
    public static prefix func ! (predicate: RecordPredicate) -> RecordPredicate {
        RecordPredicate(sql: "NOT (" + predicate.sql + ")", arguments: predicate.arguments)
    }
}

/// One `column = value` of an UPDATE built with ``TypedColumn/set(_:)``.
public struct ColumnAssignment: Sendable {
    let column: String
    let value: BindingValue
}

/// The direction of an ORDER BY term.
public enum SortDirection: Sendable {
    /// Smallest first.
    case ascending
    /// Largest first.
    case descending
}

/// A query of a record's table, built from typed columns; values are always bound.
///
/// ```swift
/// let top = try Player.where { $0.score > 10 && $0.team == nil }
///     .order(by: \.score, .descending)
///     .limit(10, offset: 0)
///     .fetchAll(db)
/// ```
public struct RecordQuery<R: Record>: Sendable {
    var predicate: RecordPredicate?
    var orderings: [String] = []
    var limitCount: Int?
    var offsetCount: Int?

    @usableFromInline
    init() {}

    /// Narrows the query (conditions given several times must all hold).
    public func `where`(_ condition: (R.Columns) -> RecordPredicate) -> RecordQuery {
        var query = self
        let added = condition(R.columns)
        query.predicate = predicate.map { $0 && added } ?? added
        return query
    }

    /// Adds an ORDER BY term (terms apply in the order they are added).
    public func order<V>(by column: KeyPath<R.Columns, TypedColumn<V>>, _ direction: SortDirection = .ascending) -> RecordQuery {
        var query = self
        query.orderings.append(R.columns[keyPath: column].quoted + (direction == .descending ? " DESC" : " ASC"))
        return query
    }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> RecordQuery {
        var query = self
        query.limitCount = count
        query.offsetCount = offset
        return query
    }

    /// The WHERE, ORDER BY and LIMIT clauses with their values.
    @usableFromInline
    func clauses(ordering: Bool = true, limiting: Bool = true) -> (sql: String, arguments: [Bindable?]) {
        var sql = clause("WHERE", predicate?.sql)
        var arguments: [Bindable?] = (predicate?.arguments ?? []).map(BoundValue.init)
        if ordering { sql += clause("ORDER BY", orderings.joined(separator: ", ")) }
        if limiting {
            let limit = limitClause(limit: limitCount, offset: offsetCount == 0 ? nil : offsetCount)
            sql += limit.sql
            arguments += limit.parameters
        }
        return (sql, arguments)
    }

    /// The SELECT this query runs, with its values (for logging and tests).
    public var sql: String { "SELECT " + R.recordStatements.selectList + " FROM " + quoteIdentifier(R.tableName) + clauses().sql }

    /// The values the query binds, in order.
    public var arguments: [BindingValue] { clauses().arguments.map { ($0 as? BoundValue)?.value ?? ($0?.bindingValue ?? .null) } }

    /// The matching records.
    /// - Throws: `SQLiteError`; ``RecordError`` for a row that does not map.
    @inlinable
    public func fetchAll(_ db: Connection) throws -> [R] {
        // Inlined into the caller, so the loop is specialized for the record type. The SELECT
        // lists the record's columns in declaration order, so each row reads them by position.
        try db.query(sql, clauses().arguments) { row in try R(columnOrderedRow: row) }
    }

    /// The first matching record, or nil.
    public func fetchOne(_ db: Connection) throws -> R? {
        try limit(1, offset: offsetCount ?? 0).fetchAll(db).first
    }

    /// How many records match (ignoring the order, and counting within the limit).
    public func fetchCount(_ db: Connection) throws -> Int {
        let parts = clauses(ordering: false)
        let inner = "SELECT 1 FROM " + quoteIdentifier(R.tableName) + parts.sql
        let count: Int? = try db.query("SELECT count(*) FROM (" + inner + ")", parts.arguments)
        return count ?? 0
    }

    /// Deletes the matching records; returns how many.
    /// - Throws: `SQLiteError`, or ``RecordError`` for a limit or an order (a DELETE takes neither
    ///   here).
    @discardableResult
    public func deleteAll(_ db: Connection) throws -> Int {
        let parts = try unlimitedClauses(for: "deleteAll")
        try db.run("DELETE FROM " + quoteIdentifier(R.tableName) + parts.sql, parts.arguments)
        return db.changes
    }

    /// Sets columns of the matching records; returns how many changed.
    ///
    /// ```swift
    /// try Player.where { $0.team == nil }.update(db, set: { [$0.team.set("free agents"), $0.score.set(0)] })
    /// ```
    @discardableResult
    public func update(_ db: Connection, set assignments: (R.Columns) -> [ColumnAssignment]) throws -> Int {
        let assigned = assignments(R.columns)
        guard !assigned.isEmpty else { return 0 }
        let parts = try unlimitedClauses(for: "update")
        let sql = "UPDATE " + quoteIdentifier(R.tableName) + " SET " + assignmentList(assigned.map(\.column)) + parts.sql
        try db.run(sql, assigned.map { BoundValue(value: $0.value) } + parts.arguments)
        return db.changes
    }

    /// Sets one column of the matching records; returns how many changed.
    @discardableResult
    public func update(_ db: Connection, set assignment: (R.Columns) -> ColumnAssignment) throws -> Int {
        try update(db, set: { [assignment($0)] })
    }

    private func unlimitedClauses(for operation: String) throws -> (sql: String, arguments: [Bindable?]) {
        guard limitCount == nil, orderings.isEmpty else {
            throw RecordQueryError.unsupported("\(operation) takes a query without order(by:) or limit(_:offset:)")
        }
        return clauses(ordering: false, limiting: false)
    }
}

/// A query the builder cannot run as asked.
public enum RecordQueryError: Error, CustomStringConvertible, Equatable {
    /// The operation does not accept part of the query.
    case unsupported(String)

    /// What to change.
    public var description: String {
        switch self {
        case .unsupported(let message): return message
        }
    }
}

/// A value the builder binds.
struct BoundValue: Bindable {
    let value: BindingValue
    var bindingValue: BindingValue { value }
}

extension Record {
    /// Every record of the table, as a query to narrow, order or limit.
    @inlinable
    public static func all() -> RecordQuery<Self> { RecordQuery() }

    /// The records for which `condition` holds.
    ///
    /// ```swift
    /// try Player.where { $0.score > 10 && $0.team == nil }.fetchAll(db)
    /// ```
    public static func `where`(_ condition: (Columns) -> RecordPredicate) -> RecordQuery<Self> {
        all().where(condition)
    }

    /// Every record, ordered by `column`.
    public static func order<V>(by column: KeyPath<Columns, TypedColumn<V>>, _ direction: SortDirection = .ascending) -> RecordQuery<Self> {
        all().order(by: column, direction)
    }

    /// At most `count` records, after skipping `offset`.
    public static func limit(_ count: Int, offset: Int = 0) -> RecordQuery<Self> {
        all().limit(count, offset: offset)
    }
}
