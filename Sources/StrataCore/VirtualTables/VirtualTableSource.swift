// VirtualTables: table-valued functions and read-only eponymous virtual tables written in Swift,
// registered per connection or on every connection of a `Database`. The `sqlite3_module`
// callbacks live in VirtualTableModule.swift; this file holds the public vocabulary.
import StrataKernel
import StrataSchema
import Foundation

/// A read-only table whose rows a Swift value produces, queried by name as an eponymous virtual
/// table (`SELECT … FROM name WHERE …`).
///
/// SQLite hands ``bestIndex(_:)`` the constraints of the query; the plan you return says which
/// ones your source applies itself (they reach ``rows(for:arguments:)`` as arguments, in the
/// order of ``IndexPlan/arguments``), so filters are pushed down to Swift.
///
/// ```swift
/// struct Numbers: VirtualTableSource {
///     var columns: [String] { ["n", "square"] }
///     func bestIndex(_ query: VirtualTableQuery) -> IndexPlan? {
///         var plan = IndexPlan()
///         if let lower = query.constraints.firstIndex(where: { $0.column == 0 && $0.operator == .greaterThanOrEqual && $0.isUsable }) {
///             plan.use(lower)            // arrives as arguments[0]
///             plan.number = 1
///         }
///         return plan
///     }
///     func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) throws -> [[Bindable?]] {
///         let start = plan.number == 1 ? Int(arguments[0].integerValue ?? 0) : 0
///         return (start..<100).map { [$0, $0 * $0] }
///     }
/// }
/// try connection.createVirtualTable(named: "numbers", source: Numbers())
/// ```
public protocol VirtualTableSource {
    /// The rows one scan produces: each row holds one value per column, in ``columns`` order
    /// (a shorter row reads NULL for the missing columns).
    associatedtype Rows: Sequence where Rows.Element == [Bindable?]

    /// The column names, in order (the declared schema of the table).
    var columns: [String] { get }

    /// Chooses how to scan for one shape of query; nil refuses it (`SQLITE_CONSTRAINT`: the
    /// query planner tries another order, and fails the statement if none remains).
    func bestIndex(_ query: VirtualTableQuery) -> IndexPlan?

    /// The rows of one scan with the plan SQLite chose; `arguments` hold the right-hand values
    /// of the constraints the plan used, in its ``IndexPlan/arguments`` order.
    /// - Throws: Any error; the statement then fails with its message.
    func rows(for plan: IndexPlan.Chosen, arguments: [BindingValue]) throws -> Rows
}

/// What SQLite asks a virtual table's ``VirtualTableSource/bestIndex(_:)`` about.
public struct VirtualTableQuery: Sendable {
    /// The WHERE terms on the table's columns, in SQLite's order.
    public let constraints: [VirtualTableConstraint]
    /// The ORDER BY terms: column index and whether descending.
    public let orderBy: [(column: Int, descending: Bool)]
    /// The columns the statement reads (bit `i` for column `i`; bit 63 for columns 63 and later).
    public let columnsUsed: UInt64
}

/// One WHERE term SQLite offers a virtual table: `column operator value`.
public struct VirtualTableConstraint: Sendable, Hashable {
    /// The comparison.
    public enum Operator: Sendable, Hashable {
        /// `=` (also `IN`, one value at a time).
        case equal
        /// `>`.
        case greaterThan
        /// `>=`.
        case greaterThanOrEqual
        /// `<`.
        case lessThan
        /// `<=`.
        case lessThanOrEqual
        /// Any other operator, by its `SQLITE_INDEX_CONSTRAINT_*` code (LIKE, MATCH, IS, …).
        case other(Int32)
    }

    /// The column's index among ``VirtualTableSource/columns``; -1 for the rowid.
    public let column: Int
    /// The comparison.
    public let `operator`: Operator
    /// Whether this plan may use the term: false when its value comes from a table that is
    /// not yet scanned at this point of a join.
    public let isUsable: Bool
}

/// A virtual table's answer to ``VirtualTableSource/bestIndex(_:)``.
public struct IndexPlan: Sendable, Hashable {
    /// The plan's number, handed back in ``Chosen/number`` (and shown by EXPLAIN QUERY PLAN).
    public var number: Int32
    /// The plan's name, handed back in ``Chosen/name`` (and shown by EXPLAIN QUERY PLAN).
    public var name: String?
    /// The constraints (indexes into ``VirtualTableQuery/constraints``) whose values the scan
    /// receives, in argument order.
    public var arguments: [Int]
    /// The used constraints SQLite need not check again (the source applies them exactly).
    public var omitted: Set<Int>
    /// The estimated cost of the scan (disk reads, roughly); lower plans win.
    public var estimatedCost: Double
    /// The estimated number of rows.
    public var estimatedRows: Int64
    /// Whether rows come out in the ORDER BY's order, so SQLite skips sorting.
    public var orderByConsumed: Bool

    /// A full scan: no constraint used, cost and rows `1_000_000`.
    public init(number: Int32 = 0, name: String? = nil, estimatedCost: Double = 1_000_000, estimatedRows: Int64 = 1_000_000) {
        self.number = number
        self.name = name
        self.arguments = []
        self.omitted = []
        self.estimatedCost = estimatedCost
        self.estimatedRows = estimatedRows
        self.orderByConsumed = false
    }

    /// Uses constraint `index`: its value becomes the next argument of the scan; with
    /// `omit`, SQLite trusts the source to apply it and does not check rows again.
    public mutating func use(_ index: Int, omit: Bool = true) {
        arguments.append(index)
        if omit { omitted.insert(index) }
    }

    /// The plan SQLite chose, as the scan receives it.
    public struct Chosen: Sendable, Hashable {
        /// ``IndexPlan/number``.
        public let number: Int32
        /// ``IndexPlan/name``.
        public let name: String?
    }
}

extension BindingValue {
    /// The value as an integer: INTEGER as is, REAL truncated, TEXT parsed; nil for NULL, BLOB
    /// or text that is not a number.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return value.isFinite && abs(value) < 9.2e18 ? Int64(value) : nil
        case .text(let text): return Int64(text) ?? Double(text).flatMap { $0.isFinite && abs($0) < 9.2e18 ? Int64($0) : nil }
        case .null, .blob: return nil
        }
    }

    /// The value as a double: INTEGER and REAL as numbers, TEXT parsed; nil otherwise.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case .text(let text): return Double(text)
        case .null, .blob: return nil
        }
    }

    /// The value as text: TEXT as is, numbers printed, BLOB as UTF-8; nil for NULL.
    public var textValue: String? {
        switch self {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .null: return nil
        }
    }
}
