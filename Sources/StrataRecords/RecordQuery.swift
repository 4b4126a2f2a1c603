import Foundation

/// A record property's column, typed by the property, for building queries.
///
/// ```swift
/// Player.where { $0.score > 10 && $0.team == nil }
/// ```
/// Every comparison binds its value; the column name is quoted. Predicates are `SQLFragment`s
/// whose column is a column segment, so a join or a subquery can qualify them later.
// @unchecked Sendable: `binding` is one of the pure conversions below, which capture nothing and
// keep no state; a Sendable closure would also capture `Value`'s metatype, which need not be.
public struct TypedColumn<Value>: @unchecked Sendable {
    /// The column's name.
    public let name: String
    let binding: (Value) -> BindingValue
    /// The column as an unqualified column segment, built once with the record's columns.
    public let fragment: SQLFragment

    /// A column of a `Bindable` property.
    public init(_ name: String) where Value: Bindable {
        self.init(name) { $0.bindingValue }
    }

    /// A column of a `RawRepresentable` property, compared by raw value.
    public init(_ name: String) where Value: RawRepresentable, Value.RawValue: Bindable {
        self.init(name) { $0.rawValue.bindingValue }
    }

    /// A column of an optional `RawRepresentable` property.
    public init<Wrapped: RawRepresentable>(_ name: String) where Value == Wrapped?, Wrapped.RawValue: Bindable {
        self.init(name) { $0?.rawValue.bindingValue ?? .null }
    }

    /// A column of a property that is both: it binds as itself.
    public init(_ name: String) where Value: Bindable & RawRepresentable, Value.RawValue: Bindable {
        self.init(name) { $0.bindingValue }
    }

    private init(_ name: String, binding: @escaping (Value) -> BindingValue) {
        self.name = name
        self.binding = binding
        fragment = .column(name)
    }

    /// `column op ?`, the value bound.
    func comparison(_ operator: String, _ value: BindingValue) -> RecordPredicate {
        RecordPredicate(fragment + SQLFragment(segments: [.text(" " + `operator` + " "), .value(value)]))
    }

    /// `column` followed by SQL text that binds nothing (`IS NULL`).
    func suffixed(_ text: String) -> RecordPredicate {
        RecordPredicate(fragment + SQLFragment(segments: [.text(text)]))
    }

    /// `column = value`; `column IS NULL` when `value` is nil.
    public static func == (column: TypedColumn, value: Value) -> RecordPredicate {
        let bound = column.binding(value)
        if bound == .null { return column.isNull }
        return column.comparison("=", bound)
    }

    /// `column <> value`; `column IS NOT NULL` when `value` is nil.
    public static func != (column: TypedColumn, value: Value) -> RecordPredicate {
        let bound = column.binding(value)
        if bound == .null { return column.suffixed(" IS NOT NULL") }
        return column.comparison("<>", bound)
    }

    /// `column < value`.
    public static func < (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison("<", column.binding(value)) }
    /// `column <= value`.
    public static func <= (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison("<=", column.binding(value)) }
    /// `column > value`.
    public static func > (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison(">", column.binding(value)) }
    /// `column >= value`.
    public static func >= (column: TypedColumn, value: Value) -> RecordPredicate { column.comparison(">=", column.binding(value)) }

    /// `column IS NULL`.
    public var isNull: RecordPredicate { suffixed(" IS NULL") }

    /// `column LIKE pattern` (SQLite's LIKE: `%` and `_`, ASCII case-insensitive).
    public func like(_ pattern: String) -> RecordPredicate {
        comparison("LIKE", .text(pattern))
    }

    /// `column IN (values)`; false for no values.
    public func `in`(_ values: [Value]) -> RecordPredicate {
        guard !values.isEmpty else { return RecordPredicate("0") }
        var segments: [SQLFragment.Segment] = [.text(" IN (")]
        segments.reserveCapacity(2 * values.count + 1)
        for (index, value) in values.enumerated() {
            if index > 0 { segments.append(.text(", ")) }
            segments.append(.value(binding(value)))
        }
        segments.append(.text(")"))
        return RecordPredicate(fragment + SQLFragment(segments: segments))
    }

    /// `column BETWEEN low AND high` (both ends included).
    public func between(_ low: Value, _ high: Value) -> RecordPredicate {
        RecordPredicate(fragment + SQLFragment(segments: [.text(" BETWEEN "), .value(binding(low)), .text(" AND "), .value(binding(high))]))
    }

    /// `column = value`, for `RecordQuery.update(_:set:)`.
    public func set(_ value: Value) -> ColumnAssignment {
        ColumnAssignment(column: name, value: binding(value))
    }
}

/// A condition on a record's columns: a `SQLFragment` whose columns are column segments (so a
/// join can qualify them) and whose values are bound.
public struct RecordPredicate: Sendable {
    /// The condition as a fragment.
    public let fragment: SQLFragment

    /// The condition `fragment` writes.
    public init(_ fragment: SQLFragment) { self.fragment = fragment }

