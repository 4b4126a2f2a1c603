import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// What one joined table reads as: its record (`JOIN`), or an optional record (`LEFT JOIN`, nil
/// where nothing matched). A join's rows are tuples of its first record and one member per
/// joined table.
public protocol JoinMember {
    /// The record whose table is joined.
    associatedtype Joined: QueryableRecord
    /// Reads the member from a joined row whose columns at `offset` and after are the record's.
    static func readJoined(from row: borrowing Row, at offset: Int32) throws -> Self
}

extension QueryableRecord {
    /// A matched row's record.
    @inlinable
    public static func readJoined(from row: borrowing Row, at offset: Int32) throws -> Self {
        try Self(columnOrderedRow: row, startingAt: offset)
    }

    /// Whether the record's columns at `offset` are all NULL: a LEFT JOIN found no match. A
    /// primary key is never NULL in a matched row, so it alone decides when there is one.
    @usableFromInline
    static func isAbsent(in row: borrowing Row, at offset: Int32) -> Bool {
        if let key = primaryKeyIndex { return row.isNull(at: offset + Int32(key)) }
        return (0..<Int32(recordColumns.count)).allSatisfy { row.isNull(at: offset + $0) }
    }

    /// The record's columns in declaration order, qualified by `qualifier`.
    static func qualifiedSelectList(_ qualifier: String) -> SQLFragment {
        // Built in one string, the qualifier quoted once: a join runs this per query.
        let prefix = quoteIdentifier(qualifier) + "."
        var list = ""
        for (index, column) in recordColumns.enumerated() {
            if index > 0 { list += ", " }
            list += prefix
            list += quoteIdentifier(column.name)
        }
        return SQLFragment(sql: list)
    }

    /// The typed columns, qualified by `qualifier` unless it is the table's own name.
    static func columns(qualifiedBy qualifier: String) -> Columns {
        qualifier == tableName ? columns : Columns(qualifier: qualifier)
    }
}

extension Optional: JoinMember where Wrapped: QueryableRecord {
    /// The record a LEFT JOIN may not have matched.
    public typealias Joined = Wrapped

    /// The record, or nil when the LEFT JOIN matched nothing (its columns are all NULL).
    @inlinable
    public static func readJoined(from row: borrowing Row, at offset: Int32) throws -> Wrapped? {
        Wrapped.isAbsent(in: row, at: offset) ? nil : try Wrapped(columnOrderedRow: row, startingAt: offset)
    }
}

/// `JOIN table [AS alias] ON condition`, and the name the table's columns are qualified by.
private func joinClause(_ kind: String, table: String, alias: String?, taken: [String]) -> (clause: SQLFragment, qualifier: String) {
    // A record joined with itself without an alias gets one, so its columns stay apart; so does
    // a table an enclosing query names (a join inside a subquery).
    let qualifier = alias ?? QueryScope.freeQualifier(for: table, taken: taken)
    var clause: SQLFragment = " \(sql: kind) \(identifier: table)"
    if qualifier != table { clause = clause.aliased(qualifier) }
    return (clause, qualifier)
}

/// Records joined, any number of them: rows read as `(A, B, C, ...)`, with `B?` for a table
/// joined by `leftJoin` (nil where nothing matched). `Members` is the joined tables' member
/// types: `B` for one join, `(B, C?)` for two, and so on (one type for every arity, through
/// parameter packs); each method's closure receives the first record's columns and then each
/// joined record's, in join order.
///
/// ```swift
/// let pairs: [(Book, Author)] = try Book.join(Author.self, on: { book, author in book.authorId == author.id })
///     .where { book, author in author.country == "FR" && book.year >= 2000 }
///     .order { _, author in author.name }
///     .fetchAll(db)
/// let rows: [(Book, Author, Publisher?, Editor?)] = try Book.join(Author.self, on: { $0.authorId == $1.id })
///     .leftJoin(Publisher.self, on: { book, _, publisher in book.publisherId == publisher.id })
///     .leftJoin(Editor.self, on: { _, _, publisher, editor in publisher.editorId == editor.id })
///     .fetchAll(db)
/// ```
/// Every column is qualified by its table (or alias), so two `id` columns never collide.
public struct JoinQuery<A: QueryableRecord, Members>: QuerySource {
    /// The query's clauses.
    public var queryParts: QueryParts
    /// The name each table's columns are qualified by: the first record's, then each joined one's.
    @usableFromInline let qualifiers: [String]
    /// Where each joined record's columns start in a row (the first record's start at 0).
    @usableFromInline let offsets: [Int32]
    /// Where a record joined next would start.
    let nextOffset: Int32
    /// Every record's columns, qualified, in row order.
    @usableFromInline let selectList: SQLFragment
    /// The records' type names, for error messages.
    @usableFromInline let recordNames: [String]

