import Strata

extension Connection {
    /// Prepares one statement and binds `namedParameters` by name (`"id"` matches `:id`, `@id`
    /// or `$id`), for code written for Squeal's named-parameter form.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a name the statement has no parameter for.
    public func prepareStatement(_ sql: SQL, namedParameters: [String: Bindable?]) throws -> Statement {
        let statement = try prepareStatement(sql)
        try statement.bind(namedParameters: namedParameters)
        return statement
    }

    /// Runs one statement with `namedParameters` bound by name.
    ///
    /// - Throws: `SQLiteError` for invalid SQL, an unknown parameter name, or a failing statement.
    public func execute(_ sql: SQL, namedParameters: [String: Bindable?]) throws {
        try prepareStatement(sql, namedParameters: namedParameters).execute()
    }
}

extension Statement {
    /// Ends the statement's current run and clears its parameters, so it holds no read lock and
    /// keeps no bound values alive, as Squeal's `close()` did. The SQLite handle itself is
    /// finalized when the last reference goes (Strata's statements are shared with its cache),
    /// so a closed statement can still be bound and run again.
    public final func close() {
        try? reset()
        clearParameters()
    }
}
