import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// How a joined record is read from its columns: present, or nil when a LEFT JOIN matched nothing.
// @unchecked Sendable: the closure is one of the two readers built below, which capture nothing.
@usableFromInline
struct JoinedRecordReader<Output>: @unchecked Sendable {
    @usableFromInline let read: (Row, Int32) throws -> Output
}

extension Record {
    /// Whether the record's columns at `offset` are all NULL: a LEFT JOIN found no match. A
    /// primary key is never NULL in a matched row, so it alone decides when there is one.
    static func isAbsent(in row: Row, at offset: Int32) -> Bool {
        if let key = primaryKeyIndex { return row.isNull(at: offset + Int32(key)) }
        return (0..<Int32(recordColumns.count)).allSatisfy { row.isNull(at: offset + $0) }
    }

    static var requiredReader: JoinedRecordReader<Self> {
        JoinedRecordReader { row, offset in try Self(columnOrderedRow: row, startingAt: offset) }
    }

    static var optionalReader: JoinedRecordReader<Self?> {
        JoinedRecordReader { row, offset in
            isAbsent(in: row, at: offset) ? nil : try Self(columnOrderedRow: row, startingAt: offset)
        }
    }

    /// The record's columns in declaration order, qualified by `qualifier`.
    static func qualifiedSelectList(_ qualifier: String) -> SQLFragment {
        SQLFragment(segments: [.text(recordColumns.map { quoteIdentifier(qualifier) + "." + quoteIdentifier($0.name) }.joined(separator: ", "))])
    }
}

/// `JOIN table [AS alias] ON condition`, and the name the table's columns are qualified by.
private func joinClause(_ kind: String, table: String, alias: String?, taken: [String]) -> (clause: SQLFragment, qualifier: String) {
    // A record joined with itself without an alias gets one, so its columns stay apart; so does
    // a table an enclosing query names (a join inside a subquery).
    let qualifier = alias ?? QueryScope.freeQualifier(for: table, taken: taken)
    var clause = SQLFragment(segments: [.text(" " + kind + " "), .identifier(table)])
    if qualifier != table { clause += SQLFragment(segments: [.text(" AS "), .identifier(qualifier)]) }
    return (clause, qualifier)
}

/// Two records joined: rows read as `(A, B)`, or `(A, B?)` for a LEFT JOIN.
///
/// ```swift
/// let pairs: [(Book, Author)] = try Book.join(Author.self, on: { book, author in book.authorId == author.id })
///     .where { book, author in author.country == "FR" && book.year >= 2000 }
///     .order { _, author in author.name }
///     .fetchAll(db)
/// ```
/// Every column is qualified by its table (or alias), so two `id` columns never collide.
public struct JoinQuery<A: Record, B: Record, BRow>: QuerySource {
    /// The query's clauses.
    public var queryParts: QueryParts
    let aColumns: A.Columns
    let bColumns: B.Columns
    let qualifiers: [String]
    @usableFromInline let readB: JoinedRecordReader<BRow>
    var recordTypes: [Any.Type] { [A.self, B.self] }

    init(base: QueryParts, aQualifier: String, kind: String, alias: String?, reader: JoinedRecordReader<BRow>,
         on condition: (A.Columns, B.Columns) -> RecordPredicate) {
        self.init(base: base, aQualifier: aQualifier, kind: kind, alias: alias, reader: reader) { a, b, _, _ in condition(a, b) }
    }

    /// The join, its condition built from the columns or from the two qualifiers.
    init(base: QueryParts, aQualifier: String, kind: String, alias: String?, reader: JoinedRecordReader<BRow>,
         on condition: (A.Columns, B.Columns, String, String) -> RecordPredicate) {
        let (clause, bQualifier) = joinClause(kind, table: B.tableName, alias: alias, taken: [aQualifier])
        aColumns = aQualifier == A.tableName ? A.columns : A.Columns(qualifier: aQualifier)
        bColumns = bQualifier == B.tableName ? B.columns : B.Columns(qualifier: bQualifier)
        qualifiers = [aQualifier, bQualifier]
        readB = reader
        queryParts = base
        queryParts.from = base.from + clause + SQLFragment(segments: [.text(" ON ")]) + QueryScope.within([aQualifier, bQualifier]) { condition(aColumns, bColumns, aQualifier, bQualifier) }.fragment
    }

