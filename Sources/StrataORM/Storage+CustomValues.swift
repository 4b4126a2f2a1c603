import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// Custom column types (SQLiteORM-Swift's `Bindable & ConstructableFromSQLiteValue`) beyond
// columns and conditions: as primary key values in `get(id:)`, and as what `select`, `max` and
// `min` read, with upstream's signatures. Built-in types keep the overloads that read without
// boxing; these are disfavoured, so they are chosen only for a type the others do not take.

/// Column `index` of the current row built as `V` from Strata's ``SQLiteValue`` over that column;
/// nil when the value is NULL and `V` is not optional (upstream would build it from NULL's 0 or
/// `""`, which hides the missing value). `isOptional` says whether `V` is an `Optional`, for
/// callers that have already asked once.
func constructedValue<V: ConstructableFromSQLiteValue>(
    _ type: V.Type, _ statement: SQLiteStatementHandle, _ index: Int32,
    isOptional: Bool = V.self is OptionalColumnValue.Type
) -> V? {
    if !isOptional, sqlite3_column_type(statement, index) == SQLITE_NULL { return nil }
    return V(sqliteValue: StatementPosition(statement, index))
}

extension Storage {
    /// The object whose primary key equals `id`, given as SQLiteORM-Swift ``Bindable`` values
    /// (a custom key type): `try storage.get(id: UserID(7))`.
    ///
    /// - Throws: as `get(id:)` with built-in key values.
    @_disfavoredOverload
    public func get<T: Initializable>(id: Bindable...) throws -> T? {
        try get(ids: id.map { CustomValue($0) as any Strata.Bindable })
    }

    /// The values of one expression of a custom type for each row (upstream's
    /// `select<R: ConstructableFromSQLiteValue>`).
    ///
    /// ```swift
    /// let prices: [Money] = try storage.select(\Item.price, where_(\Item.id < 10))
    /// ```
    /// - Throws: `ORMError.valueDoesNotConvert` for NULL in a non-optional type; others as
    ///   `select(_:_:)`.
    @_disfavoredOverload
    public func select<E: ResultExpression>(_ expression: E, _ constraints: SelectConstraint...) throws -> [E.Value]
    where E.Value: ConstructableFromSQLiteValue {
        try select([expression], constraints) { handle in try readConstructed(E.Value.self, handle, 0) }
    }

    /// The largest value of a column of a custom type, or nil when the table has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    @_disfavoredOverload
    public func max<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.max(keyPath), constraints) { try readConstructed(V?.self, $0, 0) }
    }

    /// The largest value of an optional column of a custom type, or nil when it has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    @_disfavoredOverload
    public func max<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.max(keyPath), constraints) { try readConstructed(V?.self, $0, 0) }
    }

    /// The smallest value of a column of a custom type, or nil when the table has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    @_disfavoredOverload
    public func min<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.min(keyPath), constraints) { try readConstructed(V?.self, $0, 0) }
    }

    /// The smallest value of an optional column of a custom type, or nil when it has none.
    ///
    /// - Throws: as ``count(all:_:)``.
    @_disfavoredOverload
    public func min<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) throws -> V? {
        try aggregate(StrataORM.min(keyPath), constraints) { try readConstructed(V?.self, $0, 0) }
    }

    /// Result column `index` of the current row as a custom type.
    func readConstructed<V: ConstructableFromSQLiteValue>(
        _ type: V.Type, _ handle: SQLiteStatementHandle,
        _ index: Int32
    ) throws -> V {
        guard let value = constructedValue(V.self, handle, index) else {
            throw resultDoesNotConvert(V.self, handle, index)
        }
        return value
    }
}

extension SafeStorage {
    /// `Storage.get(id:)` with a custom key type.
    @_disfavoredOverload
    public func get<T: Initializable>(id: Bindable...) -> Result<T?, ORMError> {
        result { try storage.get(ids: id.map { CustomValue($0) as any Strata.Bindable }) }
    }

    /// The object of type `T` whose primary key equals `id` (upstream's `get(of:id:)`).
    ///
    /// ```swift
    /// let user = storage.get(of: User.self, id: 1)   // Result<User?, ORMError>
    /// ```
    public func get<T: Initializable>(of type: T.Type, id: Strata.Bindable...) -> Result<T?, ORMError> {
        result { try storage.get(ids: id) }
    }

    /// `get(of:id:)` with a custom key type.
    @_disfavoredOverload
    public func get<T: Initializable>(of type: T.Type, id: Bindable...) -> Result<T?, ORMError> {
        result { try storage.get(ids: id.map { CustomValue($0) as any Strata.Bindable }) }
    }

    /// `Storage.select(_:_:)` for a custom type.
    @_disfavoredOverload
    public func select<E: ResultExpression>(_ expression: E, _ constraints: SelectConstraint...) -> Result<[E.Value], ORMError>
    where E.Value: ConstructableFromSQLiteValue {
        result { try storage.select([expression], constraints) { try storage.readConstructed(E.Value.self, $0, 0) } }
    }

    /// `Storage.max(_:_:)` for a custom type.
    @_disfavoredOverload
    public func max<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.max(keyPath), constraints) { try storage.readConstructed(V?.self, $0, 0) } }
    }

    /// `Storage.max(_:_:)` for an optional custom type.
    @_disfavoredOverload
    public func max<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.max(keyPath), constraints) { try storage.readConstructed(V?.self, $0, 0) } }
    }

    /// `Storage.min(_:_:)` for a custom type.
    @_disfavoredOverload
    public func min<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.min(keyPath), constraints) { try storage.readConstructed(V?.self, $0, 0) } }
    }

    /// `Storage.min(_:_:)` for an optional custom type.
    @_disfavoredOverload
    public func min<T, V: ConstructableFromSQLiteValue>(_ keyPath: KeyPath<T, V?>, _ constraints: SelectConstraint...) -> Result<V?, ORMError> {
        result { try storage.aggregate(StrataORM.min(keyPath), constraints) { try storage.readConstructed(V?.self, $0, 0) } }
    }
}