    fileprivate init(queryParts: QueryParts, qualifiers: [String], offsets: [Int32], nextOffset: Int32, selectList: SQLFragment, recordNames: [String]) {
        self.queryParts = queryParts
        self.qualifiers = qualifiers
        self.offsets = offsets
        self.nextOffset = nextOffset
        self.selectList = selectList
        self.recordNames = recordNames
    }
}

extension JoinQuery where Members: JoinMember {
    /// The first join: `base` (the first record's query, its table qualified by `qualifier`)
    /// joined with one table. `condition` sees both tables' columns and qualifiers.
    init(
        base: QueryParts, qualifier: String, kind: String, alias: String?,
        on condition: (A.Columns, Members.Joined.Columns, String, String) -> RecordPredicate
    ) {
        let (clause, joinedQualifier) = joinClause(kind, table: Members.Joined.tableName, alias: alias, taken: [qualifier])
        let aCount = Int32(A.recordColumns.count)
        self.init(
            queryParts: base, qualifiers: [qualifier, joinedQualifier], offsets: [aCount],
            nextOffset: aCount + Int32(Members.Joined.recordColumns.count),
            selectList: A.qualifiedSelectList(qualifier) + ", " + Members.Joined.qualifiedSelectList(joinedQualifier),
            recordNames: ["\(A.self)", "\(Members.Joined.self)"])
        let predicate = QueryScope.within(qualifiers) {
            condition(A.columns(qualifiedBy: qualifier), Members.Joined.columns(qualifiedBy: joinedQualifier), qualifier, joinedQualifier)
        }
        queryParts.from = "\(base.from)\(clause) ON \(predicate.fragment)"
    }
}

extension JoinQuery {
    /// This join with one more table (`JOIN table [AS alias]`), its ON clause still to be added.
    func appendingTable<NewMembers, Joined: QueryableRecord>(
        _ joined: Joined.Type, kind: String, alias: String?,
        as _: NewMembers.Type
    ) -> (query: JoinQuery<A, NewMembers>, clause: SQLFragment) {
        let (clause, qualifier) = joinClause(kind, table: Joined.tableName, alias: alias, taken: qualifiers)
        let query = JoinQuery<A, NewMembers>(
            queryParts: queryParts, qualifiers: qualifiers + [qualifier], offsets: offsets + [nextOffset],
            nextOffset: nextOffset + Int32(Joined.recordColumns.count),
            selectList: selectList + ", " + Joined.qualifiedSelectList(qualifier),
            recordNames: recordNames + ["\(Joined.self)"])
        return (query, clause)
    }

    /// Adds `predicate` as the ON clause of the table `clause` joins.
    mutating func addOnClause(_ clause: SQLFragment, _ predicate: RecordPredicate) {
        queryParts.from = "\(queryParts.from)\(clause) ON \(predicate.fragment)"
    }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> JoinQuery {
        modifyingParts { $0.limit(count, offset: offset) }
    }

    /// The SELECT the join runs, values bound: every record's columns, qualified.
    @usableFromInline
    var statement: SQLFragment { queryParts.select(selectList) }

    /// The SELECT the join runs, with `?` for its values.
    public var sql: String { statement.sql }

    /// The values the join binds, in order.
    public var arguments: [BindingValue] { statement.arguments }

    /// `EXISTS (join)`.
    public func exists() -> RecordPredicate {
        RecordPredicate(.exists(queryParts.nested("1")))
    }

    /// Reads one joined record at its offset and moves to the next.
    @inlinable
    static func readMember<Member: JoinMember>(
        _: Member.Type, _ row: borrowing Row, _ offsets: UnsafeBufferPointer<Int32>, _ position: inout Int
    ) throws -> Member {
        defer { position += 1 }
        return try Member.readJoined(from: row, at: offsets[position])
    }
}

