extension Storage {
    /// Starts a transaction (`BEGIN`); end it with ``commit()`` or ``rollback()``.
    ///
    /// - Throws: `SQLiteError`, e.g. when a transaction is already open.
    public func beginTransaction() throws {
        try connection.beginTransaction(.deferred)
    }

    /// Commits the open transaction.
    ///
    /// - Throws: `SQLiteError`, e.g. when no transaction is open.
    public func commit() throws {
        try connection.commitTransaction()
    }

    /// Rolls the open transaction back.
    ///
    /// - Throws: `SQLiteError`, e.g. when no transaction is open.
    public func rollback() throws {
        try connection.rollbackTransaction()
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
        try connection.schemaReader.table(named: name) != nil
    }
}
