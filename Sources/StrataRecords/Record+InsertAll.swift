import Foundation

extension Record {
    /// Inserts every record with one prepared statement, all or nothing: in a transaction when
    /// none is open, in a savepoint inside an open one. Returns the rowids, in order.
    ///
    /// ```swift
    /// let ids: [Int64] = try Book.insertAll(db, books)
    /// ```
    /// Nil keys are assigned by SQLite; the records passed in are not changed (read the keys from
    /// the result).
    /// - Throws: `SQLiteError` for the first row that fails (a constraint, say), after rolling
    ///   back every row this call inserted.
    @discardableResult
    public static func insertAll(_ db: Connection, _ records: [Self]) throws -> [Int64] {
        guard !records.isEmpty else { return [] }
        let statements = Self.statements
        return try db.strataSavepoint(named: "strata_insert_all") {
            var rowIDs: [Int64] = []
            rowIDs.reserveCapacity(records.count)
            for record in records {
                try statements.runInsert(on: db) { binder in try record.bindRecordColumns(to: &binder, order: .all) }
                rowIDs.append(db.lastInsertRowID)
            }
            return rowIDs
        }
    }
}
