import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The conversions generated code calls, one overload per kind of property type, so each
/// property binds and reads through its own type's fast path (no `Any`, no dictionary).
public enum RecordValue {
    /// A `Bindable` property binds as itself.
    @inlinable @inline(__always)
    public static func bindable<T: Bindable>(_ value: T) -> T { value }

    /// A `RawRepresentable` property binds its raw value.
    @inlinable @inline(__always)
    public static func bindable<T: RawRepresentable>(_ value: T) -> T.RawValue where T.RawValue: Bindable { value.rawValue }

    /// An optional `RawRepresentable` property binds its raw value or NULL.
    @inlinable @inline(__always)
    public static func bindable<T: RawRepresentable>(_ value: T?) -> T.RawValue? where T.RawValue: Bindable { value?.rawValue }

    /// A property that is both binds as itself.
    @inlinable @inline(__always)
    public static func bindable<T: RawRepresentable & Bindable>(_ value: T) -> T { value }

    /// The optional form of the above.
    @inlinable @inline(__always)
    public static func bindable<T: RawRepresentable & Bindable>(_ value: T?) -> T? { value }

    /// Writes SQLite's rowid into an optional integer key left nil.
    @inlinable
    public static func assignRowID<T: FixedWidthInteger>(_ rowID: Int64, to key: inout T?) {
        if key == nil { key = T(exactly: rowID) }
    }

    /// Any other key keeps its value.
    @inlinable
    public static func assignRowID<T>(_ rowID: Int64, to key: inout T) {}

    /// Whether an optional key is nil.
    @inlinable
    public static func isNil<T>(_ value: T?) -> Bool { value == nil }

    /// A non-optional key is never nil.
    @inlinable
    public static func isNil<T>(_ value: T) -> Bool { false }
}

/// Binds a record's properties onto a statement handle, each through its own type's `Bindable`
/// fast path; generated `bindRecordColumns(to:order:)` calls it once per property. The first
/// failing bind is kept and thrown, as the connection's error, by the code that runs the statement.
public struct RecordBinder {
    @usableFromInline let handle: SQLiteStatementHandle
    /// The first `sqlite3_bind_*` result that was not `SQLITE_OK`, with its parameter index.
    @usableFromInline var failure: (code: Int32, index: Int32)?

    @inlinable
    init(_ handle: SQLiteStatementHandle) {
        self.handle = handle
    }

    /// Binds `value` to the 1-based parameter `index`.
    /// - Throws: what the value's own `bind(to:at:)` throws (a custom binding's encoding error).
    @inlinable @inline(__always)
    public mutating func bind<Value: Bindable>(_ value: Value, at index: Int32) throws {
        let code = try value.bind(to: handle, at: index)
        if code != SQLITE_OK, failure == nil { failure = (code, index) }
    }
}

/// Reads a record's properties from the current row: generated `init(row:)` code makes one per
/// row, so the statement handle is loaded once, and each read goes through its property type's
/// own fast path. Errors name the column and the record type `R`.
public struct RecordRowReader<R> {
    @usableFromInline let handle: SQLiteStatementHandle

    /// A reader of `row` for record type `R`.
    @inlinable @inline(__always)
    public init(_ row: borrowing Row, for record: R.Type) {
        handle = row.statementHandle
    }

    /// A non-optional property's value.
    /// - Throws: ``RecordError`` naming the column and record when it is NULL or does not convert.
    @inlinable @inline(__always)
    public func read<T: Extractable>(_ index: Int32, _ column: String) throws -> T {
        if let value: T = columnValueWithLenientDates(of: handle, at: index) { return value }
        throw nonOptionalReadError(at: index, column: column, expected: T.self)
    }

    /// An optional property's value: nil for NULL.
    /// - Throws: ``RecordError/valueMismatch(column:record:expected:storageClass:)``.
    @inlinable @inline(__always)
    public func read<T: Extractable>(_ index: Int32, _ column: String) throws -> T? {
        try optionalValue(index, column)
    }

    /// A `RawRepresentable` property, read from its raw value.
    @inlinable @inline(__always)
    public func read<T: RawRepresentable>(_ index: Int32, _ column: String) throws -> T where T.RawValue: Extractable {
        if let raw: T.RawValue = columnValueWithLenientDates(of: handle, at: index), let value = T(rawValue: raw) { return value }
        throw nonOptionalReadError(at: index, column: column, expected: T.self)
    }

    /// An optional `RawRepresentable` property: nil for NULL.
    @inlinable @inline(__always)
    public func read<T: RawRepresentable>(_ index: Int32, _ column: String) throws -> T? where T.RawValue: Extractable {
        guard let value = sqlite3_column_value(handle, index) else { return nil }
        let type = sqlite3_value_type(value)
        if type == SQLITE_NULL { return nil }
        if let raw = extractWithLenientDates(T.RawValue.self, from: value, type: type), let result = T(rawValue: raw) { return result }
        throw mismatchReadError(at: index, column: column, expected: T.self)
    }

    /// A property that is both a `Binding` and `RawRepresentable` reads as itself.
    @inlinable @inline(__always)
    public func read<T: Extractable & RawRepresentable>(_ index: Int32, _ column: String) throws -> T where T.RawValue: Extractable {
        if let value: T = columnValueWithLenientDates(of: handle, at: index) { return value }
        throw nonOptionalReadError(at: index, column: column, expected: T.self)
    }

    /// The optional form of the above.
    @inlinable @inline(__always)
    public func read<T: Extractable & RawRepresentable>(_ index: Int32, _ column: String) throws -> T? where T.RawValue: Extractable {
        try optionalValue(index, column)
    }

    /// The read of both optional `Extractable` overloads (which exist apart only so that a type
    /// that is also `RawRepresentable` reads as itself, not through its raw value).
    @inlinable @inline(__always)
    func optionalValue<T: Extractable>(_ index: Int32, _ column: String) throws -> T? {
        // NULL is decided from the one storage-class lookup the read needs anyway: the error path
        // (a second lookup, the record's name as text) is only for values that do not convert.
        guard let value = sqlite3_column_value(handle, index) else { return nil }
        let type = sqlite3_value_type(value)
        if type == SQLITE_NULL { return nil }
        if let result = extractWithLenientDates(T.self, from: value, type: type) { return result }
        throw mismatchReadError(at: index, column: column, expected: T.self)
    }

    /// The error for a non-optional property's value that did not read.
    @usableFromInline @inline(never)
    func nonOptionalReadError<T>(at index: Int32, column: String, expected: T.Type) -> RecordError {
        recordReadError(handle, index, column: column, record: "\(R.self)", expected: T.self, optional: false)
            ?? .nullInNonOptional(column: column, record: "\(R.self)")
    }

    /// The error for an optional property's value that is not NULL and did not read.
    @usableFromInline @inline(never)
    func mismatchReadError<T>(at index: Int32, column: String, expected: T.Type) -> RecordError {
        recordReadError(handle, index, column: column, record: "\(R.self)", expected: T.self, optional: true)
            ?? .nullInNonOptional(column: column, record: "\(R.self)")
    }
}

extension Row {
    /// The index of each of `R`'s columns in this row's statement, resolved once per statement.
    /// - Throws: ``RecordError/missingColumn(column:record:available:)``.
    public func recordColumnIndexes<R: QueryableRecord>(for type: R.Type) throws -> [Int32] {
        switch columnIndexes(cachedFor: R.self, names: { R.recordColumns.map(\.name) }) {
        case .success(let indexes): return indexes
        case .failure(let missing):
            throw RecordError.missingColumn(column: missing.name, record: "\(R.self)", available: missing.available)
        }
    }
}
