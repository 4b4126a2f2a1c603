import Foundation

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

    /// Both conditions.
    public static func && (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        RecordPredicate(.grouped(lhs.fragment, .and, rhs.fragment))
    }

    /// Either condition.
    public static func || (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        RecordPredicate(.grouped(lhs.fragment, .or, rhs.fragment))
    }

    /// The condition's negation.
    public static prefix func ! (predicate: RecordPredicate) -> RecordPredicate {
        RecordPredicate(predicate.fragment.negated)
    }
}

/// One `column = value` of an UPDATE built with ``TypedColumn/set(_:)``.
public struct ColumnAssignment: Sendable {
    let column: String
    let value: SQLFragment

    /// `"column" = ?`, the value bound.
    var fragment: SQLFragment { .infix(.column(column), .equal, value) }
}

/// The direction of an ORDER BY term.
public enum SortDirection: Sendable {
    /// Smallest first.
    case ascending
    /// Largest first.
    case descending
}

/// The clauses every typed query is made of, shared by single-table queries, joins and
/// selections: each builder adds to them, and one renderer writes the SELECT.
public struct QueryParts: Sendable {
    /// The FROM clause's tables and joins.
    var from: SQLFragment
    var predicate: RecordPredicate?
    var groups: [SQLFragment] = []
    var having: RecordPredicate?
    var orderings: [SQLFragment] = []
    var limitCount: Int?
    var offsetCount: Int?
    /// The WITH clause's named queries (``CTE``s, a recursive walk), and whether one is recursive.
    var commonTables: [SQLFragment] = []
    var recursive = false
    /// The names the WITH clause gives, so one named query is added once.
    var commonTableNames: [String] = []

    init(from: SQLFragment) {
        self.from = from
    }

    /// The clauses as the core's one statement renderer takes them.
    var statementClauses: StatementClauses {
        // `limit(n)` sets offset 0, which writes no OFFSET.
        var clauses = StatementClauses(
            predicate: predicate?.fragment, groups: groups, having: having?.fragment, orderings: orderings,
            limit: limitCount, offset: offsetCount == 0 ? nil : offsetCount)
        clauses.commonTables = commonTables
        clauses.recursive = recursive
        return clauses
    }

    /// Adds a named query to the WITH clause, once per name (as SQLite compares names).
    mutating func addCommonTable(_ name: String, _ definition: SQLFragment, recursive: Bool = false) {
        guard !IdentifierSet(commonTableNames).contains(name) else { return }
        commonTableNames.append(name)
        commonTables.append(definition)
        self.recursive = self.recursive || recursive
    }

    /// `SELECT list FROM … clauses`.
    func select(_ list: SQLFragment, ordering: Bool = true, limiting: Bool = true) -> SQLFragment {
        statementClauses.select(list, from: from, ordering: ordering, limiting: limiting)
    }

    /// `SELECT count(*)` of the rows the query returns (within its limit), selecting `list`
    /// (a grouped selection's rows are its groups).
    func countStatement(of list: SQLFragment = "1") -> SQLFragment {
        "SELECT count(*) FROM (\(select(list, ordering: false)))"
    }

    /// The query rendered once, to nest as a subquery (its columns are qualified by their
    /// tables, so a correlated subquery names the outer table's columns unambiguously).
    func nested(_ list: SQLFragment) -> SQLFragment {
        // Nested whole, not rendered to text: its values stay values, so a view or a trigger
        // can write them as literals, and one that could not be encoded still throws when the
        // outer query runs.
        SQLFragment(segments: [.fragment(select(list))])
    }

    /// At most `count` rows, after skipping `offset`.
    mutating func limit(_ count: Int, offset: Int) {
        limitCount = count
        offsetCount = offset
    }

    mutating func addPredicate(_ added: RecordPredicate) {
        predicate = predicate.map { $0 && added } ?? added
    }

    mutating func addHaving(_ added: RecordPredicate) {
        having = having.map { $0 && added } ?? added
    }
}

/// A typed query that others build on: joins extend it, selections pick its columns.
public protocol QuerySource: Sendable {
    /// The query's clauses.
    var queryParts: QueryParts { get }
}

