// Values: SQift's `Bindable`/`Extractable`/`Binding`, every built-in conformance, `BindingValue`
// and the Codable bindings (SQift's property-list `CodableBinding`, and `JSONBinding`, stored as JSON text).

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
    func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32
}

extension Bindable {
    @inlinable
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        bindingValue.bind(to: statement, at: index)
    }
}

/// A Swift value that can be read from a result column.
///
/// A column value converts only when its storage class is the type's `BindingType` (SQift's
/// rule): INTEGER for `Int64`, REAL for `Double`, TEXT for `String`, BLOB for `Data`; anything
/// else reads as nil. So user types implement ``fromBindingValue(_:)``, which receives SQift's
/// `Any` form of the column, and only ever a value of their `BindingType`. Strata's built-in
/// types read straight from SQLite through ``extract(from:)`` and follow the same rule.
public protocol Extractable {
    /// The Swift type of the storage class the value is read from: `Int64`, `Double`, `String` or `Data`.
    associatedtype BindingType
    /// The type a read produces; `Self` unless the type reads as another (a wrapper, say).
    associatedtype DataType = Self

    /// Converts SQift's `Any` form of a column value, or returns nil if it does not fit.
    static func fromBindingValue(_ value: Any) -> DataType?

    /// Reads a non-NULL `sqlite3_value *` (a result column or function argument), or returns nil
    /// if it does not convert. The default calls ``fromBindingValue(_:)``.
    static func extract(from value: SQLiteValueHandle) -> DataType?

    /// The same, when the caller already knows the value's storage class (`sqlite3_value_type`),
    /// which saves built-in types a call per value. The default calls ``extract(from:)``.
    static func extract(from value: SQLiteValueHandle, type: Int32) -> DataType?

    /// The value as `Self`, which `Row` reads return. Provided: when `DataType` is `Self` it is
    /// ``extract(from:type:)`` itself (no cast on the hot path); otherwise that result cast to `Self`.
    static func extractSelf(from value: SQLiteValueHandle, type: Int32) -> Self?
}

extension Extractable {
    /// Reads the value as its `BindingType` and converts it with ``Extractable/fromBindingValue(_:)``.
    @inlinable
    public static func extract(from value: SQLiteValueHandle) -> DataType? {
        guard let any = bindingTypeValue(of: value, as: BindingType.self) else { return nil }
        return fromBindingValue(any)
    }

    /// Ignores `type` and calls ``Extractable/extract(from:)``.
    @inlinable
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> DataType? {
        extract(from: value)
    }

    /// Reads the value with ``Extractable/extract(from:type:)`` and casts the result to `Self`.
    @inlinable
    public static func extractSelf(from value: SQLiteValueHandle, type: Int32) -> Self? {
        extract(from: value, type: type) as? Self
    }
}

extension Extractable where DataType == Self {
    // Chosen over the unconstrained default for every type whose DataType is itself.
    /// Returns ``Extractable/extract(from:type:)`` directly: no cast, as `DataType` is already `Self`.
    @inlinable @inline(__always)
    public static func extractSelf(from value: SQLiteValueHandle, type: Int32) -> Self? {
        extract(from: value, type: type)
    }
}

/// SQift's `Any` form of `value` when its storage class is `BindingType` (INTEGER for `Int64`,
/// REAL for `Double`, TEXT for `String`, BLOB for `Data`), else nil; so a `fromBindingValue` that
/// force-casts to its `BindingType`, as SQift-era code does, never sees another type. A
/// `BindingType` outside those four receives the value only if it casts to it.
@usableFromInline
func bindingTypeValue<BindingType>(of value: SQLiteValueHandle, as bindingType: BindingType.Type) -> Any? {
    let matches: Bool
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: matches = BindingType.self == Int64.self
    case SQLITE_FLOAT: matches = BindingType.self == Double.self
    case SQLITE_TEXT: matches = BindingType.self == String.self
    case SQLITE_BLOB: matches = BindingType.self == Data.self
    default: return nil
    }
    guard let any = anyValue(of: value) else { return nil }
    return matches || any is BindingType ? any : nil
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
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        guard let wrapped = self else { return sqlite3_bind_null(statement, index) }
        return try wrapped.bind(to: statement, at: index)
    }
}
