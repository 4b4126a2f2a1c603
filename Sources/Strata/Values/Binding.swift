import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A Swift value that can be bound to a statement parameter.
///
/// ```swift
/// extension DownloadState: Bindable {
///     var bindingValue: BindingValue { .integer(Int64(rawValue)) }
/// }
/// ```
public protocol Bindable {
    /// The value as one of SQLite's storage classes.
    var bindingValue: BindingValue { get }

    /// Binds the value straight to parameter `index` of `statement` (an `sqlite3_stmt *`) and
    /// returns SQLite's result code.
    ///
    /// The default goes through ``bindingValue``; Strata's built-in types skip that step. Throw
    /// when the value cannot be represented (an encoding failure), rather than binding NULL.
    func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32
}

extension Bindable {
    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        bindingValue.bind(to: statement, at: index)
    }
}

/// A Swift value that can be read from a result column.
///
/// User types implement ``fromBindingValue(_:)``, which receives SQift's `Any` form of the column
/// (`Int64`, `Double`, `String` or `Data`). Strata's built-in types also read straight from SQLite
/// through ``extract(from:)``.
public protocol Extractable {
    associatedtype BindingType
    associatedtype DataType = Self

    /// Converts SQift's `Any` form of a column value, or returns nil if it does not fit.
    static func fromBindingValue(_ value: Any) -> DataType?

    /// Reads a non-NULL `sqlite3_value *` (a result column or function argument), or returns nil
    /// if it does not convert. The default calls ``fromBindingValue(_:)``.
    static func extract(from value: OpaquePointer) -> DataType?

    /// The same, when the caller already knows the value's storage class (`sqlite3_value_type`),
    /// which saves built-in types a call per value. The default calls ``extract(from:)``.
    static func extract(from value: OpaquePointer, type: Int32) -> DataType?
}

extension Extractable {
    @inlinable
    public static func extract(from value: OpaquePointer) -> DataType? {
        guard let any = anyValue(of: value) else { return nil }
        return fromBindingValue(any)
    }

    @inlinable
    public static func extract(from value: OpaquePointer, type: Int32) -> DataType? {
        extract(from: value)
    }
}

/// A value that can be both bound and extracted.
public protocol Binding: Bindable, Extractable {}

// MARK: - NULL

extension NSNull: Bindable {
    public var bindingValue: BindingValue { .null }
}

extension Optional: Bindable where Wrapped: Bindable {
    public var bindingValue: BindingValue { self?.bindingValue ?? .null }

    @inlinable
    public func bind(to statement: OpaquePointer, at index: Int32) throws -> Int32 {
        guard let wrapped = self else { return sqlite3_bind_null(statement, index) }
        return try wrapped.bind(to: statement, at: index)
    }
}
