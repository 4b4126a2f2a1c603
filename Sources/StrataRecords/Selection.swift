import Foundation

/// Columns and expressions selected from a query, read as typed tuples.
///
/// ```swift
/// let titles: [String] = try Book.where { $0.year > 2000 }.order(by: \.title).select(\.title).fetchAll(db)
/// let span: (Int?, Int?)? = try Book.select { ($0.year.min(), $0.year.max()) }.fetchOne(db)
/// ```
/// A selection nests as a subquery: `$0.id.in(Book.select(\.authorId))`.
// @unchecked Sendable: `decode` is built by `select` from the selected expressions, which are
// Sendable; `Output`'s metatype need not be.
public struct Selection<Source: QuerySource, Output>: QuerySource, @unchecked Sendable {
    /// The source query, ordered and limited by the selection's own calls too.
    var source: Source
    /// The query's clauses.
    public var queryParts: QueryParts
    let list: SQLFragment
    @usableFromInline let decode: (SQLiteStatementHandle) throws -> Output

    @usableFromInline
    init(source: Source, list: SQLFragment, decode: @escaping (SQLiteStatementHandle) throws -> Output) {
        self.source = source
        queryParts = source.queryParts
        self.list = list
        self.decode = decode
    }

    /// The SELECT this selection runs, values bound.
    @usableFromInline var statement: SQLFragment { queryParts.select(list) }

    /// The SELECT this selection runs, with `?` for its values.
    public var sql: String { statement.sql }

    /// The values the selection binds, in order.
    public var arguments: [BindingValue] { statement.arguments }

    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> Selection {
        modifyingParts { $0.limit(count, offset: offset) }
    }

    /// Every selected row.
    /// - Throws: `SQLiteError`; ``RecordError`` naming the column whose value does not convert.
    // Inlined into the caller with `select`, so the row loop is specialized for the selected types.
    @inlinable
    public func fetchAll(_ db: Connection) throws -> [Output] {
        let decode = self.decode
        return try runningTypedQuery(of: [Source.self]) { try db.query(literal: statement) { row in try decode(row.statementHandle) } }
    }

    /// The first selected row, or nil.
    public func fetchOne(_ db: Connection) throws -> Output? {
        try limit(1, offset: queryParts.offsetCount ?? 0).fetchAll(db).first
    }

    /// The single value a selection of one optional expression reads (an aggregate, say): nil
    /// for no row or NULL, never a double optional.
    ///
    /// ```swift
    /// let total: Int? = try Session.select { $0.pages.sum() }.fetchValue(db)
    /// ```
    public func fetchValue<Wrapped>(_ db: Connection) throws -> Wrapped? where Output == Wrapped? {
        try fetchOne(db) ?? nil
    }

    /// The first row's value, or nil when there is none (`count()` and other non-optional
    /// expressions).
    @_disfavoredOverload
    public func fetchValue(_ db: Connection) throws -> Output? {
        try fetchOne(db)
    }

    /// How many rows the selection returns.
    public func fetchCount(_ db: Connection) throws -> Int {
        let count: Int? = try runningTypedQuery(of: [Source.self]) { try db.query(literal: queryParts.countStatement(of: list)) }
        return count ?? 0
    }

    /// `EXISTS (selection)`.
    public func exists() -> RecordPredicate {
        RecordPredicate(.exists(queryParts.nested(list)))
    }

    /// The selection rendered once, to nest inside another query.
    var nested: SQLFragment { queryParts.nested(list) }

    func ordered(_ term: SQLFragment) -> Selection {
        modifyingParts { $0.orderings.append(term) }
    }
}

extension Selection {
    /// Adds an ORDER BY term over the record's columns.
    public func order<R: QueryableRecord, Term: OrderingTerm>(_ term: (R.Columns) -> Term) -> Selection where Source == RecordQuery<R> {
        ordered(source.building(term).orderingFragment)
    }

    /// Adds an ORDER BY term by a column.
    public func order<R: QueryableRecord, V>(by column: KeyPath<R.Columns, TypedColumn<V>>, _ direction: SortDirection = .ascending) -> Selection
    where Source == RecordQuery<R> {
        let column = source.columns[keyPath: column]
        return ordered(direction == .descending ? column.descending.orderingFragment : column.orderingFragment)
    }

