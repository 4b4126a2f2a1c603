import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// A column mapped to a property of `T` through a writable key path.
///
/// ```swift
/// Column(name: "first_name", keyPath: \User.firstName, constraints: notNull())
/// Column(name: "image_url", keyPath: \User.imageUrl) // String?: a nullable column
/// ```
/// Every integer width is stored as a 64-bit INTEGER; `Bool` as INTEGER, `Float`/`Double` as
/// REAL, `String`, `Date` and `URL` as TEXT, `Data` as BLOB; any core `Binding` type works.
public final class Column<T, V>: AnyColumn {
    /// The one registration all the initializers share; they differ only in their accessor.
    @usableFromInline
    init(
        name: String, keyPath: WritableKeyPath<T, V>, constraints: [ConstraintBuilder], sqlType: String, isOptional: Bool,
        accessor: ColumnAccessor<T>
    ) {
        super.init(
            name: name, constraints: constraints.map(\.constraint), sqlType: sqlType, isOptional: isOptional,
            keyPath: keyPath, objectType: T.self, valueType: V.self, accessor: accessor)
    }

    /// A column for a non-optional property.
    @inlinable
    public convenience init(name: String, keyPath: WritableKeyPath<T, V>, constraints: ConstraintBuilder...)
    where V: Binding, V.DataType == V {
        let property = PropertyAccess(keyPath)
        let accessor = ColumnAccessor<T>(binding: property) { object, statement, index in
            guard let value = sqlite3_column_value(statement, index) else { return false }
            // The strict read first: for the column's own storage class it is the whole
            // per-row path; NULL (which it refuses) and conversions are sorted out after it.
            let storageClass = sqlite3_value_type(value)
            guard let converted = readStrictOrConverted(V.self, value, storageClass: storageClass) else { return false }
            property.set(&object, converted)
            return true
        }
        self.init(
            name: name, keyPath: keyPath, constraints: constraints, sqlType: sqlDeclaredType(of: V.self, unmapped: .blob), isOptional: false, accessor: accessor
        )
    }

    /// A column for an optional property: NULL reads as nil.
    @inlinable
    public convenience init<Wrapped>(name: String, keyPath: WritableKeyPath<T, Wrapped?>, constraints: ConstraintBuilder...)
    where V == Wrapped?, Wrapped: Binding, Wrapped.DataType == Wrapped {
        let property = PropertyAccess(keyPath)
        let accessor = ColumnAccessor<T>(binding: property) { object, statement, index in
            guard let value = sqlite3_column_value(statement, index) else { return false }
            let storageClass = sqlite3_value_type(value)
            if storageClass == SQLITE_NULL {
                property.set(&object, nil)
                return true
            }
            guard let converted = readStrictOrConverted(Wrapped.self, value, storageClass: storageClass) else { return false }
            property.set(&object, converted)
            return true
        }
        self.init(
            name: name, keyPath: keyPath, constraints: constraints, sqlType: sqlDeclaredType(of: Wrapped.self, unmapped: .blob), isOptional: true,
            accessor: accessor)
    }

    /// A column for a custom type, through SQLiteORM-Swift's extension points: the type binds
    /// itself through a ``Binder`` and is built from an ``SQLiteValue``.
    ///
    /// ```swift
    /// Column(name: "price", keyPath: \Item.price)   // Money: Bindable & ConstructableFromSQLiteValue
    /// ```
    /// An optional type (`Money?`) makes a nullable column; NULL in a non-optional one is an error.
    /// Built-in types take the other initializers, which read without boxing.
    @_disfavoredOverload
    public convenience init(name: String, keyPath: WritableKeyPath<T, V>, constraints: ConstraintBuilder...)
    where V: Bindable & ConstructableFromSQLiteValue {
        let property = PropertyAccess(keyPath)
        let isOptional = V.self is OptionalColumnValue.Type
        let accessor = ColumnAccessor<T>(
            bind: { object, statement, index in property.get(object).bind(to: StatementPosition(statement, index)) },
            read: { object, statement, index in
                guard let value = constructedValue(V.self, statement, index, isOptional: isOptional) else { return false }
                property.set(&object, value)
                return true
            },
            literal: { object in sqlLiteral(RecordingBinder.bindingValue(of: property.get(object))) }
        )
        self.init(name: name, keyPath: keyPath, constraints: constraints, sqlType: V.sqliteTypeName(), isOptional: isOptional, accessor: accessor)
    }
}