    /// The condition's SQL, with `?` for each value.
    public var sql: String { fragment.sql }
    /// The values, in the order of the `?`s.
    public var arguments: [BindingValue] { fragment.arguments }

    /// `lhs` and `rhs`, each in parentheses, `separator` between them.
    private static func combining(_ lhs: RecordPredicate, _ separator: String, _ rhs: RecordPredicate) -> RecordPredicate {
        RecordPredicate(SQLFragment(segments: [.text("("), .fragment(lhs.fragment), .text(separator), .fragment(rhs.fragment), .text(")")]))
    }

    /// Both conditions.
    public static func && (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        combining(lhs, ") AND (", rhs)
    }

    /// Either condition.
    public static func || (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        combining(lhs, ") OR (", rhs)
    }

    /// The condition's negation.
    public static prefix func ! (predicate: RecordPredicate) -> RecordPredicate {
        RecordPredicate(SQLFragment(segments: [.text("NOT ("), .fragment(predicate.fragment), .text(")")]))
    }
}

/// One `column = value` of an UPDATE built with ``TypedColumn/set(_:)``.
public struct ColumnAssignment: Sendable {
    let column: String
    let value: BindingValue

    /// `"column" = ?`, the value bound.
    var fragment: SQLFragment { SQLFragment(segments: [.column(column, qualifier: nil), .text(" = "), .value(value)]) }
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
    var orderings: [SQLFragment] = []
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
        query.orderings.append(R.columns[keyPath: column].fragment + SQLFragment(segments: [.text(direction == .descending ? " DESC" : " ASC")]))
        return query
    }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> RecordQuery {
        var query = self
        query.limitCount = count
        query.offsetCount = offset
        return query
    }

    /// The WHERE, ORDER BY and LIMIT clauses, values bound.
    func clauses(ordering: Bool = true, limiting: Bool = true) -> SQLFragment {
        var clauses = SQLFragment()
        if let predicate { clauses += " WHERE \(predicate.fragment)" }
        if ordering, !orderings.isEmpty { clauses += " ORDER BY \(orderings.joined(separator: ", "))" }
        if limiting {
            switch (limitCount, offsetCount == 0 ? nil : offsetCount) {
            case (nil, nil): break
            case (let limit?, nil): clauses += " LIMIT \(limit)"
            case (nil, let offset?): clauses += " LIMIT -1 OFFSET \(offset)"
            case (let limit?, let offset?): clauses += " LIMIT \(limit) OFFSET \(offset)"
            }
        }
        return clauses
    }

    /// The SELECT this query runs, values bound; built once per fetch, never per row.
    @usableFromInline
    var selectFragment: SQLFragment {
        SQLFragment(segments: [.text("SELECT " + R.recordStatements.selectList + " FROM "), .identifier(R.tableName)]) + clauses()
    }

    /// The SELECT this query runs, with `?` for its values (for logging and tests).
    public var sql: String { selectFragment.sql }

    /// The values the query binds, in order.
    public var arguments: [BindingValue] { selectFragment.arguments }

    /// The matching records.
    /// - Throws: `SQLiteError`; ``RecordError`` for a row that does not map.
    @inlinable
    public func fetchAll(_ db: Connection) throws -> [R] {
        // Inlined into the caller, so the loop is specialized for the record type. The SELECT
        // lists the record's columns in declaration order, so each row reads them by position.
        try db.query(literal: selectFragment) { row in try R(columnOrderedRow: row) }
    }

    /// The first matching record, or nil.
    public func fetchOne(_ db: Connection) throws -> R? {
        try limit(1, offset: offsetCount ?? 0).fetchAll(db).first
    }

    /// How many records match (ignoring the order, and counting within the limit).
    public func fetchCount(_ db: Connection) throws -> Int {
        let count: Int? = try db.query(literal: "SELECT count(*) FROM (SELECT 1 FROM \(identifier: R.tableName)\(clauses(ordering: false)))")
        return count ?? 0
    }

    /// Deletes the matching records; returns how many.
    /// - Throws: `SQLiteError`, or ``RecordError`` for a limit or an order (a DELETE takes neither
    ///   here).
    @discardableResult
    public func deleteAll(_ db: Connection) throws -> Int {
        let clauses = try unlimitedClauses(for: "deleteAll")
        try db.run(literal: "DELETE FROM \(identifier: R.tableName)\(clauses)")
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
        let clauses = try unlimitedClauses(for: "update")
        try db.run(literal: "UPDATE \(identifier: R.tableName) SET \(assigned.map(\.fragment).joined(separator: ", "))\(clauses)")
        return db.changes
    }

    /// Sets one column of the matching records; returns how many changed.
    @discardableResult
    public func update(_ db: Connection, set assignment: (R.Columns) -> ColumnAssignment) throws -> Int {
        try update(db, set: { [assignment($0)] })
    }

    private func unlimitedClauses(for operation: String) throws -> SQLFragment {
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
