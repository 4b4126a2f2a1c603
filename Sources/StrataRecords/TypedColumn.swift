import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A record property's column, typed by the property, for building queries.
///
/// ```swift
/// Player.where { $0.score > 10 && $0.team == nil }
/// Book.join(Author.self, on: { book, author in book.authorId == author.id })
/// ```
/// Every comparison binds its value; the column name is quoted and qualified by its table (or
/// the alias a join gave it), so two `id` columns of a join never collide.
// @unchecked Sendable: `binding` and `reader` are the pure conversions built by the initializers
// below, which capture only the column's name and record name; a Sendable closure would also
// capture `Value`'s metatype, which need not be Sendable.
public struct TypedColumn<Value>: @unchecked Sendable {
    /// The column's name.
    public let name: String
    /// The table name or alias the column is qualified by, if any.
    public let qualifier: String?
    /// The record type the column belongs to, for error messages.
    let record: String
    let binding: (Value) -> BindingValue
    /// Why a value binds NULL when its encoding failed (a `@JSON` property's `Double.nan`); nil
    /// for columns whose values always encode.
    var encodingError: ((Value) -> (any Error)?)?
    @usableFromInline let reader: (SQLiteStatementHandle, Int32) throws -> Value
    /// The column as a column segment (qualified by ``qualifier``), built once with the record's columns.
    public let fragment: SQLFragment
    /// What an UPDATE or INSERT being built sets the column to (`+=`, `set(to:)`), if anything.
    var assignment: SQLFragment?

    /// A column of a property whose type binds and reads itself.
    // Inlinable: the reader closure is made where the record's columns are, for its concrete type.
    @inlinable
    public init(_ name: String, qualifier: String? = nil, record: String = "") where Value: Bindable & Extractable {
        self.init(name, qualifier: qualifier, record: record, binding: { $0.bindingValue }) { handle, index in
            try requiredColumnValue(columnValueWithLenientDates(of: handle, at: index), handle, index, name, record)
        }
    }

    /// A column of an optional property.
    // Inlinable: the reader closure is made where the record's columns are, for its concrete type.
    @inlinable
    public init<Wrapped: Bindable & Extractable>(_ name: String, qualifier: String? = nil, record: String = "") where Value == Wrapped? {
        self.init(name, qualifier: qualifier, record: record, binding: { $0.bindingValue }) { handle, index in
            try optionalColumnValue(columnValueWithLenientDates(of: handle, at: index), handle, index, name, record)
        }
    }

    /// A column of a `RawRepresentable` property, compared by raw value.
    // Inlinable: the reader closure is made where the record's columns are, for its concrete type.
    @inlinable
    public init(_ name: String, qualifier: String? = nil, record: String = "") where Value: RawRepresentable, Value.RawValue: Bindable & Extractable {
        self.init(name, qualifier: qualifier, record: record, binding: { $0.rawValue.bindingValue }) { handle, index in
            try requiredColumnValue(
                columnValueWithLenientDates(of: handle, at: index, as: Value.RawValue.self).flatMap(Value.init(rawValue:)), handle, index, name, record)
        }
    }

    /// A column of an optional `RawRepresentable` property.
    // Inlinable: the reader closure is made where the record's columns are, for its concrete type.
    @inlinable
    public init<Wrapped: RawRepresentable>(_ name: String, qualifier: String? = nil, record: String = "")
    where Value == Wrapped?, Wrapped.RawValue: Bindable & Extractable {
        self.init(name, qualifier: qualifier, record: record, binding: { $0?.rawValue.bindingValue ?? .null }) { handle, index in
            try optionalColumnValue(
                columnValueWithLenientDates(of: handle, at: index, as: Wrapped.RawValue.self).flatMap(Wrapped.init(rawValue:)), handle, index, name, record)
        }
    }

    /// A column of a property that is both: it binds and reads as itself.
    // Inlinable: the reader closure is made where the record's columns are, for its concrete type.
    @inlinable
    public init(_ name: String, qualifier: String? = nil, record: String = "")
    where Value: Bindable & Extractable & RawRepresentable, Value.RawValue: Bindable & Extractable {
        self.init(name, qualifier: qualifier, record: record, binding: { $0.bindingValue }) { handle, index in
            try requiredColumnValue(columnValueWithLenientDates(of: handle, at: index), handle, index, name, record)
        }
    }