/// A query whose builders return a copy with changed clauses.
protocol ModifiableQuery: QuerySource {
    var queryParts: QueryParts { get set }
}

extension ModifiableQuery {
    /// A copy of the query with `change` made to its clauses.
    func modifyingParts(_ change: (inout QueryParts) -> Void) -> Self {
        var query = self
        change(&query.queryParts)
        return query
    }
}

/// A query of a record's table, built from typed columns; values are always bound.
///
/// ```swift
/// let top = try Player.where { $0.score > 10 && $0.team == nil }
///     .order(by: \.score, .descending)
///     .limit(10, offset: 0)
///     .fetchAll(db)
/// ```
public struct RecordQuery<R: QueryableRecord>: QuerySource {
    /// The query's clauses.
    public var queryParts: QueryParts
    /// The name the table's columns are qualified by: the table's own, or an alias when the
    /// query is built inside another query's closure that already names the table (a correlated
    /// subquery over the same record), so inner and outer columns stay apart.
    @usableFromInline let qualifier: String

    @usableFromInline
    init() {
        qualifier = QueryScope.freeQualifier(for: R.tableName)
        var from = SQLFragment.identifier(R.tableName)
        if qualifier != R.tableName { from = from.aliased(qualifier) }
        queryParts = QueryParts(from: from)
    }

    /// The record's columns, qualified as this query names its table.
    @usableFromInline var columns: R.Columns {
        qualifier == R.tableName ? R.columns : R.Columns(qualifier: qualifier)
    }

    /// Runs a closure that builds part of the query, with this query's table in scope.
    @usableFromInline func building<T>(_ body: (R.Columns) throws -> T) rethrows -> T {
        try QueryScope.within([qualifier]) { try body(columns) }
    }

    /// Narrows the query (conditions given several times must all hold).
    public func `where`(_ condition: (R.Columns) -> RecordPredicate) -> RecordQuery {
        modifyingParts { $0.addPredicate(building(condition)) }
    }

    /// Adds an ORDER BY term (terms apply in the order they are added).
    public func order<V>(by column: KeyPath<R.Columns, TypedColumn<V>>, _ direction: SortDirection = .ascending) -> RecordQuery {
        let column = columns[keyPath: column]
        return order { _ in direction == .descending ? column.descending : column.ascending }
    }

    /// Adds an ORDER BY term: a column (ascending), or `.descending`/`.ascending` of one.
    ///
    /// ```swift
    /// Book.order { $0.year.descending }.order { $0.title }
    /// ```
    public func order<Term: OrderingTerm>(_ term: (R.Columns) -> Term) -> RecordQuery {
        modifyingParts { $0.orderings.append(building(term).orderingFragment) }
    }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> RecordQuery {
        modifyingParts { $0.limit(count, offset: offset) }
    }

    /// Groups the rows by a column, for the aggregates of `select` and ``having(_:)``.
    public func group<V>(by column: KeyPath<R.Columns, TypedColumn<V>>) -> RecordQuery {
        group { $0[keyPath: column] }
    }

    /// Groups the rows by one expression, or by a tuple of them.
    public func group<each E: QueryExpression>(_ terms: (R.Columns) -> (repeat each E)) -> RecordQuery {
        var query = self
        let built = building(terms)
        for term in repeat each built { query.queryParts.groups.append(term.fragment) }
        return query
    }

    /// Keeps the groups for which `condition` holds (conditions given several times must all hold).
    public func having(_ condition: (R.Columns) -> RecordPredicate) -> RecordQuery {
        modifyingParts { $0.addHaving(building(condition)) }
    }

    /// The SELECT this query runs, values bound; built once per fetch, never per row.
    @usableFromInline
    var selectFragment: SQLFragment { queryParts.select(selectList) }

    /// The record's columns in declaration order, qualified as the query names its table.
    var selectList: SQLFragment {
        qualifier == R.tableName ? SQLFragment(sql: R.recordStatements.qualifiedSelectList) : R.qualifiedSelectList(qualifier)
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
        try runningTypedQuery(of: [R.self]) { try db.query(literal: selectFragment) { row in try R(columnOrderedRow: row) } }
    }

