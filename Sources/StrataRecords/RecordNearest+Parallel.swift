import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// The parallel form of the exact scan: the table's rowid range split into equal spans, each
// scanned on its own reader of the Database's pool (the pool the rest of Strata reads with), the
// per-span top k merged under the scan's total order (distance, then rowid), then the winners'
// records read in one more read. The merge of top-k lists under a total order is the top k of
// their union, so the result is the serial scan's, ties included.

extension NearestQuery where R: Sendable {
    /// The nearest records, nearest first, with their distances, scanned in parallel on the
    /// reader pool of `database`: the table's rowid range is split into `parallelism` spans of
    /// equal width, each scanned on its own reader, and the best of each merged. The result is
    /// the one ``fetchAll(_:)-(Connection)`` returns on the same data, ties included.
    ///
    /// ```swift
    /// let hits = try await Doc.nearest(to: queryVector, by: \.embedding, k: 10).fetchAll(database)
    /// ```
    /// Each span is read in its own snapshot (Debian's SQLite has no `sqlite3_snapshot_open` to
    /// share one), so a write that commits while the scan runs may be seen by some spans only;
    /// when the data must be read at one instant while writes go on, run the serial scan inside
    /// one `database.read`. A ranked row deleted or changed before its record is read throws
    /// ``RecordError/rowChanged(rowID:)``.
    ///
    /// Spans are as wide in rowids, not in rows: a table whose rowids cluster (many deleted in
    /// one range) gets uneven spans.
    /// - Parameters:
    ///   - database: the database whose readers scan (its writer, for one in memory).
    ///   - parallelism: how many spans, at most the pool's readers; the machine's active
    ///     processor count by default.
    /// - Throws: what ``fetchAll(_:)-(Connection)`` throws; ``RecordError/rowChanged(rowID:)``;
    ///   `DatabaseError.closed`; `CancellationError`.
    public func fetchAll(_ database: Database, parallelism: Int? = nil) async throws -> [(record: R, distance: Double)] {
        guard try checked() else { return [] }
        let spans = max(1, min(parallelism ?? ProcessInfo.processInfo.activeProcessorCount, database.readerPool.maximumConnectionCount))
        let query = self
        let table = SQLFragment.identifier(R.tableName)
        // The table's whole rowid range, whatever the conditions: two seeks at the b-tree's ends.
        // (One SELECT of both min and max would scan the table: SQLite seeks for one alone.)
        let bounds: ClosedRange<Int64>? = try await database.read { db in
            try runningTypedQuery(of: [R.self]) {
                let statement: SQLFragment = "SELECT (SELECT min(rowid) FROM \(table)), (SELECT max(rowid) FROM \(table))"
                let rows: [ClosedRange<Int64>?] = try db.query(literal: statement) { row in
                    let handle = row.statementHandle
                    guard sqlite3_column_type(handle, 0) != SQLITE_NULL else { return nil }
                    return sqlite3_column_int64(handle, 0)...sqlite3_column_int64(handle, 1)
                }
                return rows.first ?? nil
            }
        }
        guard let bounds else { return [] }
        let target = PreparedVectorTarget(self.target, metric: metric)
        let capacity = k
        let winners = try await withThrowingTaskGroup(of: [VectorCandidate].self) { group in
            for span in splitRowIDRange(bounds, into: spans) {
                group.addTask {
                    try await database.read { db in
                        var top = VectorTopK(capacity: capacity)
                        try query.scan(db, rowIDs: span, target: target, into: &top)
                        return top.nearestFirst
                    }
                }
            }
            var top = VectorTopK(capacity: capacity)
            for try await best in group { top.merge(best) }
            return top.nearestFirst
        }
        return try await database.read { db in try query.records(for: winners, db, checkingDistancesWith: target) }
    }
}
