import Foundation

// The query API on a prepared statement. Each call reads from the statement's current bindings,
// then resets it, so the statement can be re-bound and queried again.
extension Statement {
    /// The first column of the first row as `T`; nil when there is no row or the value is NULL.
    ///
    /// ```swift
    /// let result: String? = try connection.prepare("SELECT upper(?)", "a").query()
    /// ```
    @inlinable
    public final func query<T: Extractable>() throws -> T? where T.DataType == T {
        defer { resetForNewExecution() }
        guard try step() else { return nil }
        return value(at: 0, as: T.self)
    }

    /// The first row, or nil. The row is a snapshot only until the statement is used again.
    public final func query() throws -> Row? {
        guard try step() else { resetForNewExecution(); return nil }
        return Row(statement: self)
    }

    /// The first row as a model, or nil when there is no row.
    @inlinable
    public final func query<T: ExpressibleByRow>() throws -> T? {
        defer { resetForNewExecution() }
        guard try step() else { return nil }
        return try T(row: Row(statement: self))
    }

    /// `body` applied to the first row, or nil when there is no row.
    @inlinable
    public final func query<T>(body: (Row) throws -> T) throws -> T? {
        defer { resetForNewExecution() }
        guard try step() else { return nil }
        return try body(Row(statement: self))
    }

    /// The first column of every row as `T`, stopping at the first NULL or unconvertible value.
    @inlinable
    public final func query<T: Extractable>() throws -> [T] where T.DataType == T {
        defer { resetForNewExecution() }
        var values: [T] = []
        while try step() {
            guard let value = value(at: 0, as: T.self) else { break }
            values.append(value)
        }
        return values
    }

    /// Every row as a model.
    @inlinable
    public final func query<T: ExpressibleByRow>() throws -> [T] {
        defer { resetForNewExecution() }
        var values: [T] = []
        let row = Row(statement: self)
        while try step() { values.append(try T(row: row)) }
        return values
    }

    /// `body` applied to every row.
    @inlinable
    public final func query<T>(body: (Row) throws -> T) throws -> [T] {
        defer { resetForNewExecution() }
        var values: [T] = []
        let row = Row(statement: self)
        while try step() { values.append(try body(row)) }
        return values
    }

    /// A dictionary from the key-value pair `body` makes of each row (later keys win).
    ///
    /// ```swift
    /// let prices: [String: UInt] = try statement.query { ($0[0], $0[1]) }
    /// ```
    @inlinable
    public final func query<Key: Hashable, Value>(body: (Row) throws -> (Key, Value)) throws -> [Key: Value] {
        defer { resetForNewExecution() }
        var result: [Key: Value] = [:]
        let row = Row(statement: self)
        while try step() {
            let (key, value) = try body(row)
            result[key] = value
        }
        return result
    }

    /// A dictionary built from each row, `body` seeing the dictionary so far.
    @inlinable
    public final func query<Key: Hashable, Value>(body: ([Key: Value], Row) throws -> (Key, Value)) throws -> [Key: Value] {
        defer { resetForNewExecution() }
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
