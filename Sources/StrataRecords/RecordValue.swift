import Foundation

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

extension Row {
    /// The index of each of `R`'s columns in this row's statement, resolved once per statement.
    /// - Throws: ``RecordError/missingColumn(column:record:available:)``.
    public func recordColumnIndexes<R: Record>(for type: R.Type) throws -> [Int32] {
        switch columnIndexes(cachedFor: R.self, names: { R.recordColumns.map(\.name) }) {
        case .success(let indexes): return indexes
        case .failure(let missing):
            throw RecordError.missingColumn(column: missing.name, record: "\(R.self)", available: missing.available)
        }
    }

    /// A non-optional property's value.
    /// - Throws: ``RecordError`` naming the column and record when it is NULL or does not convert.
    @inlinable @inline(__always)
    public func recordValue<T: Extractable, R>(at index: Int32, column: String, of record: R.Type) throws -> T {
        if let value: T = value(at: Int(index)) { return value }
        throw nonOptionalReadError(at: index, column: column, record: R.self, expected: T.self)
    }

    /// An optional property's value: nil for NULL.
    /// - Throws: ``RecordError/valueMismatch(column:record:expected:storageClass:)``.
    @inlinable @inline(__always)
    public func recordValue<T: Extractable, R>(at index: Int32, column: String, of record: R.Type) throws -> T? {
        if let value: T = value(at: Int(index)) { return value }
        if let error = optionalReadError(at: index, column: column, record: R.self, expected: T.self) { throw error }
        return nil
    }

    /// A `RawRepresentable` property read from its raw value.
    @inlinable @inline(__always)
    public func recordValue<T: RawRepresentable, R>(at index: Int32, column: String, of record: R.Type) throws -> T where T.RawValue: Extractable {
        if let raw: T.RawValue = value(at: Int(index)), let value = T(rawValue: raw) { return value }
        throw nonOptionalReadError(at: index, column: column, record: R.self, expected: T.self)
    }

    /// An optional `RawRepresentable` property: nil for NULL.
    @inlinable @inline(__always)
    public func recordValue<T: RawRepresentable, R>(at index: Int32, column: String, of record: R.Type) throws -> T? where T.RawValue: Extractable {
        if let raw: T.RawValue = value(at: Int(index)), let value = T(rawValue: raw) { return value }
        if let error = optionalReadError(at: index, column: column, record: R.self, expected: T.self) { throw error }
        return nil
    }

    /// A property that is both reads as itself.
    @inlinable @inline(__always)
    public func recordValue<T: Extractable & RawRepresentable, R>(at index: Int32, column: String, of record: R.Type) throws -> T where T.RawValue: Extractable {
        if let value: T = value(at: Int(index)) { return value }
        throw nonOptionalReadError(at: index, column: column, record: R.self, expected: T.self)
    }

    /// The optional form of the above.
    @inlinable @inline(__always)
    public func recordValue<T: Extractable & RawRepresentable, R>(at index: Int32, column: String, of record: R.Type) throws -> T? where T.RawValue: Extractable {
        if let value: T = value(at: Int(index)) { return value }
        if let error = optionalReadError(at: index, column: column, record: R.self, expected: T.self) { throw error }
        return nil
    }

    /// The error for a non-optional property's value that did not read.
    @usableFromInline @inline(never)
    func nonOptionalReadError<R, T>(at index: Int32, column: String, record: R.Type, expected: T.Type) -> RecordError {
        if isNull(at: index) { return .nullInNonOptional(column: column, record: "\(R.self)") }
        return .valueMismatch(column: column, record: "\(R.self)", expected: "\(T.self)", storageClass: storageClassName(at: index))
    }

    /// The error for an optional property's value that did not read; nil when it is NULL.
    @usableFromInline @inline(never)
    func optionalReadError<R, T>(at index: Int32, column: String, record: R.Type, expected: T.Type) -> RecordError? {
        if isNull(at: index) { return nil }
        return .valueMismatch(column: column, record: "\(R.self)", expected: "\(T.self)", storageClass: storageClassName(at: index))
    }
}