    /// Adds an ORDER BY term over the two joined records' columns.
    public func order<A: QueryableRecord, B: JoinMember, Term: OrderingTerm>(_ term: (A.Columns, B.Joined.Columns) -> Term) -> Selection
    where Source == JoinQuery<A, B> {
        ordered(source.withBothColumns(term).orderingFragment)
    }

    /// Adds an ORDER BY term over three or more joined records' columns.
    public func order<A: QueryableRecord, M1: JoinMember, M2: JoinMember, each M: JoinMember, Term: OrderingTerm>(
        _ term: (A.Columns, M1.Joined.Columns, M2.Joined.Columns, repeat (each M).Joined.Columns) -> Term
    ) -> Selection where Source == JoinQuery<A, (M1, M2, repeat each M)> {
        ordered(source.withColumns(term).orderingFragment)
    }
}

/// Builds a selection of `expressions` from `source`: one SELECT list, and one reader per row
/// that reads each expression at its position. Inlinable, so the reader is specialized for the
/// selected expressions where `select` is called (a generic tuple per row costs ten times the read).
@inlinable
func makeSelection<Source: QuerySource, each E: QueryExpression>(_ source: Source, _ expressions: repeat each E) -> Selection<Source, (repeat (each E).Value)> {
    var list: [SQLFragment] = []
    for expression in repeat each expressions { list.append(expression.fragment) }
    // The readers, not the expressions: copying an expression per row costs more than the read.
    let readers = (repeat (each expressions).valueReader)
    return Selection(source: source, list: list.joined(separator: ", ")) { handle in
        var index: Int32 = 0
        return (repeat try readNext(each readers, handle, &index))
    }
}

/// One expression, read without a pack: the selection's output is the expression's value
/// itself, not a one-element pack, so `fetchValue` sees an optional value as one.
@inlinable
func makeSelection1<Source: QuerySource, E: QueryExpression>(_ source: Source, _ expression: E) -> Selection<Source, E.Value> {
    let read = expression.valueReader
    return Selection(source: source, list: expression.fragment) { handle in try read(handle, 0) }
}

/// Two expressions, read without a pack: the optimizer specializes a tuple of two concrete
/// reads fully, where a pack still costs a generic loop per row.
@inlinable
func makeSelection2<Source: QuerySource, E1: QueryExpression, E2: QueryExpression>(
    _ source: Source, _ e1: E1, _ e2: E2
) -> Selection<Source, (E1.Value, E2.Value)> {
    let (r1, r2) = (e1.valueReader, e2.valueReader)
    return Selection(source: source, list: [e1.fragment, e2.fragment].joined(separator: ", ")) { handle in
        (try r1(handle, 0), try r2(handle, 1))
    }
}

/// Three expressions, as ``makeSelection2(_:_:_:)``.
@inlinable
func makeSelection3<Source: QuerySource, E1: QueryExpression, E2: QueryExpression, E3: QueryExpression>(
    _ source: Source, _ e1: E1, _ e2: E2, _ e3: E3
) -> Selection<Source, (E1.Value, E2.Value, E3.Value)> {
    let (r1, r2, r3) = (e1.valueReader, e2.valueReader, e3.valueReader)
    return Selection(source: source, list: [e1.fragment, e2.fragment, e3.fragment].joined(separator: ", ")) { handle in
        (try r1(handle, 0), try r2(handle, 1), try r3(handle, 2))
    }
}

@inlinable @inline(__always)
func readNext<V>(_ reader: (SQLiteStatementHandle, Int32) throws -> V, _ handle: SQLiteStatementHandle, _ index: inout Int32) throws -> V {
    defer { index += 1 }
    return try reader(handle, index)
}

extension RecordQuery {
    /// Selects one column, read as its property's type.
    ///
    /// ```swift
    /// let titles: [String] = try Book.order(by: \.title).select(\.title).fetchAll(db)
    /// ```
    @inlinable
    public func select<V>(_ column: KeyPath<R.Columns, TypedColumn<V>>) -> Selection<RecordQuery, V> {
        makeSelection(self, columns[keyPath: column])
    }

