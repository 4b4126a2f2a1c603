import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Something a typed query can select, group by or order by: a column or an expression over
/// columns, with the Swift type it reads as.
///
/// ```swift
/// let perAuthor: [(Int64, Int)] = try Book.group(by: \.authorId)
///     .select { ($0.authorId, $0.id.count()) }
///     .fetchAll(db)
/// ```
public protocol QueryExpression<Value>: SQLExpressible, Sendable {
    /// Reads the expression's value from result column `index` of `handle`'s current row.
    /// - Throws: ``RecordError`` when the value does not convert.
    func readValue(from handle: SQLiteStatementHandle, at index: Int32) throws -> Value
    /// What reads the value: a selection keeps it, not the expression, for each row.
    var valueReader: (SQLiteStatementHandle, Int32) throws -> Value { get }
}

extension QueryExpression {
    /// Reads through ``readValue(from:at:)``.
    @inlinable
    public var valueReader: (SQLiteStatementHandle, Int32) throws -> Value {
        { [self] handle, index in try readValue(from: handle, at: index) }
    }
}

extension TypedColumn: QueryExpression {
    /// Reads the column's value; errors name the column and its record.
    @inlinable
    public func readValue(from handle: SQLiteStatementHandle, at index: Int32) throws -> Value {
        try reader(handle, index)
    }

    /// The column's own reader.
    @inlinable
    public var valueReader: (SQLiteStatementHandle, Int32) throws -> Value { reader }
}

/// An SQL expression over columns (an aggregate, say) that reads as `Value`.
// @unchecked Sendable: `reader` is either a caller's `@Sendable` closure (the public initializer
// takes no other) or one of this module's readers (a column's reader, or a conversion that
// captures only names), which keep no mutable state; those are not marked `@Sendable` because
// they name `Value`'s type, whose metatype need not be Sendable.
public struct SQLExpression<Value>: QueryExpression, @unchecked Sendable {
    /// The expression's SQL.
    public let fragment: SQLFragment
    @usableFromInline let reader: (SQLiteStatementHandle, Int32) throws -> Value

    /// An expression written as `fragment`, read by `reader`.
    ///
    /// The reader runs for each row on whichever thread fetches, so it must be `@Sendable`: a
    /// closure that captures only constants (or nothing) is.
    public init(_ fragment: SQLFragment, reader: @escaping @Sendable (SQLiteStatementHandle, Int32) throws -> Value) {
        self.fragment = fragment
        self.reader = reader
    }

    /// An expression read by one of this module's readers (see the note on Sendable above).
    init(_ fragment: SQLFragment, moduleReader reader: @escaping (SQLiteStatementHandle, Int32) throws -> Value) {
        self.fragment = fragment
        self.reader = reader
    }

    /// Reads the expression's value.
    @inlinable
    public func readValue(from handle: SQLiteStatementHandle, at index: Int32) throws -> Value {
        try reader(handle, index)
    }

    /// The expression's reader, kept by selections instead of the expression.
    @inlinable
    public var valueReader: (SQLiteStatementHandle, Int32) throws -> Value { reader }
}

/// Reads an aggregate's result: nil for NULL (an empty group), else the value as `T`.
/// - Throws: ``RecordError/valueMismatch(column:record:expected:storageClass:)``.
func aggregateReader<T: Extractable>(_ name: String) -> (SQLiteStatementHandle, Int32) throws -> T? {
    { handle, index in try optionalColumnValue(columnValueWithLenientDates(of: handle, at: index, as: T.self), handle, index, name, "aggregate") }
}

extension QueryExpression {
    /// `self op rhs`: every comparison of records, written once by the core (`= NULL` as `IS NULL`).
    func compared(_ op: SQLOperator, _ rhs: SQLFragment) -> RecordPredicate {
        RecordPredicate(.comparison(fragment, op, rhs))
    }
}