// Two tables. Every method exists twice: here, for one joined table, and below, for two or more
// through a parameter pack. The split keeps them apart for Swift's solver, which finds a
// one-element pack ambiguous beside a plain type parameter and cannot match one with a member
// named through an associated type (`including(required: Book.author).fetchAll(db)`).
extension JoinQuery where Members: JoinMember {
    /// Both tables' typed columns, qualified as the query names them, with the tables in scope.
    func withBothColumns<Result>(_ body: (A.Columns, Members.Joined.Columns) -> Result) -> Result {
        let (a, b) = (A.columns(qualifiedBy: qualifiers[0]), Members.Joined.columns(qualifiedBy: qualifiers[1]))
        return QueryScope.within(qualifiers) { body(a, b) }
    }

    /// Narrows the join (conditions given several times must all hold).
    public func `where`(_ condition: (A.Columns, Members.Joined.Columns) -> RecordPredicate) -> JoinQuery {
        modifyingParts { $0.addPredicate(withBothColumns(condition)) }
    }

    /// Adds an ORDER BY term; chain `order` again for more terms.
    public func order<Term: OrderingTerm>(_ term: (A.Columns, Members.Joined.Columns) -> Term) -> JoinQuery {
        modifyingParts { $0.orderings.append(withBothColumns(term).orderingFragment) }
    }

    /// Groups the rows by one expression or a tuple of them.
    public func group<each E: QueryExpression>(_ terms: (A.Columns, Members.Joined.Columns) -> (repeat each E)) -> JoinQuery {
        var query = self
        let built = withBothColumns(terms)
        for term in repeat each built { query.queryParts.groups.append(term.fragment) }
        return query
    }

    /// Keeps the groups for which `condition` holds.
    public func having(_ condition: (A.Columns, Members.Joined.Columns) -> RecordPredicate) -> JoinQuery {
        modifyingParts { $0.addHaving(withBothColumns(condition)) }
    }

    /// Selects columns and expressions of both records, read as a tuple of their types.
    public func select<each E: QueryExpression>(
        _ expressions: (A.Columns, Members.Joined.Columns) -> (repeat each E)
    ) -> Selection<JoinQuery, (repeat (each E).Value)> {
        let built = withBothColumns(expressions)
        return makeSelection(self, repeat each built)
    }

    /// Selects one expression of the joined records, read as its type.
    public func select<E: QueryExpression>(_ expression: (A.Columns, Members.Joined.Columns) -> E) -> Selection<JoinQuery, E.Value> {
        makeSelection1(self, withBothColumns(expression))
    }

    /// Joins a third record; `on:` sees all three tables' columns.
    public func join<C: QueryableRecord>(
        _ other: C.Type, as alias: String? = nil,
        on condition: (A.Columns, Members.Joined.Columns, C.Columns) -> RecordPredicate
    ) -> JoinQuery<A, (Members, C)> {
        adding(C.self, kind: "JOIN", alias: alias, on: condition)
    }

    /// Left-joins a third record: nil where nothing matched.
    public func leftJoin<C: QueryableRecord>(
        _ other: C.Type, as alias: String? = nil,
        on condition: (A.Columns, Members.Joined.Columns, C.Columns) -> RecordPredicate
    ) -> JoinQuery<A, (Members, C?)> {
        adding(C?.self, kind: "LEFT JOIN", alias: alias, on: condition)
    }

    /// The third table, as `JOIN` or `LEFT JOIN` (`Member` is its record or an optional one).
    private func adding<Member: JoinMember>(
        _ member: Member.Type, kind: String, alias: String?,
        on condition: (A.Columns, Members.Joined.Columns, Member.Joined.Columns) -> RecordPredicate
    )
        -> JoinQuery<A, (Members, Member)>
    {
        var (joined, clause) = appendingTable(Member.Joined.self, kind: kind, alias: alias, as: (Members, Member).self)
        joined.addOnClause(clause, joined.withColumns(condition))
        return joined
    }

    /// Every joined row.
    /// - Throws: `SQLiteError`; ``RecordError`` naming the record and column that does not map.
    // Inlined into the caller, so the row loop is specialized for the two records.
    @inlinable
    public func fetchAll(_ db: Connection) throws -> [(A, Members)] {
        let (statement, offset) = (self.statement, offsets[0])
        return try runningTypedQuery(named: recordNames) {
            try db.query(literal: statement) { row in (try A(columnOrderedRow: row), try Members.readJoined(from: row, at: offset)) }
        }
    }

