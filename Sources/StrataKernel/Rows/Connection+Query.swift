import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// The query API on a connection: each call takes a statement from the connection's cache, binds
// the parameters, reads, and resets the statement. Three forms each: variadic, array, dictionary.
extension Connection {
    /// The first column of the first row as `T`; nil when there is no row or the value is NULL.
    @inlinable
    public func query<T: Extractable>(_ sql: SQL, _ parameters: Bindable?...) throws -> T? where T.DataType == T {
        try query(sql, parameters)
    }

    /// The first column of the first row as `T`. (positional array parameters)
    @inlinable
    public func query<T: Extractable>(_ sql: SQL, _ parameters: [Bindable?]) throws -> T? where T.DataType == T {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query() }
    }

    /// The first column of the first row as `T`. (named parameters)
    @inlinable
    public func query<T: Extractable>(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> T? where T.DataType == T {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query() }
    }

    /// The first row, or nil. The row reads from a cached statement: use it before the next query.
    public func query(_ sql: SQL, _ parameters: Bindable?...) throws -> Row? {
        try query(sql, parameters)
    }

    /// The first row, or nil. The row reads from a cached statement: use it before the next query. (positional array parameters)
    public func query(_ sql: SQL, _ parameters: [Bindable?]) throws -> Row? {
        try rowStatement(sql, .positional(parameters)).query()
    }

    /// The first row, or nil. The row reads from a cached statement: use it before the next query. (named parameters)
    public func query(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> Row? {
        try rowStatement(sql, .named(parameters)).query()
    }

    /// The first row as a model, or nil.
    @inlinable
    public func query<T: ExpressibleByRow>(_ sql: SQL, _ parameters: Bindable?...) throws -> T? {
        try query(sql, parameters)
    }

    /// The first row as a model, or nil. (positional array parameters)
    @inlinable
    public func query<T: ExpressibleByRow>(_ sql: SQL, _ parameters: [Bindable?]) throws -> T? {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query() }
    }

    /// The first row as a model, or nil. (named parameters)
    @inlinable
    public func query<T: ExpressibleByRow>(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> T? {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query() }
    }

    /// `body` applied to the first row, or nil.
    @inlinable
    public func query<T>(_ sql: SQL, _ parameters: Bindable?..., body: (Row) throws -> T) throws -> T? {
        try query(sql, parameters, body: body)
    }

    /// `body` applied to the first row, or nil. (positional array parameters)
    @inlinable
    public func query<T>(_ sql: SQL, _ parameters: [Bindable?], body: (Row) throws -> T) throws -> T? {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query(body) }
    }

    /// `body` applied to the first row, or nil. (named parameters)
    @inlinable
    public func query<T>(_ sql: SQL, _ parameters: [String: Bindable?], body: (Row) throws -> T) throws -> T? {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query(body) }
    }

    /// The first column of every row, stopping at the first NULL or unconvertible value.
    @inlinable
    public func query<T: Extractable>(_ sql: SQL, _ parameters: Bindable?...) throws -> [T] where T.DataType == T {
        try query(sql, parameters)
    }

    /// The first column of every row, stopping at the first NULL or unconvertible value. (positional array parameters)
    @inlinable
    public func query<T: Extractable>(_ sql: SQL, _ parameters: [Bindable?]) throws -> [T] where T.DataType == T {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query() }
    }

    /// The first column of every row, stopping at the first NULL or unconvertible value. (named parameters)
    @inlinable
    public func query<T: Extractable>(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> [T] where T.DataType == T {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query() }
    }

    /// Every row as a model.
    @inlinable
    public func query<T: ExpressibleByRow>(_ sql: SQL, _ parameters: Bindable?...) throws -> [T] {
        try query(sql, parameters)
    }

    /// Every row as a model. (positional array parameters)
    @inlinable
    public func query<T: ExpressibleByRow>(_ sql: SQL, _ parameters: [Bindable?]) throws -> [T] {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query() }
    }

    /// Every row as a model. (named parameters)
    @inlinable
    public func query<T: ExpressibleByRow>(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> [T] {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query() }
    }

    /// `body` applied to every row.
    @inlinable
    public func query<T>(_ sql: SQL, _ parameters: Bindable?..., body: (Row) throws -> T) throws -> [T] {
        try query(sql, parameters, body: body)
    }

    /// `body` applied to every row. (positional array parameters)
    @inlinable
    public func query<T>(_ sql: SQL, _ parameters: [Bindable?], body: (Row) throws -> T) throws -> [T] {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query(body) }
    }

    /// `body` applied to every row. (named parameters)
    @inlinable
    public func query<T>(_ sql: SQL, _ parameters: [String: Bindable?], body: (Row) throws -> T) throws -> [T] {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query(body) }
    }

    /// A dictionary from the key-value pair `body` makes of each row.
    @inlinable
    public func query<Key: Hashable, Value>(_ sql: SQL, _ parameters: Bindable?..., body: (Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try query(sql, parameters, body: body)
    }

    /// A dictionary from the key-value pair `body` makes of each row. (positional array parameters)
    @inlinable
    public func query<Key: Hashable, Value>(_ sql: SQL, _ parameters: [Bindable?], body: (Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query(body) }
    }

    /// A dictionary from the key-value pair `body` makes of each row. (named parameters)
    @inlinable
    public func query<Key: Hashable, Value>(_ sql: SQL, _ parameters: [String: Bindable?], body: (Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query(body) }
    }

    /// A dictionary built from each row, `body` seeing the dictionary so far.
    @inlinable
    public func query<Key: Hashable, Value>(_ sql: SQL, _ parameters: Bindable?..., body: ([Key: Value], Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try query(sql, parameters, body: body)
    }

    /// A dictionary built from each row, `body` seeing the dictionary so far. (positional array parameters)
    @inlinable
    public func query<Key: Hashable, Value>(_ sql: SQL, _ parameters: [Bindable?], body: ([Key: Value], Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.query(body) }
    }

    /// A dictionary built from each row, `body` seeing the dictionary so far. (named parameters)
    @inlinable
    public func query<Key: Hashable, Value>(
        _ sql: SQL, _ parameters: [String: Bindable?], body: ([Key: Value], Row) throws -> (Key, Value)
    ) throws -> [Key: Value] {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.query(body) }
    }

    /// The statement behind `query(...) -> Row?`. The row outlives the call, so it cannot come
    /// from the shared cache (a later query would move it): it gets its own prepared statement.
    private func rowStatement(_ sql: SQL, _ parameters: StatementParameters) throws -> Statement {
        let statement = try Statement(connection: self, sql: sql)
        try parameters.bind(to: statement)
        return statement
    }
}