extension SQLExpression where Value: Bindable {
    /// `expression = value`; `expression IS NULL` when `value` is nil.
    public static func == (lhs: SQLExpression, rhs: Value) -> RecordPredicate { lhs.compared(.equal, .value(rhs)) }
    /// `expression <> value`; `expression IS NOT NULL` when `value` is nil.
    public static func != (lhs: SQLExpression, rhs: Value) -> RecordPredicate { lhs.compared(.notEqual, .value(rhs)) }
    /// `expression < value`.
    public static func < (lhs: SQLExpression, rhs: Value) -> RecordPredicate { lhs.compared(.less, .value(rhs)) }
    /// `expression <= value`.
    public static func <= (lhs: SQLExpression, rhs: Value) -> RecordPredicate { lhs.compared(.lessOrEqual, .value(rhs)) }
    /// `expression > value`.
    public static func > (lhs: SQLExpression, rhs: Value) -> RecordPredicate { lhs.compared(.greater, .value(rhs)) }
    /// `expression >= value`.
    public static func >= (lhs: SQLExpression, rhs: Value) -> RecordPredicate { lhs.compared(.greaterOrEqual, .value(rhs)) }
}

// MARK: - Expression against expression

// One generic path for every pair of expressions (columns, aggregates, JSON paths, of any
// table), in three type relations per operator, so a key compares with the optional key of
// another table (`book.authorId == author.id`, Int64 against Int64?) and the compiler still
// rejects operands of unrelated types. NULL never equals anything, as in SQL.
extension QueryExpression {
    /// `lhs = rhs`.
    public static func == <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value { lhs.compared(.equal, rhs.fragment) }
    /// `lhs = rhs`, the right side optional.
    public static func == <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value? { lhs.compared(.equal, rhs.fragment) }
    /// `lhs = rhs`, the left side optional.
    public static func == <R: QueryExpression, W>(lhs: Self, rhs: R) -> RecordPredicate where Value == W?, R.Value == W { lhs.compared(.equal, rhs.fragment) }
    /// `lhs <> rhs`.
    public static func != <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value { lhs.compared(.notEqual, rhs.fragment) }
    /// `lhs <> rhs`, the right side optional.
    public static func != <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value? { lhs.compared(.notEqual, rhs.fragment) }
    /// `lhs <> rhs`, the left side optional.
    public static func != <R: QueryExpression, W>(lhs: Self, rhs: R) -> RecordPredicate where Value == W?, R.Value == W {
        lhs.compared(.notEqual, rhs.fragment)
    }
    /// `lhs < rhs`.
    public static func < <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value { lhs.compared(.less, rhs.fragment) }
    /// `lhs < rhs`, the right side optional.
    public static func < <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value? { lhs.compared(.less, rhs.fragment) }
    /// `lhs < rhs`, the left side optional.
    public static func < <R: QueryExpression, W>(lhs: Self, rhs: R) -> RecordPredicate where Value == W?, R.Value == W { lhs.compared(.less, rhs.fragment) }
    /// `lhs <= rhs`.
    public static func <= <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value { lhs.compared(.lessOrEqual, rhs.fragment) }
    /// `lhs <= rhs`, the right side optional.
    public static func <= <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value? { lhs.compared(.lessOrEqual, rhs.fragment) }
    /// `lhs <= rhs`, the left side optional.
    public static func <= <R: QueryExpression, W>(lhs: Self, rhs: R) -> RecordPredicate where Value == W?, R.Value == W {
        lhs.compared(.lessOrEqual, rhs.fragment)
    }
    /// `lhs > rhs`.
    public static func > <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value { lhs.compared(.greater, rhs.fragment) }
    /// `lhs > rhs`, the right side optional.
    public static func > <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value? { lhs.compared(.greater, rhs.fragment) }
    /// `lhs > rhs`, the left side optional.
    public static func > <R: QueryExpression, W>(lhs: Self, rhs: R) -> RecordPredicate where Value == W?, R.Value == W { lhs.compared(.greater, rhs.fragment) }
    /// `lhs >= rhs`.
    public static func >= <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value { lhs.compared(.greaterOrEqual, rhs.fragment) }
    /// `lhs >= rhs`, the right side optional.
    public static func >= <R: QueryExpression>(lhs: Self, rhs: R) -> RecordPredicate where R.Value == Value? { lhs.compared(.greaterOrEqual, rhs.fragment) }
    /// `lhs >= rhs`, the left side optional.
    public static func >= <R: QueryExpression, W>(lhs: Self, rhs: R) -> RecordPredicate where Value == W?, R.Value == W {
        lhs.compared(.greaterOrEqual, rhs.fragment)
    }
}

// MARK: - Aggregates

extension TypedColumn {
    private func aggregate(_ function: String, distinct: Bool = false) -> SQLFragment {
        .call(function, [fragment], distinct: distinct)
    }

