import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Parameters for a convenience call: positional or named.
@usableFromInline
package enum StatementParameters {
    case positional([Bindable?])
    case named([String: Bindable?])

    /// Binds the parameters; with none given, leaves any parameters NULL, as a fresh statement would.
    func bind(to statement: Statement) throws {
        switch self {
        case .positional(let values) where values.isEmpty:
            statement.resetForNewExecution()
            statement.clearBindings()
        case .positional(let values):
            try statement.bind(values)
        case .named(let values):
            try statement.bind(values)
        }
    }
}

extension Connection {
    // MARK: - Preparing

    /// Prepares a statement, binding `parameters` when any are given.
    ///
    /// ```swift
    /// let result: String? = try connection.prepare("SELECT upper(?)", "a").query()
    /// ```
    public func prepare(_ sql: SQL, _ parameters: Bindable?...) throws -> Statement {
        try prepare(sql, parameters)
    }

    /// Prepares a statement, binding positional `parameters` when any are given.
    public func prepare(_ sql: SQL, _ parameters: [Bindable?]) throws -> Statement {
        let statement = try Statement(connection: self, sql: sql)
        if !parameters.isEmpty { try statement.bind(parameters) }
        return statement
    }

    /// Prepares a statement, binding named `parameters` when any are given.
    public func prepare(_ sql: SQL, _ parameters: [String: Bindable?]) throws -> Statement {
        let statement = try Statement(connection: self, sql: sql)
        if !parameters.isEmpty { try statement.bind(parameters) }
        return statement
    }

    // MARK: - Running

    /// Prepares (from the statement cache), binds and runs `sql` to completion.
    ///
    /// ```swift
    /// try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 1, "Audi", 52_642)
    /// ```
    /// - Throws: `SQLiteError`, including `SQLITE_MISUSE` when the parameter count is wrong.
    public func run(_ sql: SQL, _ parameters: Bindable?...) throws {
        try run(sql, parameters)
    }

    /// Prepares (from the statement cache), binds positional `parameters` and runs `sql`.
    public func run(_ sql: SQL, _ parameters: [Bindable?]) throws {
        _ = try withStatement(cachedFor: sql, .positional(parameters)) { try $0.run() }
    }

    /// Prepares (from the statement cache), binds named `parameters` and runs `sql`.
    public func run(_ sql: SQL, _ parameters: [String: Bindable?]) throws {
        _ = try withStatement(cachedFor: sql, .named(parameters)) { try $0.run() }
    }

    /// The spelling SQift's README uses for a bound statement (`execute(sql, value, ...)`):
    /// the same as `run(_:_:)`. Without values, `execute(_:)` runs SQL text
    /// that may hold several statements.
    public func execute(_ sql: SQL, _ parameters: Bindable?...) throws {
        try run(sql, parameters)
    }

    /// Runs `sql`, which must hold exactly one statement, without caching it: for the helpers
    /// that build one statement (a `CREATE TABLE`, an `ALTER TABLE`) around a caller's SQL
    /// fragments, so a fragment that ends the statement and starts another
    /// (`"x TEXT; DROP TABLE users"`) is refused before anything runs.
    /// - Throws: `SQLITE_MISUSE` when `sql` holds more than one statement; SQLite's errors.
    package func runSingleStatement(_ sql: SQL) throws {
        try Statement(connection: self, sql: sql).run()
    }

    /// SQift's README spelling of the named form: `run(sql, parameters: [":id": 1])`.
    public func run(_ sql: SQL, parameters: [String: Bindable?]) throws {
        try run(sql, parameters)
    }

    // MARK: - Statement cache

    /// Runs `body` with a prepared statement for `sql` from the connection's cache (or a fresh one
    /// when the cached one is busy in an enclosing call), bound with `parameters`, and resets it
    /// afterwards so it holds no locks.
    @usableFromInline
    package func withStatement<R>(cachedFor sql: SQL, _ parameters: StatementParameters, _ body: (Statement) throws -> R) throws -> R {
        try withStatement(cachedFor: StatementCacheKey(sql: sql)) { statement in
            try parameters.bind(to: statement)
            return try body(statement)
        }
    }

    /// Runs `body` with the cached statement filed under `key` (prepared from `key.sql` on first
    /// use, or afresh when an enclosing call is using it), then resets it, keeping its bindings
    /// for the caller to overwrite. Layers that run one statement per row pass a key built once
    /// (``StatementCacheKey/init(reusing:)``), so no SQL is hashed per row.
    package func withStatement<R>(cachedFor key: StatementCacheKey, _ body: (Statement) throws -> R) throws -> R {
        let prepared = try checkOutStatement(cachedFor: key)
        defer {
            prepared.reset()
            prepared.isInUse = false
        }
        return try body(Statement(connection: self, prepared: prepared))
    }

    /// Finalizes the cached statements no call is using (they are prepared again on demand),
    /// after a schema change that leaves them no use.
    package func removeUnusedCachedStatements() {
        statementCache.removeAll()
    }

    /// The number of statements in the convenience-call cache.
    package var cachedStatementCount: Int { statementCache.count }
}