    /// The first matching record, or nil.
    public func fetchOne(_ db: Connection) throws -> R? {
        try limit(1, offset: queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// How many records match (ignoring the order, and counting within the limit).
    public func fetchCount(_ db: Connection) throws -> Int {
        let count: Int? = try runningTypedQuery(of: [R.self]) { try db.query(literal: queryParts.countStatement()) }
        return count ?? 0
    }

    /// `EXISTS (subquery)`: true when the query has a row. Inside another query's `where`, the
    /// subquery may name the outer record's columns (a correlated subquery).
    ///
    /// ```swift
    /// Author.where { author in Book.where { $0.authorId == author.id }.exists() }
    /// ```
    public func exists() -> RecordPredicate {
        RecordPredicate(.exists(queryParts.nested("1")))
    }

    /// Deletes the matching records; returns how many.
    /// - Throws: `SQLiteError`, or ``RecordError`` for a limit, an order or a group (a
    ///   DELETE takes none of them here).
    @discardableResult
    public func deleteAll(_ db: Connection) throws -> Int where R: Record {
        let clauses = try unlimitedClauses(for: "deleteAll")
        try db.run(literal: clauses.delete(from: .identifier(R.tableName)))
        return db.changes
    }

    /// Sets columns of the matching records; returns how many changed.
    ///
    /// ```swift
    /// try Player.where { $0.team == nil }.update(db, set: { [$0.team.set("free agents"), $0.score.set(0)] })
    /// ```
    @discardableResult
    public func update(_ db: Connection, set assignments: (R.Columns) -> [ColumnAssignment]) throws -> Int where R: Record {
        let assigned = building(assignments)
        guard !assigned.isEmpty else { return 0 }
        let clauses = try unlimitedClauses(for: "update")
        try db.run(literal: clauses.update(.identifier(R.tableName), set: assigned.map(\.fragment).joined(separator: ", ")))
        return db.changes
    }

    /// Sets one column of the matching records; returns how many changed.
    @discardableResult
    public func update(_ db: Connection, set assignment: (R.Columns) -> ColumnAssignment) throws -> Int where R: Record {
        try update(db, set: { [assignment($0)] })
    }

    func unlimitedClauses(for operation: String) throws -> StatementClauses {
        guard queryParts.limitCount == nil, queryParts.orderings.isEmpty, queryParts.groups.isEmpty, queryParts.having == nil else {
            throw RecordError.unsupported("\(operation) on \(R.self) takes a query without order, limit, group or having")
        }
        return queryParts.statementClauses
    }
}

extension QueryableRecord {
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

    /// Every record, ordered by `term` (a column, or `.descending` of one).
    public static func order<Term: OrderingTerm>(_ term: (Columns) -> Term) -> RecordQuery<Self> {
        all().order(term)
    }

    /// Every record, grouped by a column.
    public static func group<V>(by column: KeyPath<Columns, TypedColumn<V>>) -> RecordQuery<Self> {
        all().group(by: column)
    }

    /// Every record, grouped by one expression or a tuple of them.
    public static func group<each E: QueryExpression>(_ terms: (Columns) -> (repeat each E)) -> RecordQuery<Self> {
        all().group(terms)
    }
}

/// Runs a typed query's statement; a statement SQLite cannot prepare (a column or table the
/// record declares but the database lacks) throws the `SQLiteError` with the record types named,
/// so the message says both what is missing and which declaration expects it.
@usableFromInline
func runningTypedQuery<T>(of records: @autoclosure () -> [Any.Type], _ body: () throws -> T) throws -> T {
    try runningTypedQuery(named: records().map { "\($0)" }, body)
}

/// ``runningTypedQuery(of:_:)`` with the record types' names.
@usableFromInline
func runningTypedQuery<T>(named records: @autoclosure () -> [String], _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch var error as SQLiteError where error.message.hasPrefix("no such column") || error.message.hasPrefix("no such table") {
        let names = records().joined(separator: ", ")
        error.message += " (in a typed query of \(names): the database lacks a table or column the record declares)"
        throw error
    }
}
extension RecordQuery: ModifiableQuery {}

/// The former name of ``RecordError`` for a query the builder cannot run as asked
/// (``RecordError/unsupported(_:)``).
public typealias RecordQueryError = RecordError