    /// `count(column)`: the rows where the column is not NULL; `distinct` counts each value once.
    public func count(distinct: Bool = false) -> SQLExpression<Int> {
        let name = "count(\(self.name))"
        return SQLExpression(
            aggregate("count", distinct: distinct),
            moduleReader: { handle, index in
                try requiredColumnValue(columnValueWithLenientDates(of: handle, at: index, as: Int.self), handle, index, name, "aggregate")
            })
    }

    /// `min(column)`: nil for no rows.
    public func min() -> SQLExpression<Value?> where Value: Comparable { extremum("min") }
    /// `max(column)`: nil for no rows.
    public func max() -> SQLExpression<Value?> where Value: Comparable { extremum("max") }
    /// `min(column)` of an optional column: nil for no rows or only NULLs.
    public func min<Wrapped: Comparable>() -> SQLExpression<Wrapped?> where Value == Wrapped? { SQLExpression(aggregate("min"), moduleReader: reader) }
    /// `max(column)` of an optional column: nil for no rows or only NULLs.
    public func max<Wrapped: Comparable>() -> SQLExpression<Wrapped?> where Value == Wrapped? { SQLExpression(aggregate("max"), moduleReader: reader) }

    private func extremum(_ function: String) -> SQLExpression<Value?> {
        let read = reader
        return SQLExpression(
            aggregate(function),
            moduleReader: { handle, index in
                sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : try read(handle, index)
            })
    }

    /// `sum(column)` of an integer column: nil for no rows or only NULLs.
    public func sum() -> SQLExpression<Int?> where Value: BinaryInteger { SQLExpression(aggregate("sum"), moduleReader: aggregateReader("sum(\(name))")) }
    /// `sum(column)` of an optional integer column.
    public func sum<Wrapped: BinaryInteger>() -> SQLExpression<Int?> where Value == Wrapped? {
        SQLExpression(aggregate("sum"), moduleReader: aggregateReader("sum(\(name))"))
    }
    /// `sum(column)` of a real column: nil for no rows or only NULLs.
    public func sum() -> SQLExpression<Double?> where Value: BinaryFloatingPoint {
        SQLExpression(aggregate("sum"), moduleReader: aggregateReader("sum(\(name))"))
    }
    /// `sum(column)` of an optional real column.
    public func sum<Wrapped: BinaryFloatingPoint>() -> SQLExpression<Double?> where Value == Wrapped? {
        SQLExpression(aggregate("sum"), moduleReader: aggregateReader("sum(\(name))"))
    }

    /// `avg(column)` of an integer column: nil for no rows or only NULLs.
    public func average() -> SQLExpression<Double?> where Value: BinaryInteger {
        SQLExpression(aggregate("avg"), moduleReader: aggregateReader("avg(\(name))"))
    }
    /// `avg(column)` of an optional integer column.
    public func average<Wrapped: BinaryInteger>() -> SQLExpression<Double?> where Value == Wrapped? {
        SQLExpression(aggregate("avg"), moduleReader: aggregateReader("avg(\(name))"))
    }
    /// `avg(column)` of a real column: nil for no rows or only NULLs.
    public func average() -> SQLExpression<Double?> where Value: BinaryFloatingPoint {
        SQLExpression(aggregate("avg"), moduleReader: aggregateReader("avg(\(name))"))
    }
    /// `avg(column)` of an optional real column.
    public func average<Wrapped: BinaryFloatingPoint>() -> SQLExpression<Double?> where Value == Wrapped? {
        SQLExpression(aggregate("avg"), moduleReader: aggregateReader("avg(\(name))"))
    }
}

// MARK: - Ordering

/// A term of ORDER BY: a column or expression (ascending), or one with a direction.
public protocol OrderingTerm: Sendable {
    /// The term's SQL, its direction included.
    var orderingFragment: SQLFragment { get }
}

/// An expression with a sort direction, from `.ascending` or `.descending`.
public struct SQLOrdering: OrderingTerm {
    /// The term's SQL, `ASC` or `DESC` included.
    public let orderingFragment: SQLFragment
}

extension QueryExpression {
    /// The expression as an ascending ORDER BY term.
    public var orderingFragment: SQLFragment { fragment.ascending }
    /// Smallest first.
    public var ascending: SQLOrdering { SQLOrdering(orderingFragment: orderingFragment) }
    /// Largest first.
    public var descending: SQLOrdering { SQLOrdering(orderingFragment: fragment.descending) }
}

extension TypedColumn: OrderingTerm {}
extension SQLExpression: OrderingTerm {}