    /// The first joined row, or nil.
    public func fetchOne(_ db: Connection) throws -> (A, Members)? {
        try limit(1, offset: queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// How many rows the join returns.
    public func fetchCount(_ db: Connection) throws -> Int {
        let count: Int? = try runningTypedQuery(named: recordNames) { try db.query(literal: queryParts.countStatement()) }
        return count ?? 0
    }
}

// Three tables or more: the first two joined members by name, the rest as a parameter pack.
extension JoinQuery {
    /// Calls `body` with every table's typed columns, each qualified as the query names it, with
    /// the tables in scope (a subquery built in `body` aliases a table they name).
    func withColumns<M1: JoinMember, M2: JoinMember, each M: JoinMember, Result>(
        _ body: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> Result
    ) -> Result where Members == (M1, M2, repeat each M) {
        var position = 2
        func next<Member: JoinMember>(_: Member.Type) -> Member.Joined.Columns {
            position += 1
            return Member.Joined.columns(qualifiedBy: qualifiers[position])
        }
        let a = A.columns(qualifiedBy: qualifiers[0])
        let m1 = M1.Joined.columns(qualifiedBy: qualifiers[1])
        let m2 = M2.Joined.columns(qualifiedBy: qualifiers[2])
        return QueryScope.within(qualifiers) { body(a, m1, m2, repeat next((each M).self)) }
    }

    /// Narrows the join (conditions given several times must all hold).
    public func `where`<M1: JoinMember, M2: JoinMember, each M: JoinMember>(
        _ condition: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> RecordPredicate
    ) -> JoinQuery where Members == (M1, M2, repeat each M) {
        modifyingParts { $0.addPredicate(withColumns(condition)) }
    }

    /// Adds an ORDER BY term; chain `order` again for more terms.
    public func order<M1: JoinMember, M2: JoinMember, each M: JoinMember, Term: OrderingTerm>(
        _ term: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> Term
    ) -> JoinQuery where Members == (M1, M2, repeat each M) {
        modifyingParts { $0.orderings.append(withColumns(term).orderingFragment) }
    }

    /// Groups the rows by one expression or a tuple of them.
    public func group<M1: JoinMember, M2: JoinMember, each M: JoinMember, each E: QueryExpression>(
        _ terms: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> (repeat each E)
    ) -> JoinQuery where Members == (M1, M2, repeat each M) {
        var query = self
        let built = withColumns(terms)
        for term in repeat each built { query.queryParts.groups.append(term.fragment) }
        return query
    }

    /// Groups the rows by one expression.
    public func group<M1: JoinMember, M2: JoinMember, each M: JoinMember, E: QueryExpression>(
        _ term: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> E
    ) -> JoinQuery where Members == (M1, M2, repeat each M) {
        modifyingParts { $0.groups.append(withColumns(term).fragment) }
    }

    /// Keeps the groups for which `condition` holds.
    public func having<M1: JoinMember, M2: JoinMember, each M: JoinMember>(
        _ condition: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> RecordPredicate
    ) -> JoinQuery where Members == (M1, M2, repeat each M) {
        modifyingParts { $0.addHaving(withColumns(condition)) }
    }

    /// Selects columns and expressions of the joined records, read as a tuple of their types.
    public func select<M1: JoinMember, M2: JoinMember, each M: JoinMember, each E: QueryExpression>(
        _ expressions: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> (repeat each E)
    ) -> Selection<JoinQuery, (repeat (each E).Value)> where Members == (M1, M2, repeat each M) {
        let built = withColumns(expressions)
        return makeSelection(self, repeat each built)
    }

    /// Selects one expression of the joined records, read as its type.
    public func select<M1: JoinMember, M2: JoinMember, each M: JoinMember, E: QueryExpression>(
        _ expression: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> E
    ) -> Selection<JoinQuery, E.Value> where Members == (M1, M2, repeat each M) {
        makeSelection1(self, withColumns(expression))
    }

    /// Joins one more record; `on:` sees every table's columns, the new one's last.
    public func join<M1: JoinMember, M2: JoinMember, each M: JoinMember, C: QueryableRecord>(
        _ other: C.Type, as alias: String? = nil,
        on condition: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns, C.Columns) -> RecordPredicate
    ) -> JoinQuery<A, (M1, M2, repeat each M, C)> where Members == (M1, M2, repeat each M) {
        adding(C.self, kind: "JOIN", alias: alias, on: condition)
    }

    /// Left-joins one more record: nil where nothing matched.
    public func leftJoin<M1: JoinMember, M2: JoinMember, each M: JoinMember, C: QueryableRecord>(
        _ other: C.Type, as alias: String? = nil,
        on condition: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns, C.Columns) -> RecordPredicate
    ) -> JoinQuery<A, (M1, M2, repeat each M, C?)> where Members == (M1, M2, repeat each M) {
        adding(C?.self, kind: "LEFT JOIN", alias: alias, on: condition)
    }

