// Rows and the query API: SQift's `Row`, `ExpressibleByRow`, `DecodableRow` and the `query` forms.

import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The current row of a statement: a view, valid until the statement steps again.
///
/// ```swift
/// if let row = try db.query("SELECT name, price FROM cars WHERE id = ?", 1) {
///     let name: String = row["name"]
///     let price: UInt? = row[1]
/// }
/// ```
/// The optional subscripts return nil for NULL, a missing column or a value that does not
/// convert; the non-optional ones stop the program in those cases, as in SQift, so prefer the
/// optional ones where the SQL is decoupled from the reading code.
public struct Row {
    @usableFromInline package let statement: Statement

    @inlinable
    init(statement: Statement) { self.statement = statement }

    /// The number of columns.
    public var columnCount: Int { statement.columnCount }

    /// Each column with its name, type and value.
    public var columns: [Column] {
        statement.columnNames.enumerated().map { index, name in
            Column(index: index, name: name, dataType: dataType(at: index), value: value(at: index))
        }
    }

    /// Every value in SQift's `Any` form.
    public var values: [Any?] { (0..<columnCount).map { value(at: $0) } }

    /// The value at `index` in SQift's `Any` form: `Int64`, `Double`, `String`, `Data`, or nil.
    public func value(at index: Int) -> Any? {
        guard let index = Int32(exactly: index) else { return nil }
        return statement.anyValue(at: index)
    }

    // SQift's reads ask only `T: Extractable`. `extractSelf` reads built-in types (`DataType ==
    // T`) directly, and casts only for a type whose `DataType` differs.

    /// The value at `index` as `T`, or nil for NULL, a bad index, or a value whose storage class
    /// is not `T`'s `BindingType`.
    @inlinable @inline(__always)
    public func value<T: Extractable>(at index: Int) -> T? {
        guard let index = Int32(exactly: index) else { return nil }
        return statement.valueAsSelf(at: index, as: T.self)
    }

    /// The value of the column named `name` as `T`, or nil (see `value(at:)`).
    @inlinable @inline(__always)
    public func value<T: Extractable>(forColumnName name: String) -> T? {
        guard let index = statement.prepared.columnIndex(forName: name) else { return nil }
        return statement.valueAsSelf(at: index, as: T.self)
    }

    /// The value at `index` as `T`, or nil for NULL, a bad index or another storage class.
    @inlinable @inline(__always)
    public subscript<T: Extractable>(index: Int) -> T? {
        value(at: index)
    }

    /// Stops the program when the value is NULL or does not convert; see the type's discussion.
    @inlinable @inline(__always)
    public subscript<T: Extractable>(index: Int) -> T {
        guard let value: T = value(at: index) else { extractionFailed(T.self, column: "\(index)") }
        return value
    }

    /// The value of the column named `name` as `T`, or nil for NULL, no such column or another
    /// storage class.
    @inlinable @inline(__always)
    public subscript<T: Extractable>(name: String) -> T? {
        value(forColumnName: name)
    }

    /// Stops the program when the column is missing, NULL, or does not convert.
    @inlinable @inline(__always)
    public subscript<T: Extractable>(name: String) -> T {
        guard let value: T = value(forColumnName: name) else { extractionFailed(T.self, column: "'\(name)'") }
        return value
    }

    @usableFromInline
    func extractionFailed<T>(_ type: T.Type, column: String) -> Never {
        // SQift documents these subscripts as trapping; the message says which read failed.
        preconditionFailure("Row column \(column) is NULL, missing or not convertible to \(T.self) in row \(self). Use an optional subscript to handle it.")
    }

    func dataType(at index: Int) -> Column.DataType {
        SQLiteStorageClass(code: sqlite3_column_type(statement.handle, Int32(index)))
    }
}

extension Row {
    /// One column of a row.
    // @unchecked: `value` only ever holds Int64, Double, String, Data or nil, all Sendable.
    public struct Column: CustomStringConvertible, @unchecked Sendable {
        /// SQLite's storage classes, as `sqlite3_column_type` reports them (SQift's name for
        /// ``SQLiteStorageClass``).
        public typealias DataType = SQLiteStorageClass

        /// The column's zero-based position in the result.
        public let index: Int
        /// The column's name in the result (its alias when the SQL gives one).
        public let name: String
        /// The storage class of this row's value, which can differ row to row.
        public let dataType: DataType
        /// The value as `Int64`, `Double`, `String` or `Data`, or nil for NULL.
        public let value: Any?

        /// The column's index, name, storage class and value, for logging.
        public var description: String {
            "{ index: \(index) name: \"\(name)\", type: \"\(dataType)\", value: \(value.map { "\($0)" } ?? "NULL") }"
        }
    }
}

extension Row: Sequence {
    /// Iterates the row's values in column order, nil for NULL.
    public func makeIterator() -> AnyIterator<Any?> {
        var index = 0
        let count = columnCount
        return AnyIterator {
            guard index < count else { return nil }
            defer { index += 1 }
            return .some(self.value(at: index))
        }
    }
}

extension Row: CustomStringConvertible {
    /// The values as a list, such as `['Lana', 2, NULL]`.
    public var description: String {
        let items = values.map { value -> String in
            switch value {
            case nil: return "NULL"
            case let text as String: return "'\(text)'"
            case let some?: return "\(some)"
            }
        }
        return "[" + items.joined(separator: ", ") + "]"
    }
}

/// A type that can be created from a row.
///
/// ```swift
/// extension Car: ExpressibleByRow {
///     init(row: Row) throws {
///         guard let name: String = row[0], let price: UInt = row[1] else {
///             throw ExpressibleByRowError(type: Car.self, row: row)
///         }
///         self.init(name: name, price: price)
///     }
/// }
/// let cars: [Car] = try db.query("SELECT name, price FROM cars")
/// ```
public protocol ExpressibleByRow {
    /// Creates the value from one result row.
    /// - Throws: ``ExpressibleByRowError`` (or any error) when the row lacks a column or a value does not convert.
    init(row: Row) throws
}

/// Thrown by an `ExpressibleByRow` initializer when the row does not have what it needs.
// @unchecked Sendable: `type` is a metatype (immutable) and `columns` hold only Sendable values.
public struct ExpressibleByRowError: Error, CustomStringConvertible, @unchecked Sendable {
    /// The type that failed to initialize.
    public let type: ExpressibleByRow.Type
    /// The row's columns, with their names, types and values, to show what was missing.
    public let columns: [Row.Column]

    /// Records that `type` could not be made from `row`, capturing the row's columns.
    public init(type: ExpressibleByRow.Type, row: Row) {
        self.type = type
        self.columns = row.columns
    }

    /// A message naming the type and the row's columns.
    public var errorDescription: String? { "Failed to initialize \(type) from Row with columns: \(columns)" }
    /// Why it failed: the type could not be initialized from these columns.
    public var failureReason: String? { "\(type) could not be initialized from Row with columns: \(columns)" }
    /// The error's message, prefixed with `ExpressibleByRowError`.
    public var description: String { "ExpressibleByRowError: " + (errorDescription ?? "") }
}

extension ExpressibleByRowError: LocalizedError {}
