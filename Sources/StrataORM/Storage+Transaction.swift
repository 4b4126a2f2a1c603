extension Storage {
    /// Starts a transaction (`BEGIN`); end it with ``commit()`` or ``rollback()``.
    ///
    /// - Throws: `SQLiteError`, e.g. when a transaction is already open.
    public func beginTransaction() throws {
        try connection.execute("BEGIN")
    }

    /// Commits the open transaction.
    ///
    /// - Throws: `SQLiteError`, e.g. when no transaction is open.
    public func commit() throws {
        try connection.execute("COMMIT")
    }

    /// Rolls the open transaction back.
    ///
    /// - Throws: `SQLiteError`, e.g. when no transaction is open.
    public func rollback() throws {
        try connection.execute("ROLLBACK")
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// ```swift
    /// try storage.transaction {
    ///     for user in users { try storage.insert(user) }
    /// }
    /// ```
    /// - Throws: what `body` throws (after the rollback), or `SQLiteError`.
    @discardableResult
    public func transaction<R>(_ body: () throws -> R) throws -> R {
        try connection.transaction(closure: body)
    }

    /// Whether the database has a table named `name` (compared as SQLite does, ignoring case).
    ///
    /// - Throws: `SQLiteError`.
    public func tableExists(with name: String) throws -> Bool {
        let count: Int? = try connection.query(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", name)
        return (count ?? 0) > 0
    }
}