    /// One more table, as `JOIN` or `LEFT JOIN` (`Member` is its record or an optional one); the
    /// ON clause is built over the joined query's columns, the new table's last.
    private func adding<M1: JoinMember, M2: JoinMember, each M: JoinMember, Member: JoinMember>(
        _ member: Member.Type, kind: String, alias: String?,
        on condition: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns, Member.Joined.Columns) -> RecordPredicate
    ) -> JoinQuery<A, (M1, M2, repeat each M, Member)> where Members == (M1, M2, repeat each M) {
        var (joined, clause) = appendingTable(Member.Joined.self, kind: kind, alias: alias, as: (M1, M2, repeat each M, Member).self)
        joined.addOnClause(clause, joined.withColumns(condition))
        return joined
    }

    /// Every joined row.
    /// - Throws: `SQLiteError`; ``RecordError`` naming the record and column that does not map.
    // Inlined into the caller, so the row loop is specialized for the joined records.
    @inlinable
    public func fetchAll<M1: JoinMember, M2: JoinMember, each M: JoinMember>(_ db: Connection) throws -> [(A, M1, M2, repeat each M)]
    where Members == (M1, M2, repeat each M) {
        let (statement, offsets) = (self.statement, self.offsets)
        return try runningTypedQuery(named: recordNames) {
            try offsets.withUnsafeBufferPointer { offsets in
                try db.query(literal: statement) { row in
                    var position = 2
                    return (
                        try A(columnOrderedRow: row), try M1.readJoined(from: row, at: offsets[0]), try M2.readJoined(from: row, at: offsets[1]),
                        repeat try Self.readMember((each M).self, row, offsets, &position)
                    )
                }
            }
        }
    }

    /// The first joined row, or nil.
    public func fetchOne<M1: JoinMember, M2: JoinMember, each M: JoinMember>(_ db: Connection) throws -> (A, M1, M2, repeat each M)?
    where Members == (M1, M2, repeat each M) {
        try limit(1, offset: queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// How many rows the join returns.
    public func fetchCount<M1: JoinMember, M2: JoinMember, each M: JoinMember>(_ db: Connection) throws -> Int
    where Members == (M1, M2, repeat each M) {
        let count: Int? = try runningTypedQuery(named: recordNames) { try db.query(literal: queryParts.countStatement()) }
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
    public func join<B: QueryableRecord>(_ other: B.Type, as alias: String? = nil, on condition: (R.Columns, B.Columns) -> RecordPredicate) -> JoinQuery<R, B> {
        JoinQuery(base: queryParts, qualifier: qualifier, kind: "JOIN", alias: alias) { a, b, _, _ in condition(a, b) }
    }

    /// Left-joins another record: every row of this query, with the other record or nil.
    public func leftJoin<B: QueryableRecord>(
        _ other: B.Type, as alias: String? = nil, on condition: (R.Columns, B.Columns) -> RecordPredicate
    ) -> JoinQuery<R, B?> {
        JoinQuery(base: queryParts, qualifier: qualifier, kind: "LEFT JOIN", alias: alias) { a, b, _, _ in condition(a, b) }
    }
}

extension QueryableRecord {
    /// Joins another record: rows where `on:` holds, read as `(Self, B)`.
    ///
    /// ```swift
    /// let pairs: [(Book, Author)] = try Book.join(Author.self, on: { $0.authorId == $1.id }).fetchAll(db)
    /// ```
    public static func join<B: QueryableRecord>(
        _ other: B.Type, as alias: String? = nil, on condition: (Columns, B.Columns) -> RecordPredicate
    ) -> JoinQuery<Self, B> {
        all().join(other, as: alias, on: condition)
    }

    /// Left-joins another record: every record, with the other record or nil where none matched.
    ///
    /// ```swift
    /// let all: [(Author, Book?)] = try Author.leftJoin(Book.self, on: { $1.authorId == $0.id }).fetchAll(db)
    /// ```
    public static func leftJoin<B: QueryableRecord>(
        _ other: B.Type, as alias: String? = nil, on condition: (Columns, B.Columns) -> RecordPredicate
    ) -> JoinQuery<Self, B?> {
        all().leftJoin(other, as: alias, on: condition)
    }
}
extension JoinQuery: ModifiableQuery {}
