// StrataSqueal: the SQL helpers Squeal introduced (`insertInto`, `selectFrom`,
// `countFrom`, `update`, `deleteFrom`, schema helpers): Squeal's spellings, so only in StrataSqueal.

import Foundation
import Strata

/// Squeal's SELECT helpers. `from`, `whereExpr`, `groupBy`, `having` and `orderBy` are SQL
/// fragments by design (joins, expressions); values go in `parameters`, bound in order.
extension Connection {
    /// Selects rows and maps each with `block`, which receives the statement positioned on the row.
    ///
    /// ```swift
    /// let contacts: [Contact] = try db.selectFrom("contacts", whereExpr: "name IS NOT NULL", block: Contact.init)
    /// ```
    /// `from` is quoted when it names a table or view, and each of `columns` when it names one
    /// of its columns; anything else is spliced as an SQL fragment. `limit` and `offset` are bound.
    /// - Throws: `SQLiteError` for invalid SQL or a failing step; the block's error.
    @inlinable // specialized for the caller's `T`: the per-row append then needs no metadata lookup
    public func selectFrom<T>(
        _ from: String,
        columns: [String]? = nil,
        whereExpr: String? = nil,
        groupBy: String? = nil,
        having: String? = nil,
        orderBy: String? = nil,
        limit: Int? = nil,
        offset: Int? = nil,
        parameters: [Bindable?] = [],
        block: (Statement) throws -> T
    ) throws -> [T] {
        let (sql, bound) = try selectSQL(
            from, columns: columns, whereExpr: whereExpr, groupBy: groupBy, having: having,
            orderBy: orderBy, limit: limit, offset: offset, parameters: parameters)
        return try withStatement(cachedFor: sql, .positional(bound)) { statement in
            var results: [T] = []
            while try statement.step() {
                results.append(try block(statement))
            }
            return results
        }
    }

    /// Prepares the statement ``selectFrom(_:columns:whereExpr:groupBy:having:orderBy:limit:offset:parameters:block:)``
    /// would run, with `parameters` bound; step it with `next()`.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func prepareSelectFrom(
        _ from: String,
        columns: [String]? = nil,
        whereExpr: String? = nil,
        groupBy: String? = nil,
        having: String? = nil,
        orderBy: String? = nil,
        limit: Int? = nil,
        offset: Int? = nil,
        parameters: [Bindable?] = []
    ) throws -> Statement {
        let (sql, bound) = try selectSQL(
            from, columns: columns, whereExpr: whereExpr, groupBy: groupBy, having: having,
            orderBy: orderBy, limit: limit, offset: offset, parameters: parameters)
        return try prepare(sql, bound)
    }

    /// The ids (by default the rowids) of the selected rows.
    ///
    /// ```swift
    /// let ids = try db.selectIdsFrom("contacts", whereExpr: "email LIKE ?", parameters: ["%@example.com"])
    /// ```
    /// - Throws: `SQLiteError` for invalid SQL or a failing step.
    public func selectIdsFrom(
        _ from: String,
        idColumn: String = "_ROWID_",
        whereExpr: String? = nil,
        orderBy: String? = nil,
        limit: Int? = nil,
        offset: Int? = nil,
        parameters: [Bindable?] = []
    ) throws -> [Int64] {
        try selectFrom(
            from, columns: [idColumn], whereExpr: whereExpr, orderBy: orderBy, limit: limit, offset: offset,
            parameters: parameters
        ) { $0.int64ValueAtIndex(0) }
        .compactMap { $0 }
    }

    /// Prepares the statement ``selectIdsFrom(_:idColumn:whereExpr:orderBy:limit:offset:parameters:)`` would run.
    ///
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func prepareSelectIdsFrom(
        _ from: String,
        idColumn: String = "_ROWID_",
        whereExpr: String? = nil,
        orderBy: String? = nil,
        limit: Int? = nil,
        offset: Int? = nil,
        parameters: [Bindable?] = []
    ) throws -> Statement {
        try prepareSelectFrom(
            from, columns: [idColumn], whereExpr: whereExpr, orderBy: orderBy, limit: limit, offset: offset,
            parameters: parameters)
    }

    /// Counts the selected rows (`count(*)`, or `count(columns)` when given).
    ///
    /// ```swift
    /// let numberOfContacts = try db.countFrom("contacts")
    /// ```
    /// - Throws: `SQLiteError` for invalid SQL.
    public func countFrom(
        _ from: String,
        columns: [String]? = nil,
        whereExpr: String? = nil,
        parameters: [Bindable?] = []
    ) throws -> Int64 {
        let source = try sqlSource(from)
        let list = try sqlColumnList(columns, of: source.table)
        let (sql, bound) = StatementClauses(predicate: .written(whereExpr))
            .select(SQLFragment(sql: "count(" + list + ")"), from: SQLFragment(sql: source.sql))
            .positional(after: parameters)
        return try withStatement(cachedFor: sql, .positional(bound)) { statement in
            try statement.step() ? statement.int64ValueAtIndex(0) ?? 0 : 0
        }
    }

    /// Builds a SELECT and the parameters to bind with it.
    @usableFromInline
    func selectSQL(
        _ from: String, columns: [String]?, whereExpr: String?, groupBy: String?, having: String?,
        orderBy: String?, limit: Int?, offset: Int?, parameters: [Bindable?]
    ) throws -> (SQL, [Bindable?]) {
        let source = try sqlSource(from)
        // The helpers' fragments stay SQL text as written, placed into the one renderer's clauses.
        let clauses = StatementClauses(
            predicate: .written(whereExpr), groups: SQLFragment.written(groupBy).map { [$0] } ?? [],
            having: .written(having), orderings: SQLFragment.written(orderBy).map { [$0] } ?? [],
            limit: limit, offset: offset)
        let statement = clauses.select(
            SQLFragment(sql: try sqlColumnList(columns, of: source.table)),
            from: SQLFragment(sql: source.sql))
        return statement.positional(after: parameters)
    }
}