    /// Selects columns and expressions, read as a tuple of their types.
    ///
    /// ```swift
    /// let perAuthor: [(Int64, Int)] = try Book.group(by: \.authorId).select { ($0.authorId, $0.id.count()) }.fetchAll(db)
    /// ```
    @inlinable
    public func select<each E: QueryExpression>(_ expressions: (R.Columns) -> (repeat each E)) -> Selection<RecordQuery, (repeat (each E).Value)> {
        let built = building(expressions)
        return makeSelection(self, repeat each built)
    }

    /// Selects one expression (an aggregate, say), read as its type.
    ///
    /// ```swift
    /// let total: Int? = try Session.select { $0.pages.sum() }.fetchValue(db)
    /// ```
    @inlinable
    public func select<E: QueryExpression>(_ expression: (R.Columns) -> E) -> Selection<RecordQuery, E.Value> {
        makeSelection1(self, building(expression))
    }

    /// Selects two columns or expressions, read as a pair: the common case, read without a
    /// parameter pack.
    @inlinable
    public func select<E1: QueryExpression, E2: QueryExpression>(_ expressions: (R.Columns) -> (E1, E2)) -> Selection<RecordQuery, (E1.Value, E2.Value)> {
        let (e1, e2) = building(expressions)
        return makeSelection2(self, e1, e2)
    }

    /// Selects three columns or expressions, read as a triple without a parameter pack.
    @inlinable
    public func select<E1: QueryExpression, E2: QueryExpression, E3: QueryExpression>(
        _ expressions: (R.Columns) -> (E1, E2, E3)
    ) -> Selection<RecordQuery, (E1.Value, E2.Value, E3.Value)> {
        let (e1, e2, e3) = building(expressions)
        return makeSelection3(self, e1, e2, e3)
    }
}

extension QueryableRecord {
    /// Selects one column of every record.
    @inlinable
    public static func select<V>(_ column: KeyPath<Columns, TypedColumn<V>>) -> Selection<RecordQuery<Self>, V> {
        all().select(column)
    }

    /// Selects columns and expressions over every record (aggregates over the whole table).
    @inlinable
    public static func select<each E: QueryExpression>(_ expressions: (Columns) -> (repeat each E)) -> Selection<RecordQuery<Self>, (repeat (each E).Value)> {
        all().select(expressions)
    }

    /// Selects one expression over every record (an aggregate of the whole table, say).
    @inlinable
    public static func select<E: QueryExpression>(_ expression: (Columns) -> E) -> Selection<RecordQuery<Self>, E.Value> {
        all().select(expression)
    }

    /// Selects two columns or expressions over every record, read as a pair.
    @inlinable
    public static func select<E1: QueryExpression, E2: QueryExpression>(
        _ expressions: (Columns) -> (E1, E2)
    ) -> Selection<RecordQuery<Self>, (E1.Value, E2.Value)> {
        all().select(expressions)
    }

    /// Selects three columns or expressions over every record, read as a triple.
    @inlinable
    public static func select<E1: QueryExpression, E2: QueryExpression, E3: QueryExpression>(
        _ expressions: (Columns) -> (E1, E2, E3)
    ) -> Selection<RecordQuery<Self>, (E1.Value, E2.Value, E3.Value)> {
        all().select(expressions)
    }
}

// MARK: - Subqueries

extension TypedColumn {
    private func inSubquery(_ nested: SQLFragment) -> RecordPredicate {
        RecordPredicate(fragment.membership(inSubquery: nested))
    }

    /// `column IN (subquery)`.
    ///
    /// ```swift
    /// Author.where { $0.id.in(Book.where { $0.year > 2000 }.select(\.authorId)) }
    /// ```
    public func `in`<S>(_ subquery: Selection<S, Value>) -> RecordPredicate { inSubquery(subquery.nested) }
    /// `column IN (subquery)`, the column optional.
    public func `in`<S, Wrapped>(_ subquery: Selection<S, Wrapped>) -> RecordPredicate where Value == Wrapped? { inSubquery(subquery.nested) }
    /// `column IN (subquery)`, the subquery's values optional.
    public func `in`<S>(_ subquery: Selection<S, Value?>) -> RecordPredicate { inSubquery(subquery.nested) }
}
extension Selection: ModifiableQuery {}
