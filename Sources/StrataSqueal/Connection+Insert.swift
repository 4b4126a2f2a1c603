import Foundation
import Strata
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
        let memo = state(in: InsertPlanMemo.slot)
        if memo.matches(tableName, keyCount: values.count), let prepared = try memo.checkOutStatement(on: self) {
            // The same keys as last time, usually in the same order: bind onto the same cached
            // statement's handle and run it (no `Statement` object per row).
            defer {
                prepared.reset()
                prepared.isInUse = false
            }
            if try memo.bindInRememberedOrder(values, to: prepared, on: self) {
                try runToCompletion(prepared)
                return lastInsertRowID
            }
        }
        let (key, positions) = memo.plan(tableName, keys: values.keys)
        try withStatement(cachedFor: key) { statement in
            // `values` iterates in the order `plan` saw its keys; positions[i] is the i-th key's parameter.
            var position = 0
            for (_, value) in values {
                try statement.bindValue(value, toParameter: positions[position])
                position += 1
            }
            try statement.run()
        }
        return lastInsertRowID
    }

    /// Inserts one row, `values` matching `columns` in order, and returns its rowid.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when the counts differ; SQLite's error otherwise.
    @discardableResult
    public func insertInto(_ tableName: String, columns: [String], values: [Bindable?]) throws -> Int64 {
        _ = try withStatement(cachedFor: StatementClauses.insert(into: tableName, columns: columns).sql, .positional(values)) { try $0.run() }
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
        try prepare(StatementClauses.insert(into: tableName, columns: columns).sql)
    }
}
