import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Anything a table is made of: its columns (``AnyColumn``).
public protocol TableElement {}

/// A column of any model type, as tables and storages hold it.
public class AnyColumn: TableElement {
    /// The column's name in the table.
    public let name: String
    let constraints: [ColumnConstraint]
    /// The declared type: INTEGER, REAL, TEXT or BLOB.
    let sqlType: String
    let isOptional: Bool
    let keyPath: AnyKeyPath
    let objectType: Any.Type
    /// The mapped property's type, for error messages.
    let valueType: Any.Type
    /// A `ColumnAccessor<T>` for the column's model type `T`.
    let accessor: AnyObject

    @usableFromInline
    init(name: String, constraints: [ColumnConstraint], sqlType: String, isOptional: Bool,
         keyPath: AnyKeyPath, objectType: Any.Type, valueType: Any.Type, accessor: AnyObject) {
        self.name = name
        self.constraints = constraints
        self.sqlType = sqlType
        self.isOptional = isOptional
        self.keyPath = keyPath
        self.objectType = objectType
        self.valueType = valueType
        self.accessor = accessor
    }

    var isPrimaryKey: Bool {
        constraints.contains { if case .primaryKey = $0.kind { return true } else { return false } }
    }

    var isNotNull: Bool {
        constraints.contains { if case .notNull = $0.kind { return true } else { return false } }
    }

    var isUnique: Bool {
        constraints.contains { if case .unique = $0.kind { return true } else { return false } }
    }

    var hasDefault: Bool {
        constraints.contains { if case .defaultValue = $0.kind { return true } else { return false } }
    }

    /// The column definition for CREATE TABLE; the primary key inline when it is the only one.
    func definition(inlinePrimaryKey: Bool) -> String {
        ([name.quotedIdentifier, sqlType] + constraints.compactMap { $0.sql(inlinePrimaryKey: inlinePrimaryKey) })
            .joined(separator: " ")
    }
}

/// Reads and writes one mapped property of `T` without boxing: the closures are built once, in
/// the generic initializer of ``Column``, and bind or assign through the key path directly.
@usableFromInline
final class ColumnAccessor<T> {
    /// Binds the property of an object to a parameter of an `sqlite3_stmt *`; returns SQLite's code.
    @usableFromInline let bind: (T, OpaquePointer, Int32) throws -> Int32
    /// Assigns the property of an object from a result column of an `sqlite3_stmt *`; false when
    /// the stored value is NULL for a non-optional property or does not convert.
    @usableFromInline let read: (inout T, OpaquePointer, Int32) -> Bool
    /// The property's value in an object as an SQL literal (a fill value for a table rebuild).
    @usableFromInline let literal: (T) -> String

    @usableFromInline
    init(bind: @escaping (T, OpaquePointer, Int32) throws -> Int32,
         read: @escaping (inout T, OpaquePointer, Int32) -> Bool,
         literal: @escaping (T) -> String) {
        self.bind = bind
        self.read = read
        self.literal = literal
    }
}

/// The SQLite type a column of `V` declares, from the storage class `V` binds as.
@usableFromInline
func declaredType<V: Extractable>(of type: V.Type) -> String {
    switch V.BindingType.self {
    case is Int64.Type: return "INTEGER"
    case is Double.Type: return "REAL"
    case is String.Type: return "TEXT"
    default: return "BLOB"
    }
}

/// A column mapped to a property of `T` through a writable key path.
///
/// ```swift
/// Column(name: "first_name", keyPath: \User.firstName, constraints: notNull())
/// Column(name: "image_url", keyPath: \User.imageUrl) // String?: a nullable column
/// ```
/// Every integer width is stored as a 64-bit INTEGER; `Bool` as INTEGER, `Float`/`Double` as
/// REAL, `String`, `Date` and `URL` as TEXT, `Data` as BLOB; any core `Binding` type works.
public final class Column<T, V>: AnyColumn {
    /// A column for a non-optional property.
    @inlinable
    public init(name: String, keyPath: WritableKeyPath<T, V>, constraints: ConstraintBuilder...)
    where V: Binding, V.DataType == V {
        let property = PropertyAccess(keyPath)
        let accessor = ColumnAccessor<T>(
            bind: { object, statement, index in try property.get(object).bind(to: statement, at: index) },
            read: { object, statement, index in
                guard let value = sqlite3_column_value(statement, index) else { return false }
                let type = sqlite3_value_type(value)
                guard type != SQLITE_NULL, let converted = V.extract(from: value, type: type) else { return false }
                property.set(&object, converted)
                return true
            },
            literal: { object in sqlLiteral(property.get(object).bindingValue) }
        )
        super.init(name: name, constraints: constraints.map(\.columnConstraint), sqlType: declaredType(of: V.self),
                   isOptional: false, keyPath: keyPath, objectType: T.self, valueType: V.self, accessor: accessor)
    }

    /// A column for an optional property: NULL reads as nil.
    @inlinable
    public init<Wrapped>(name: String, keyPath: WritableKeyPath<T, Wrapped?>, constraints: ConstraintBuilder...)
    where V == Wrapped?, Wrapped: Binding, Wrapped.DataType == Wrapped {
        let property = PropertyAccess(keyPath)
        let accessor = ColumnAccessor<T>(
            bind: { object, statement, index in try property.get(object).bind(to: statement, at: index) },
            read: { object, statement, index in
                guard let value = sqlite3_column_value(statement, index) else { return false }
                let type = sqlite3_value_type(value)
                if type == SQLITE_NULL {
                    property.set(&object, nil)
                    return true
                }
                guard let converted = Wrapped.extract(from: value, type: type) else { return false }
                property.set(&object, converted)
                return true
            },
            literal: { object in sqlLiteral(property.get(object)?.bindingValue ?? .null) }
        )
        super.init(name: name, constraints: constraints.map(\.columnConstraint), sqlType: declaredType(of: Wrapped.self),
                   isOptional: true, keyPath: keyPath, objectType: T.self, valueType: V.self, accessor: accessor)
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
