import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// `run(literal:)` and `query(literal:)`: the query API for SQL written with bound interpolation.
// Each form writes the fragment's SQL once, takes the statement the connection's one cache keeps
// under that SQL, binds the fragment's values positionally and reads as `query(_:)` does.
extension Connection {
    /// Runs `literal` to completion, its interpolated values bound.
    ///
    /// ```swift
    /// try db.run(literal: "INSERT INTO author(name, country) VALUES (\(name), \(country))")
    /// ```
    /// - Throws: `SQLiteError` (invalid SQL, a constraint, a `?` written in the literal text,
    ///   which has no value to bind).
    public func run(literal: SQLFragment) throws {
        let (sql, arguments) = try literal.rendered
        try runCachedStatement(StatementCacheKey(sql: sql)) { handle in
            let expected = Int(sqlite3_bind_parameter_count(handle))
            guard expected == arguments.count else {
                throw Connection.parameterCountMismatch(sql: sql, expected: expected, received: arguments.count)
            }
            for (offset, value) in arguments.enumerated() {
                let code = value.bind(to: handle, at: Int32(offset + 1))
                if code != SQLITE_OK { return (code, Int32(offset + 1)) }
            }
            return nil
        }
    }

    /// The first column of the first row as `T`; nil when there is no row or the value is NULL.
    ///
    /// ```swift
    /// let n: Int? = try db.query(literal: "SELECT count(*) FROM book WHERE year > \(y)")
    /// ```
    /// - Throws: `SQLiteError` when preparing, binding or stepping fails.
    @inlinable
    public func query<T: Extractable>(literal: SQLFragment) throws -> T? where T.DataType == T {
        try withStatement(literal: literal) { try $0.query() }
    }

    /// The first column of the first row as a non-optional `T`, for SQL that always yields a value.
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when there is no row, the value is NULL, or it
    ///   does not convert to `T`; any error from preparing, binding or stepping.
    @inlinable
    @_disfavoredOverload
    public func query<T: Extractable>(literal: SQLFragment) throws -> T where T.DataType == T {
        try withStatement(literal: literal) { statement in
            try Connection.requireValue(statement.query() as T?, sql: statement.sql)
        }
    }

    /// The first row, or nil. The row has a statement of its own: it stays valid after the call.
    /// - Throws: `SQLiteError` when preparing, binding or stepping fails.
    public func query(literal: SQLFragment) throws -> Row? {
        let (sql, arguments) = try literal.rendered
        let statement = try Statement(connection: self, sql: sql)
        try statement.bind(values: arguments)
        return try statement.query()
    }

    /// Every row, each a snapshot of its values that stays valid after the call.
    ///
    /// ```swift
    /// let rows: [Row] = try db.query(literal: "SELECT * FROM book WHERE title = \(t)")
    /// ```
    /// A `Row` is a view of a statement, so each row here is kept as a one-row statement of its
    /// own (the values and column names, each value in its storage class): for many rows, read
    /// them into models or with a `body` instead.
    /// - Throws: `SQLiteError` when preparing, binding or stepping fails.
    @_disfavoredOverload // an unannotated `let row = try db.query(literal: …)` is `Row?`, as with `query(_:)`
    public func query(literal: SQLFragment) throws -> [Row] {
        let snapshots = try valueRows(literal: literal)
        guard !snapshots.rows.isEmpty else { return [] }
        // One SQL text for every row, so SQLite's parser runs once per row at most; the columns
        // keep their names (duplicates allowed in a SELECT list).
        let list = snapshots.names.enumerated().map { "?\($0.offset + 1) AS " + quoteIdentifier($0.element) }
        let sql = "SELECT " + (list.isEmpty ? "NULL" : list.joined(separator: ", "))
        return try snapshots.rows.map { values in
            let statement = try Statement(connection: self, sql: sql)
            try statement.bind(values: values)
            guard let row = try statement.query() else {
                throw SQLiteError(code: SQLITE_INTERNAL, message: "A row snapshot produced no row", sql: sql)
            }
            return row
        }
    }