// SQift's READMEs read counts as `let count: Int = try connection.query("SELECT count(*) ...")`.
// These non-optional forms make that compile; where SQift would leave the caller to unwrap (or
// trap), they throw when there is no value, so a missing row is an error, never a crash.
extension Connection {
    /// The first column of the first row as a non-optional `T`, for SQL that always yields a value
    /// (`count(*)`, `PRAGMA`s).
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when there is no row, the value is NULL, or it
    ///   does not convert to `T`; any error from preparing, binding or stepping.
    @inlinable
    @_disfavoredOverload
    public func query<T: Extractable>(_ sql: SQL, _ parameters: Bindable?...) throws -> T where T.DataType == T {
        try Connection.requireValue(query(sql, parameters) as T?, sql: sql)
    }

    /// The first column of the first row as a non-optional `T`. (positional array parameters)
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when there is no row or no convertible value.
    @inlinable
    @_disfavoredOverload
    public func query<T: Extractable>(_ sql: SQL, _ parameters: [Bindable?]) throws -> T where T.DataType == T {
        try Connection.requireValue(query(sql, parameters) as T?, sql: sql)
    }

    /// The first column of the first row as a non-optional `T`. (named parameters)
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when there is no row or no convertible value.
    @inlinable
    @_disfavoredOverload
    public func query<T: Extractable>(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> T where T.DataType == T {
        try Connection.requireValue(query(sql, parameters) as T?, sql: sql)
    }

    @usableFromInline
    static func requireValue<T>(_ value: T?, sql: SQL) throws -> T {
        guard let value else {
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message: "Query expected a \(T.self) value, instead found no row, NULL or another storage class",
                sql: sql
            )
        }
        return value
    }
}
