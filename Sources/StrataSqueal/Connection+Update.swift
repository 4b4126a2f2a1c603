import Foundation
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Squeal's UPDATE helpers: the table and assigned columns are quoted and values bound;
/// `setExpr` and `whereExpr` are SQL fragments whose `parameters` are bound after the values.
extension Connection {
    /// Sets columns from a column → value dictionary in the rows `whereExpr` selects (all rows
    /// when nil); returns the number of rows changed.
    ///
    /// ```swift
    /// try db.update("contacts", set: ["email": "amelia@example.com"], whereExpr: "name = ?", parameters: ["Amelia"])
    /// ```
    /// - Throws: `SQLiteError` for an unknown column, a violated constraint, or a parameter
    ///   count that does not match.
    @discardableResult
    public func update(_ tableName: String, set: [String: Bindable?], whereExpr: String? = nil, parameters: [Bindable?] = []) throws -> Int {
        let columns = set.keys.sorted()
        let values = columns.map { set[$0] ?? nil }
        return try update(tableName, columns: columns, values: values, whereExpr: whereExpr, parameters: parameters)
    }

    /// Runs `UPDATE table SET setExpr WHERE whereExpr`; returns the number of rows changed.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    @discardableResult
    public func update(_ tableName: String, setExpr: String, whereExpr: String? = nil, parameters: [Bindable?] = []) throws -> Int {
        return try runCountingChanges(updateSQL(tableName, setExpr: setExpr, whereExpr: whereExpr), parameters)
    }

    /// Sets `columns` to `values` (in order) in the rows `whereExpr` selects; returns the
    /// number of rows changed.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) when the counts differ; SQLite's error otherwise.
    @discardableResult
    public func update(
        _ tableName: String, columns: [String], values: [Bindable?], whereExpr: String? = nil, parameters: [Bindable?] = []
    ) throws -> Int {
        guard columns.count == values.count else { throw countMismatch(columns: columns.count, values: values.count) }
        return try runCountingChanges(try updateSQL(tableName, columns: columns, whereExpr: whereExpr), values + parameters)
    }

    /// Sets columns from a dictionary in the rows with the given rowids; returns the number of
    /// rows changed.
    ///
    /// - Throws: `SQLiteError` for an unknown column or a violated constraint.
    @discardableResult
    public func update(_ tableName: String, rowIds: [Int64], values: [String: Bindable?]) throws -> Int {
        let columns = values.keys.sorted()
        let bound = columns.map { values[$0] ?? nil }
        var changed = 0
        for chunk in rowIdChunks(rowIds) {
            let sql = try updateSQL(tableName, columns: columns, whereExpr: "_ROWID_ IN (" + StatementClauses.parameterMarkers(chunk.count) + ")")
            changed += try runCountingChanges(sql, bound + chunk.map { $0 as Bindable? })
        }
        return changed
    }

    /// Prepares `UPDATE table SET setExpr WHERE whereExpr` with `parameters` bound.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func prepareUpdate(_ tableName: String, setExpr: String, whereExpr: String? = nil, parameters: [Bindable?] = []) throws -> Statement {
        try prepare(updateSQL(tableName, setExpr: setExpr, whereExpr: whereExpr), parameters)
    }

    /// Prepares `UPDATE table SET "a" = ?, ... WHERE whereExpr`: bind the column values first,
    /// then the parameters of `whereExpr`.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or an unknown column.
    public func prepareUpdate(_ tableName: String, columns: [String], whereExpr: String? = nil) throws -> Statement {
        try prepare(try updateSQL(tableName, columns: columns, whereExpr: whereExpr))
    }

    func updateSQL(_ tableName: String, columns: [String], whereExpr: String?) throws -> SQL {
        guard !columns.isEmpty else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "An update of \(quoteIdentifier(tableName)) needs at least one column to set")
        }
        return updateSQL(tableName, setExpr: StatementClauses.assignments(columns).sql, whereExpr: whereExpr)
    }

    /// `UPDATE "table" SET setExpr WHERE whereExpr`, through the one statement renderer.
    func updateSQL(_ tableName: String, setExpr: String, whereExpr: String?) -> SQL {
        StatementClauses(predicate: .written(whereExpr)).update(.identifier(tableName), set: SQLFragment(sql: setExpr)).sql
    }

    /// Runs a statement from the cache and returns `changes`.
    func runCountingChanges(_ sql: SQL, _ parameters: [Bindable?]) throws -> Int {
        _ = try withStatement(cachedFor: sql, .positional(parameters)) { try $0.run() }
        return changes
    }

    func countMismatch(columns: Int, values: Int) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: "Expected \(columns) values for \(columns) columns, instead received \(values)")
    }
}

/// Rowids in groups small enough for SQLite's parameter limit.
func rowIdChunks(_ rowIds: [Int64]) -> [ArraySlice<Int64>] {
    stride(from: 0, to: rowIds.count, by: 500).map { rowIds[$0..<min($0 + 500, rowIds.count)] }
}