    /// The first row as a model, or nil.
    /// - Throws: `SQLiteError`; what the model's initializer throws.
    @inlinable
    public func query<T: ExpressibleByRow>(literal: SQLFragment) throws -> T? {
        try withStatement(literal: literal) { try $0.query() }
    }

    /// `body` applied to the first row, or nil.
    /// - Throws: `SQLiteError`; what `body` throws.
    @inlinable
    public func query<T>(literal: SQLFragment, body: (Row) throws -> T) throws -> T? {
        try withStatement(literal: literal) { try $0.query(body) }
    }

    /// The first column of every row, stopping at the first NULL or unconvertible value.
    /// - Throws: `SQLiteError` when preparing, binding or stepping fails.
    @inlinable
    public func query<T: Extractable>(literal: SQLFragment) throws -> [T] where T.DataType == T {
        try withStatement(literal: literal) { try $0.query() }
    }

    /// Every row as a model.
    ///
    /// ```swift
    /// let books: [Book] = try db.query(literal: "SELECT * FROM book WHERE year > \(y)")
    /// ```
    /// - Throws: `SQLiteError`; what the model's initializer throws.
    @inlinable
    public func query<T: ExpressibleByRow>(literal: SQLFragment) throws -> [T] {
        try withStatement(literal: literal) { try $0.query() }
    }

    /// `body` applied to every row.
    /// - Throws: `SQLiteError`; what `body` throws.
    @inlinable
    public func query<T>(literal: SQLFragment, body: (Row) throws -> T) throws -> [T] {
        try withStatement(literal: literal) { try $0.query(body) }
    }

    /// A dictionary from the key-value pair `body` makes of each row.
    /// - Throws: `SQLiteError`; what `body` throws.
    @inlinable
    public func query<Key: Hashable, Value>(literal: SQLFragment, body: (Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try withStatement(literal: literal) { try $0.query(body) }
    }

    /// A dictionary built from each row, `body` seeing the dictionary so far.
    /// - Throws: `SQLiteError`; what `body` throws.
    @inlinable
    public func query<Key: Hashable, Value>(literal: SQLFragment, body: ([Key: Value], Row) throws -> (Key, Value)) throws -> [Key: Value] {
        try withStatement(literal: literal) { try $0.query(body) }
    }

    /// Every row's values, each in its storage class, with the column names: for layers that
    /// read rows as values (the sync engine's rules), without a `Row` per row.
    /// - Throws: `SQLiteError` when preparing, binding or stepping fails.
    package func valueRows(literal: SQLFragment) throws -> (names: [String], rows: [[BindingValue]]) {
        try withStatement(literal: literal) { statement in
            let handle = statement.handle
            let count = Int32(statement.columnCount)
            var rows: [[BindingValue]] = []
            while try statement.step() {
                var values: [BindingValue] = []
                values.reserveCapacity(Int(count))
                for index in 0..<count {
                    guard let value = sqlite3_column_value(handle, index) else {
                        values.append(.null)
                        continue
                    }
                    values.append(BindingValue(reading: value))
                }
                rows.append(values)
            }
            return (statement.columnNames, rows)
        }
    }

    /// Runs `body` with the cached statement for `literal`'s SQL, its values bound; resets it after.
    @usableFromInline
    package func withStatement<R>(literal: SQLFragment, _ body: (Statement) throws -> R) throws -> R {
        let (sql, arguments) = try literal.rendered
        return try withStatement(cachedFor: StatementCacheKey(sql: sql)) { statement in
            try statement.bind(values: arguments)
            return try body(statement)
        }
    }

    /// The error for a literal whose `?` count differs from its values (a `?` in literal text).
    static func parameterCountMismatch(sql: SQL, expected: Int, received: Int) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: "Bind expected \(expected) parameters, instead received \(received)", sql: sql)
    }
}

extension Statement {
    /// Resets the statement and binds `values` positionally; their count must be the statement's.
    /// - Throws: `SQLITE_MISUSE` for a count that differs; a failed bind's error.
    package func bind(values: [BindingValue]) throws {
        try values.withUnsafeBufferPointer { buffer in
            try bindPositional(count: buffer.count) { index in
                buffer[index].bind(to: handle, at: Int32(index + 1))
            }
        }
    }
}
