import Foundation

// The query API on a prepared statement, with SQift's stepping: each call steps on from where
// the statement is, without resetting it. The single-row forms read one row, so repeated calls
// walk the rows (`while let value: Int = try statement.query() { ... }`) and then give nil; the
// array forms read to the end. `bind(...)` resets the statement to run it again.
extension Statement {
    /// The first column of the next row as `T`; nil when there is no row or the value is NULL.
    ///
    /// ```swift
    /// let result: String? = try connection.prepare("SELECT upper(?)", "a").query()
    /// ```
    /// - Throws: `SQLiteError` when stepping fails.
    @inlinable
    public final func query<T: Extractable>() throws -> T? where T.DataType == T {
        guard try step() else { return nil }
        return value(at: 0, as: T.self)
    }

    /// The next row, or nil. The row is a view only until the statement steps again.
    /// - Throws: `SQLiteError` when stepping fails.
    public final func query() throws -> Row? {
        guard try step() else { return nil }
        return Row(statement: self)
    }

    /// The next row as a model, or nil when there is no row.
    /// - Throws: `SQLiteError` when stepping fails; what the model's initializer throws.
    @inlinable
    public final func query<T: ExpressibleByRow>() throws -> T? {
        guard try step() else { return nil }
        return try T(row: Row(statement: self))
    }

    /// `body` applied to the next row, or nil when there is no row.
    /// - Throws: `SQLiteError` when stepping fails; what `body` throws.
    @inlinable
    public final func query<T>(_ body: (Row) throws -> T) throws -> T? {
        guard try step() else { return nil }
        return try body(Row(statement: self))
    }

    /// The first column of each remaining row as `T`, stopping at the first NULL or
    /// unconvertible value.
    /// - Throws: `SQLiteError` when stepping fails.
    @inlinable
    public final func query<T: Extractable>() throws -> [T] where T.DataType == T {
        var values: [T] = []
        while try step() {
            guard let value = value(at: 0, as: T.self) else { break }
            values.append(value)
        }
        return values
    }

    /// Each remaining row as a model.
    /// - Throws: `SQLiteError` when stepping fails; what the model's initializer throws.
    @inlinable
    public final func query<T: ExpressibleByRow>() throws -> [T] {
        var values: [T] = []
        let row = Row(statement: self)
        while try step() { values.append(try T(row: row)) }
        return values
    }

    /// `body` applied to each remaining row.
    /// - Throws: `SQLiteError` when stepping fails; what `body` throws.
    @inlinable
    public final func query<T>(_ body: (Row) throws -> T) throws -> [T] {
        var values: [T] = []
        let row = Row(statement: self)
        while try step() { values.append(try body(row)) }
        return values
    }

    /// A dictionary from the key-value pair `body` makes of each remaining row (later keys win).
    ///
    /// ```swift
    /// let prices: [String: UInt] = try statement.query { ($0[0], $0[1]) }
    /// ```
    /// - Throws: `SQLiteError` when stepping fails; what `body` throws.
    @inlinable
    public final func query<Key: Hashable, Value>(_ body: (Row) throws -> (Key, Value)) throws -> [Key: Value] {
        var result: [Key: Value] = [:]
        let row = Row(statement: self)
        while try step() {
            let (key, value) = try body(row)
            result[key] = value
        }
        return result
    }

    /// A dictionary built from each remaining row, `body` seeing the dictionary so far.
    /// - Throws: `SQLiteError` when stepping fails; what `body` throws.
    @inlinable
    public final func query<Key: Hashable, Value>(_ body: ([Key: Value], Row) throws -> (Key, Value)) throws -> [Key: Value] {
        var result: [Key: Value] = [:]
        let row = Row(statement: self)
        while try step() {
            let (key, value) = try body(result, row)
            result[key] = value
        }
        return result
    }
}

// The cursor form: visit rows without collecting them.
extension Statement {
    /// Calls `body` with each row in turn, without building an array; the fastest way to scan.
    ///
    /// ```swift
    /// var total = 0
    /// try statement.forEachRow { row in total += row[0] as Int }
    /// ```
    /// The row is only valid inside `body`.
    @inlinable
    public final func forEachRow(_ body: (Row) throws -> Void) throws {
        defer { resetForNewExecution() }
        let row = Row(statement: self)
        while try step() { try body(row) }
    }
}

extension Connection {
    /// Calls `body` with each row of `sql` in turn, without building an array.
    public final func forEachRow(_ sql: SQL, _ parameters: Bindable?..., body: (Row) throws -> Void) throws {
        try forEachRow(sql, parameters, body: body)
    }

    /// Calls `body` with each row of `sql` (positional parameters) in turn.
    public final func forEachRow(_ sql: SQL, _ parameters: [Bindable?], body: (Row) throws -> Void) throws {
        try withStatement(cachedFor: sql, .positional(parameters)) { try $0.forEachRow(body) }
    }

    /// Calls `body` with each row of `sql` (named parameters) in turn.
    public final func forEachRow(_ sql: SQL, _ parameters: [String: Bindable?], body: (Row) throws -> Void) throws {
        try withStatement(cachedFor: sql, .named(parameters)) { try $0.forEachRow(body) }
    }
}
