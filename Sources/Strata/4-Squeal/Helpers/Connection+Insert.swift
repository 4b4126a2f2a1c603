import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Squeal's INSERT helpers: table and column names are quoted, values bound.
extension Connection {
    /// Inserts one row from a column → value dictionary and returns its rowid.
    ///
    /// ```swift
    /// let contactId = try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
    /// ```
    /// The SQL names the columns in sorted order, so rows with the same columns share one cached
    /// prepared statement, and it is built only when the keys change. An empty dictionary
    /// inserts `DEFAULT VALUES`.
    /// - Throws: `SQLiteError`, e.g. for an unknown column or a violated constraint.
    @discardableResult
    public func insertInto(_ tableName: String, values: [String: Bindable?]) throws -> Int64 {
        let memo = insertStatementMemo
        if let prepared = memo.statement(for: tableName, keyCount: values.count) {
            // The same keys as last time, usually in the same order: bind and run the same statement.
            prepared.isInUse = true
            let statement = Statement(connection: self, prepared: prepared)
            defer {
                statement.resetForNewExecution()
                prepared.isInUse = false
            }
            if try memo.bindInRememberedOrder(values, to: statement) {
                try statement.run()
                return lastInsertRowID
            }
        }
        let (sql, positions) = memo.plan(tableName, keys: values.keys, build: insertSQL)
        _ = try withStatement(cachedFor: sql, .positional([])) { statement in
            // `values` iterates in the order `plan` saw its keys; positions[i] is the i-th key's parameter.
            var position = 0
            for (_, value) in values {
                try statement.bindSquealValue(value, at: positions[position])
                position += 1
            }
            try statement.run()
            memo.prepared = statement.prepared
        }
        return lastInsertRowID
    }

    /// Inserts one row, `values` matching `columns` in order, and returns its rowid.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when the counts differ; SQLite's error otherwise.
    @discardableResult
    public func insertInto(_ tableName: String, columns: [String], values: [Bindable?]) throws -> Int64 {
        _ = try withStatement(cachedFor: insertSQL(tableName, columns: columns), .positional(values)) { try $0.run() }
        return lastInsertRowID
    }

    /// Prepares `INSERT INTO table (columns) VALUES (?, ...)`, to bind and run per row.
    ///
    /// ```swift
    /// let insert = try db.prepareInsertInto("contacts", columns: ["name", "email"])
    /// try insert.bind("Amelia", "amelia@example.com").run()
    /// ```
    /// - Throws: `SQLiteError` for an unknown table or column.
    public func prepareInsertInto(_ tableName: String, columns: [String]) throws -> Statement {
        try prepare(insertSQL(tableName, columns: columns))
    }

    func insertSQL(_ tableName: String, columns: [String]) -> SQL {
        var sql = "INSERT INTO " + quoteIdentifier(tableName)
        guard !columns.isEmpty else { return sql + " DEFAULT VALUES" }
        sql += " ("
        for (position, column) in columns.enumerated() {
            if position > 0 { sql += ", " }
            sql += quoteIdentifier(column)
        }
        return sql + ") VALUES (" + placeholders(columns.count) + ")"
    }
}

extension Statement {
    /// Binds `value` (NULL when nil) to parameter `index`, throwing SQLite's error.
    @inline(__always)
    final func bindSquealValue(_ value: Bindable?, at index: Int32) throws {
        let code = try value?.bind(to: handle, at: index) ?? sqlite3_bind_null(handle, index)
        if code != SQLITE_OK { try checkBind(code, index: index) }
    }
}
