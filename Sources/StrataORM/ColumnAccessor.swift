/// Reads and writes one mapped property of `T` without boxing: the closures are built once, in
/// the generic initializer of ``Column``, and bind or assign through the key path directly.
@usableFromInline
final class ColumnAccessor<T> {
    /// Binds the property of an object to a parameter of an `sqlite3_stmt *`; returns SQLite's code.
    @usableFromInline let bind: (T, SQLiteStatementHandle, Int32) throws -> Int32
    /// Assigns the property of an object from a result column of an `sqlite3_stmt *`; false when
    /// the stored value is NULL for a non-optional property or does not convert.
    @usableFromInline let read: (inout T, SQLiteStatementHandle, Int32) -> Bool
    /// The property's value in an object as an SQL literal (a fill value for a table rebuild).
    @usableFromInline let literal: (T) -> String

    @usableFromInline
    init(
        bind: @escaping (T, SQLiteStatementHandle, Int32) throws -> Int32,
        read: @escaping (inout T, SQLiteStatementHandle, Int32) -> Bool,
        literal: @escaping (T) -> String
    ) {
        self.bind = bind
        self.read = read
        self.literal = literal
    }
}

extension ColumnAccessor {
    /// A property of a core `Bindable` type binds and becomes a literal the same way whether or
    /// not it is optional (`Optional` binds NULL itself); only reading differs.
    @inlinable
    convenience init<V: Strata.Bindable>(
        binding property: PropertyAccess<T, V>,
        read: @escaping (inout T, SQLiteStatementHandle, Int32) -> Bool
    ) {
        self.init(
            bind: { object, statement, index in try property.get(object).bind(to: statement, at: index) },
            read: read,
            literal: { object in sqlLiteral(property.get(object).bindingValue) })
    }
}

/// Reads and writes one property of `T`: through its byte offset when `T` is a struct and the
/// property is stored (what `MemoryLayout.offset(of:)` documents for direct access), otherwise
/// through the key path.
@usableFromInline
struct PropertyAccess<T, V> {
    @usableFromInline let keyPath: WritableKeyPath<T, V>
    @usableFromInline let offset: Int?

    @inlinable
    init(_ keyPath: WritableKeyPath<T, V>) {
        self.keyPath = keyPath
        self.offset = MemoryLayout<T>.offset(of: keyPath)
    }

    @inlinable @inline(__always)
    func get(_ object: T) -> V {
        guard let offset else { return object[keyPath: keyPath] }
        return withUnsafePointer(to: object) { pointer in
            UnsafeRawPointer(pointer).advanced(by: offset).assumingMemoryBound(to: V.self).pointee
        }
    }

    @inlinable @inline(__always)
    func set(_ object: inout T, _ value: V) {
        guard let offset else {
            object[keyPath: keyPath] = value
            return
        }
        withUnsafeMutablePointer(to: &object) { pointer in
            UnsafeMutableRawPointer(pointer).advanced(by: offset).assumingMemoryBound(to: V.self).pointee = value
        }
    }
}