    /// Narrows the join (conditions given several times must all hold).
    public func `where`(_ condition: (A.Columns, B.Columns) -> RecordPredicate) -> JoinQuery {
        var query = self
        query.queryParts.addPredicate(QueryScope.within(qualifiers) { condition(aColumns, bColumns) })
        return query
    }

    /// Adds an ORDER BY term; chain `order` again for more terms.
    public func order<Term: OrderingTerm>(_ term: (A.Columns, B.Columns) -> Term) -> JoinQuery {
        var query = self
        query.queryParts.orderings.append(QueryScope.within(qualifiers) { term(aColumns, bColumns) }.orderingFragment)
        return query
    }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> JoinQuery {
        var query = self
        query.queryParts.limitCount = count
        query.queryParts.offsetCount = offset
        return query
    }

    /// Groups the rows by one expression or a tuple of them.
    public func group<each E: QueryExpression>(_ terms: (A.Columns, B.Columns) -> (repeat each E)) -> JoinQuery {
        var query = self
        let built = QueryScope.within(qualifiers) { terms(aColumns, bColumns) }
        for term in repeat each built { query.queryParts.groups.append(term.fragment) }
        return query
    }

    /// Keeps the groups for which `condition` holds.
    public func having(_ condition: (A.Columns, B.Columns) -> RecordPredicate) -> JoinQuery {
        var query = self
        query.queryParts.addHaving(QueryScope.within(qualifiers) { condition(aColumns, bColumns) })
        return query
    }

    /// Selects columns and expressions of both records, read as a tuple of their types.
    public func select<each E: QueryExpression>(_ expressions: (A.Columns, B.Columns) -> (repeat each E)) -> Selection<JoinQuery, (repeat (each E).Value)> {
        let built = QueryScope.within(qualifiers) { expressions(aColumns, bColumns) }
        return makeSelection(self, repeat each built)
    }

    /// Selects one expression of the joined records, read as its type.
    public func select<E: QueryExpression>(_ expression: (A.Columns, B.Columns) -> E) -> Selection<JoinQuery, E.Value> {
        makeSelection1(self, QueryScope.within(qualifiers) { expression(aColumns, bColumns) })
    }

    /// Joins a third record; `on:` sees all three.
    public func join<C: Record>(_ other: C.Type, as alias: String? = nil, on condition: (A.Columns, B.Columns, C.Columns) -> RecordPredicate) -> JoinQuery3<A, B, C, BRow, C> {
        JoinQuery3(base: self, kind: "JOIN", alias: alias, reader: C.requiredReader, on: condition)
    }

    /// Left-joins a third record: nil where nothing matched.
    public func leftJoin<C: Record>(_ other: C.Type, as alias: String? = nil, on condition: (A.Columns, B.Columns, C.Columns) -> RecordPredicate) -> JoinQuery3<A, B, C, BRow, C?> {
        JoinQuery3(base: self, kind: "LEFT JOIN", alias: alias, reader: C.optionalReader, on: condition)
    }

    /// The SELECT the join runs, values bound: both records' columns, qualified.
    @usableFromInline
    var statement: SQLFragment {
        queryParts.select(A.qualifiedSelectList(qualifiers[0]) + ", " + B.qualifiedSelectList(qualifiers[1]))
    }

    /// The SELECT the join runs, with `?` for its values.
    public var sql: String { statement.sql }

    /// The values the join binds, in order.
    public var arguments: [BindingValue] { statement.arguments }

    /// Every joined row.
    /// - Throws: `SQLiteError`; ``RecordError`` naming the record and column that does not map.
    // Inlined into the caller, so the row loop is specialized for the two records.
    @inlinable
    public func fetchAll(_ db: Connection) throws -> [(A, BRow)] {
        let (statement, readB, offset) = (self.statement, self.readB.read, Int32(A.recordColumns.count))
        return try runningTypedQuery(of: [A.self, B.self]) {
            try db.query(literal: statement) { row in (try A(columnOrderedRow: row), try readB(row, offset)) }
        }
    }

