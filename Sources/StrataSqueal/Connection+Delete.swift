import Foundation
import Strata

/// Squeal's DELETE helpers: the table name is quoted; `whereExpr` is an SQL fragment whose
/// `parameters` are bound.
extension Connection {
    /// Deletes the rows `whereExpr` selects (every row when nil); returns how many were deleted.
    ///
    /// ```swift
    /// try db.deleteFrom("contacts", whereExpr: "name IS NULL")
    /// ```
    /// - Throws: `SQLiteError` for invalid SQL, a violated constraint, or a parameter count
    ///   that does not match.
    @discardableResult
    public func deleteFrom(_ tableName: String, whereExpr: String? = nil, parameters: [Bindable?] = []) throws -> Int {
        try runCountingChanges(deleteSQL(tableName, whereExpr: whereExpr), parameters)
    }

    /// Deletes the rows with the given rowids; returns how many were deleted.
    ///
    /// - Throws: `SQLiteError`, e.g. for a violated foreign key.
    @discardableResult
    public func deleteFrom(_ tableName: String, rowIds: [Int64]) throws -> Int {
        var deleted = 0
        for chunk in rowIdChunks(rowIds) {
            let sql = deleteSQL(tableName, whereExpr: "_ROWID_ IN (" + StatementClauses.parameterMarkers(chunk.count) + ")")
            deleted += try runCountingChanges(sql, chunk.map { $0 as Bindable? })
        }
        return deleted
    }

    /// Prepares `DELETE FROM table WHERE whereExpr` with `parameters` bound.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func prepareDeleteFrom(_ tableName: String, whereExpr: String? = nil, parameters: [Bindable?] = []) throws -> Statement {
        try prepare(deleteSQL(tableName, whereExpr: whereExpr), parameters)
    }

    /// `DELETE FROM "table" WHERE whereExpr`, through the one statement renderer.
    func deleteSQL(_ tableName: String, whereExpr: String?) -> SQL {
        StatementClauses(predicate: .written(whereExpr)).delete(from: .identifier(tableName)).sql
    }
}