    /// The optional form of the above.
    @inlinable
    public init<Wrapped: Bindable & Extractable & RawRepresentable>(_ name: String, qualifier: String? = nil, record: String = "")
    where Value == Wrapped?, Wrapped.RawValue: Bindable & Extractable {
        self.init(name, qualifier: qualifier, record: record, binding: { $0.bindingValue }) { handle, index in
            try optionalColumnValue(columnValueWithLenientDates(of: handle, at: index), handle, index, name, record)
        }
    }

    @usableFromInline
    init(
        _ name: String, qualifier: String?, record: String, binding: @escaping (Value) -> BindingValue,
        reader: @escaping (SQLiteStatementHandle, Int32) throws -> Value
    ) {
        self.name = name
        self.qualifier = qualifier
        self.record = record
        self.binding = binding
        self.reader = reader
        fragment = .column(name, table: qualifier)
    }

    /// `value` bound; one that could not be encoded makes running the SQL throw.
    func bound(_ value: Value) -> SQLFragment {
        let binding = binding(value)
        // A Date outside years 0000-9999 binds NULL too; the kernel says why.
        if binding == .null, let error = encodingError?(value) ?? bindingEncodingError(of: value) { return .unbindable(error) }
        return .bound(binding)
    }

    /// `column = value`; `column IS NULL` when `value` is nil.
    public static func == (column: TypedColumn, value: Value) -> RecordPredicate { column.compared(.equal, column.bound(value)) }
    /// `column <> value`; `column IS NOT NULL` when `value` is nil.
    public static func != (column: TypedColumn, value: Value) -> RecordPredicate { column.compared(.notEqual, column.bound(value)) }
    /// `column < value`.
    public static func < (column: TypedColumn, value: Value) -> RecordPredicate { column.compared(.less, column.bound(value)) }
    /// `column <= value`.
    public static func <= (column: TypedColumn, value: Value) -> RecordPredicate { column.compared(.lessOrEqual, column.bound(value)) }
    /// `column > value`.
    public static func > (column: TypedColumn, value: Value) -> RecordPredicate { column.compared(.greater, column.bound(value)) }
    /// `column >= value`.
    public static func >= (column: TypedColumn, value: Value) -> RecordPredicate { column.compared(.greaterOrEqual, column.bound(value)) }

    /// `column IS NULL`.
    public var isNull: RecordPredicate { RecordPredicate(fragment.isNull) }

    /// `column LIKE pattern` (SQLite's LIKE: `%` and `_`, ASCII case-insensitive).
    public func like(_ pattern: String) -> RecordPredicate { compared(.like, "\(pattern)") }

    /// `column IN (values)`; false for no values.
    public func `in`(_ values: [Value]) -> RecordPredicate {
        guard !values.isEmpty else { return RecordPredicate("0") }
        return RecordPredicate(fragment.membership(in: values.map(bound)))
    }

    /// `column BETWEEN low AND high` (both ends included).
    public func between(_ low: Value, _ high: Value) -> RecordPredicate {
        RecordPredicate(fragment.between(bound(low), bound(high)))
    }

    /// `column = value`, for `RecordQuery.update(_:set:)`.
    public func set(_ value: Value) -> ColumnAssignment {
        ColumnAssignment(column: name, value: bound(value))
    }
}

/// The error for a column value that did not read as `expected`; nil when it is NULL and the
/// property is optional. Shared by the record reader and selected columns.
@usableFromInline @inline(never)
func recordReadError<T>(_ handle: SQLiteStatementHandle, _ index: Int32, column: String, record: String, expected: T.Type, optional: Bool) -> RecordError? {
    let storage = SQLiteStorageClass(code: sqlite3_column_type(handle, index))
    if storage == .null { return optional ? nil : .nullInNonOptional(column: column, record: record) }
    return .valueMismatch(column: column, record: record, expected: "\(T.self)", storageClass: "\(storage)".uppercased())
}

/// A non-optional column's value, or the error naming the column and record.
@inlinable
func requiredColumnValue<T>(_ value: T?, _ handle: SQLiteStatementHandle, _ index: Int32, _ name: String, _ record: String) throws -> T {
    if let value { return value }
    throw recordReadError(handle, index, column: name, record: record, expected: T.self, optional: false)
        ?? RecordError.nullInNonOptional(column: name, record: record)
}

/// An optional column's value: nil for NULL, the error for a value that did not convert.
@inlinable
func optionalColumnValue<T>(_ value: T?, _ handle: SQLiteStatementHandle, _ index: Int32, _ name: String, _ record: String) throws -> T? {
    if let value { return value }
    if let error = recordReadError(handle, index, column: name, record: record, expected: T.self, optional: true) { throw error }
    return nil
}