    /// The first joined row, or nil.
    public func fetchOne(_ db: Connection) throws -> (A, BRow)? {
        try limit(1, offset: queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// How many rows the join returns.
    public func fetchCount(_ db: Connection) throws -> Int {
        let count: Int? = try runningTypedQuery(of: recordTypes) { try db.query(literal: queryParts.countStatement()) }
        return count ?? 0
    }

    /// `EXISTS (join)`.
    public func exists() -> RecordPredicate {
        RecordPredicate(SQLFragment(segments: [.text("EXISTS ("), .fragment(queryParts.nested("1")), .text(")")]))
    }
}

/// Three records joined: rows read as `(A, B, C)`, with `B?`/`C?` for LEFT JOINs.
public struct JoinQuery3<A: Record, B: Record, C: Record, BRow, CRow>: QuerySource {
    /// The query's clauses.
    public var queryParts: QueryParts
    let aColumns: A.Columns
    let bColumns: B.Columns
    let cColumns: C.Columns
    let qualifiers: [String]
    let readB: JoinedRecordReader<BRow>
    let readC: JoinedRecordReader<CRow>
    var recordTypes: [Any.Type] { [A.self, B.self, C.self] }

    init(base: JoinQuery<A, B, BRow>, kind: String, alias: String?, reader: JoinedRecordReader<CRow>,
         on condition: (A.Columns, B.Columns, C.Columns) -> RecordPredicate) {
        let (clause, cQualifier) = joinClause(kind, table: C.tableName, alias: alias, taken: base.qualifiers)
        aColumns = base.aColumns
        bColumns = base.bColumns
        cColumns = cQualifier == C.tableName ? C.columns : C.Columns(qualifier: cQualifier)
        qualifiers = base.qualifiers + [cQualifier]
        readB = base.readB
        readC = reader
        queryParts = base.queryParts
        queryParts.from = base.queryParts.from + clause + SQLFragment(segments: [.text(" ON ")]) + QueryScope.within(base.qualifiers + [cQualifier]) { condition(aColumns, bColumns, cColumns) }.fragment
    }

    /// Narrows the join (conditions given several times must all hold).
    public func `where`(_ condition: (A.Columns, B.Columns, C.Columns) -> RecordPredicate) -> JoinQuery3 {
        var query = self
        query.queryParts.addPredicate(QueryScope.within(qualifiers) { condition(aColumns, bColumns, cColumns) })
        return query
    }

    /// Adds an ORDER BY term; chain `order` again for more terms.
    public func order<Term: OrderingTerm>(_ term: (A.Columns, B.Columns, C.Columns) -> Term) -> JoinQuery3 {
        var query = self
        query.queryParts.orderings.append(QueryScope.within(qualifiers) { term(aColumns, bColumns, cColumns) }.orderingFragment)
        return query
    }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> JoinQuery3 {
        var query = self
        query.queryParts.limitCount = count
        query.queryParts.offsetCount = offset
        return query
    }

    /// Groups the rows by one expression or a tuple of them.
    public func group<each E: QueryExpression>(_ terms: (A.Columns, B.Columns, C.Columns) -> (repeat each E)) -> JoinQuery3 {
        var query = self
        let built = QueryScope.within(qualifiers) { terms(aColumns, bColumns, cColumns) }
        for term in repeat each built { query.queryParts.groups.append(term.fragment) }
        return query
    }

    /// Keeps the groups for which `condition` holds.
    public func having(_ condition: (A.Columns, B.Columns, C.Columns) -> RecordPredicate) -> JoinQuery3 {
        var query = self
        query.queryParts.addHaving(QueryScope.within(qualifiers) { condition(aColumns, bColumns, cColumns) })
        return query
    }

    /// Selects columns and expressions of the three records, read as a tuple of their types.
    public func select<each E: QueryExpression>(_ expressions: (A.Columns, B.Columns, C.Columns) -> (repeat each E)) -> Selection<JoinQuery3, (repeat (each E).Value)> {
        let built = QueryScope.within(qualifiers) { expressions(aColumns, bColumns, cColumns) }
        return makeSelection(self, repeat each built)
    }

    /// Selects one expression of the three records, read as its type.
    public func select<E: QueryExpression>(_ expression: (A.Columns, B.Columns, C.Columns) -> E) -> Selection<JoinQuery3, E.Value> {
        makeSelection1(self, QueryScope.within(qualifiers) { expression(aColumns, bColumns, cColumns) })
    }

    var statement: SQLFragment {
        queryParts.select(A.qualifiedSelectList(qualifiers[0]) + ", " + B.qualifiedSelectList(qualifiers[1]) + ", " + C.qualifiedSelectList(qualifiers[2]))
    }

    /// The SELECT the join runs, with `?` for its values.
    public var sql: String { statement.sql }

    /// The values the join binds, in order.
    public var arguments: [BindingValue] { statement.arguments }

    /// Every joined row.
    /// - Throws: `SQLiteError`; ``RecordError`` naming the record and column that does not map.
    public func fetchAll(_ db: Connection) throws -> [(A, BRow, CRow)] {
        let (readB, readC) = (self.readB.read, self.readC.read)
        let bOffset = Int32(A.recordColumns.count)
        let cOffset = bOffset + Int32(B.recordColumns.count)
        return try runningTypedQuery(of: [A.self, B.self, C.self]) {
            try db.query(literal: statement) { row in
                (try A(columnOrderedRow: row), try readB(row, bOffset), try readC(row, cOffset))
            }
        }
    }

    /// The first joined row, or nil.
    public func fetchOne(_ db: Connection) throws -> (A, BRow, CRow)? {
        try limit(1, offset: queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// How many rows the join returns.
    public func fetchCount(_ db: Connection) throws -> Int {
        let count: Int? = try runningTypedQuery(of: recordTypes) { try db.query(literal: queryParts.countStatement()) }
        return count ?? 0
    }
}

extension RecordQuery {
    /// Joins another record: rows where `on:` holds, read as `(R, B)`. The query's conditions
    /// and order carry over.
    /// - Parameters:
    ///   - other: The record to join.
    ///   - alias: The name the other table's columns are qualified by; needed only to name it in
    ///     SQL of your own, as a record joined with itself gets one anyway.
    ///   - condition: The join condition, over both records' columns.
    public func join<B: Record>(_ other: B.Type, as alias: String? = nil, on condition: (R.Columns, B.Columns) -> RecordPredicate) -> JoinQuery<R, B, B> {
        JoinQuery(base: queryParts, aQualifier: qualifier, kind: "JOIN", alias: alias, reader: B.requiredReader, on: condition)
    }

    /// Left-joins another record: every row of this query, with the other record or nil.
    public func leftJoin<B: Record>(_ other: B.Type, as alias: String? = nil, on condition: (R.Columns, B.Columns) -> RecordPredicate) -> JoinQuery<R, B, B?> {
        JoinQuery(base: queryParts, aQualifier: qualifier, kind: "LEFT JOIN", alias: alias, reader: B.optionalReader, on: condition)
    }
}

extension Record {
    /// Joins another record: rows where `on:` holds, read as `(Self, B)`.
    ///
    /// ```swift
    /// let pairs: [(Book, Author)] = try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchAll(db)
    /// ```
    public static func join<B: Record>(_ other: B.Type, as alias: String? = nil, on condition: (Columns, B.Columns) -> RecordPredicate) -> JoinQuery<Self, B, B> {
        all().join(other, as: alias, on: condition)
    }

    /// Left-joins another record: every record, with the other record or nil where none matched.
    ///
    /// ```swift
    /// let all: [(Author, Book?)] = try Author.leftJoin(Book.self, on: { $1.authorId == $0.id }).fetchAll(db)
    /// ```
    public static func leftJoin<B: Record>(_ other: B.Type, as alias: String? = nil, on condition: (Columns, B.Columns) -> RecordPredicate) -> JoinQuery<Self, B, B?> {
        all().leftJoin(other, as: alias, on: condition)
    }
}
