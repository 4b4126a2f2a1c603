import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// Exact k-nearest-neighbour search over a record's `FloatVector` column, in two steps: a scan
// that reads only each row's rowid and vector BLOB (compared in place, never copied) into a top-k
// heap of (distance, rowid), then one SELECT of the k winners' records by rowid. Decoding a
// record per admitted row, as the first version did, cost more than the distances; the scan's
// rows can also be split into rowid ranges and scanned on several readers (RecordNearest+Parallel).

/// The `k` records nearest a vector, best first, with their distances: an exact scan (every row
/// the query's conditions keep is compared), so the answer is the true top `k`.
///
/// ```swift
/// let hits = try Doc.where { $0.lang == "en" }
///     .nearest(to: queryVector, by: \.embedding, metric: .cosine, k: 10)
///     .fetchAll(db)                                 // [(record: Doc, distance: Double)]
/// ```
/// Rows whose vector is NULL are skipped. Equal distances are ordered by rowid, ascending, so the
/// result does not depend on the order SQLite returns rows in. Build it with
/// `RecordQuery.nearest(to:by:metric:k:)` or `Record.nearest(to:by:metric:k:)`.
///
/// Most of a large scan's time is SQLite reading pages and stepping rows, not the distances;
/// `PRAGMA mmap_size` changes how pages are read, faster for some tables and slower for others
/// (see the VectorSearch article), so measure it on your data.
public struct NearestQuery<R: QueryableRecord>: Sendable {
    /// The query whose rows are ranked: its conditions apply, its order is replaced by distance.
    let base: RecordQuery<R>
    let column: TypedColumn<FloatVector?>
    /// The vector distances are measured from.
    public let target: FloatVector
    /// How distance is measured.
    public let metric: VectorMetric
    /// How many records at most.
    public let k: Int

    /// Narrows the rows ranked (conditions given several times must all hold).
    public func `where`(_ condition: (R.Columns) -> RecordPredicate) -> NearestQuery {
        NearestQuery(base: base.where(condition), column: column, target: target, metric: metric, k: k)
    }

    /// The base table's rowid, qualified as the query names the table.
    var rowIDColumn: SQLFragment { SQLFragment.column("rowid", table: base.qualifier) }

    /// The scan's SELECT: the vector and the rowid of each row the conditions keep, within
    /// `rowIDs` when given (one chunk of a parallel scan).
    func scanFragment(rowIDs: ClosedRange<Int64>? = nil) -> SQLFragment {
        var query = base
        if let rowIDs {
            let rowID = rowIDColumn
            query = query.modifyingParts { $0.addPredicate(RecordPredicate("\(rowID) BETWEEN \(rowIDs.lowerBound) AND \(rowIDs.upperBound)")) }
        }
        return query.queryParts.select([column.fragment, rowIDColumn].joined(separator: ", "), ordering: false, limiting: false)
    }

    /// The SELECT the scan runs, with `?` for its values (for logging and tests).
    public var sql: String { scanFragment().sql }

    /// Refuses what the scan cannot rank; false when nothing is asked for (`k` = 0).
    func checked() throws -> Bool {
        guard k >= 0 else { throw RecordError.unsupported("nearest(to:by:metric:k:) on \(R.self) takes k ≥ 0, not \(k)") }
        let parts = base.queryParts
        guard parts.limitCount == nil, parts.groups.isEmpty, parts.having == nil else {
            throw RecordError.unsupported("nearest(to:by:metric:k:) on \(R.self) takes a query without limit, group or having: k is its limit")
        }
        return k > 0
    }

    /// The nearest records, nearest first, with their distances. The scan and the read of the
    /// records run in one read transaction (the caller's, when one is open).
    /// - Throws: `VectorError.wrongDimension`,
    ///   `VectorError.malformedBlob` or `VectorError.nonFinite` for a
    ///   row whose vector is not one of the target's dimension; ``RecordError`` for a vector that
    ///   is not a BLOB or a row that does not map; ``RecordError`` for a negative `k`, or a
    ///   query with a limit, group or having (`k` is the limit); `SQLiteError`.
    public func fetchAll(_ db: Connection) throws -> [(record: R, distance: Double)] {
        guard try checked() else { return [] }
        let prepared = PreparedVectorTarget(target, metric: metric)
        let body = {
            var top = VectorTopK(capacity: k)
            try scan(db, rowIDs: nil, target: prepared, into: &top)
            return try records(for: top.nearestFirst, db)
        }
        return db.isInTransaction ? try body() : try db.transaction(transactionType: .deferred, closure: body)
    }

    /// The nearest rows with their rowids, nearest first (what hybrid search fuses by rowid),
    /// read in the caller's snapshot.
    func rankedEntries(_ db: Connection) throws -> [(rowID: Int64, record: R, distance: Double)] {
        guard try checked() else { return [] }
        var top = VectorTopK(capacity: k)
        try scan(db, rowIDs: nil, target: PreparedVectorTarget(target, metric: metric), into: &top)
        let candidates = top.nearestFirst
        return zip(candidates, try records(for: candidates, db)).map { (rowID: $0.rowID, record: $1.record, distance: $1.distance) }
    }

    /// Scans the rows the conditions keep (within `rowIDs` when given) into `top`.
    func scan(_ db: Connection, rowIDs: ClosedRange<Int64>?, target: PreparedVectorTarget, into top: inout VectorTopK) throws {
        let statement = scanFragment(rowIDs: rowIDs)
        let columnName = column.name
        let dimensions = target.dimensions
        let _: [Void] = try runningTypedQuery(of: [R.self]) {
            try db.query(literal: statement) { row in
                let handle = row.statementHandle
                let type = sqlite3_column_type(handle, 0)
                if type == SQLITE_NULL { return }
                guard type == SQLITE_BLOB else {
                    throw recordReadError(handle, 0, column: columnName, record: "\(R.self)", expected: FloatVector.self, optional: true)
                        ?? RecordError.nullInNonOptional(column: columnName, record: "\(R.self)")
                }
                // Read the BLOB in place: the bytes stay valid until the row is stepped past.
                let pointer = sqlite3_column_blob(handle, 0)
                let bytes = Int(sqlite3_column_bytes(handle, 0))
                if bytes != dimensions &* 4 {
                    let rowDimensions = try FloatVector.dimensions(ofBlobBytes: bytes)
                    throw VectorError.wrongDimension(expected: dimensions, actual: rowDimensions)
                }
                guard let pointer else { throw VectorError.malformedBlob(bytes: bytes, layout: .float32) }
                top.offer(distance: try target.distance(to: pointer), rowID: sqlite3_column_int64(handle, 1))
            }
        }
    }

    /// The records of `candidates` (ranked), read by rowid, with their distances. With
    /// `checkingDistancesWith`, each vector is compared again and a row whose distance changed
    /// since the scan throws (a parallel scan's spans and this read are separate snapshots).
    func records(
        for candidates: [VectorCandidate], _ db: Connection,
        checkingDistancesWith target: PreparedVectorTarget? = nil
    ) throws -> [(record: R, distance: Double)] {
        guard !candidates.isEmpty else { return [] }
        var byRowID: [Int64: (record: R, distance: Double?)] = [:]
        byRowID.reserveCapacity(candidates.count)
        let rowIDIndex = Int32(R.recordColumns.count)
        let rowID = rowIDColumn
        let list = [base.selectList, rowID, column.fragment].joined(separator: ", ")
        // Batches of rowids stay under SQLite's limit on bound values, whatever k is.
        for start in stride(from: 0, to: candidates.count, by: 500) {
            let batch = candidates[start..<min(start + 500, candidates.count)].map { SQLFragment.value($0.rowID) }
            let query = base.modifyingParts {
                $0.addPredicate(RecordPredicate("\(rowID) IN (\(batch, separator: ", "))"))
            }
            let _: [Void] = try runningTypedQuery(of: [R.self]) {
                try db.query(literal: query.queryParts.select(list, ordering: false, limiting: false)) { row in
                    let handle = row.statementHandle
                    var distance: Double?
                    if let target, sqlite3_column_type(handle, rowIDIndex + 1) == SQLITE_BLOB,
                        Int(sqlite3_column_bytes(handle, rowIDIndex + 1)) == target.dimensions &* 4,
                        let pointer = sqlite3_column_blob(handle, rowIDIndex + 1)
                    {
                        distance = try target.distance(to: pointer)
                    }
                    byRowID[sqlite3_column_int64(handle, rowIDIndex)] = (try R(columnOrderedRow: row), distance)
                }
            }
        }
        return try candidates.map { candidate in
            // Serially, the scan and this read share one snapshot, so a ranked row is always
            // there unchanged; a parallel scan's may not be, which is reported, never guessed.
            guard let found = byRowID[candidate.rowID], target == nil || found.distance == candidate.distance else {
                throw RecordError.rowChanged(rowID: candidate.rowID)
            }
            return (record: found.record, distance: candidate.distance)
        }
    }
}

extension RecordQuery {
    /// The `k` records nearest `vector` by the `FloatVector` column `column`, among the rows this
    /// query's conditions keep (see ``NearestQuery``).
    ///
    /// ```swift
    /// try Doc.where { $0.lang == "en" }.nearest(to: query, by: \.embedding, metric: .cosine, k: 10).fetchAll(db)
    /// ```
    public func nearest(
        to vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector>>,
        metric: VectorMetric = .l2, k: Int
    ) -> NearestQuery<R> {
        let typed = columns[keyPath: column]
        let optional = TypedColumn<FloatVector?>(typed.name, qualifier: typed.qualifier, record: typed.record)
        return NearestQuery(base: self, column: optional, target: vector, metric: metric, k: k)
    }

    /// The same, for an optional column: rows whose vector is NULL are skipped.
    public func nearest(
        to vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector?>>,
        metric: VectorMetric = .l2, k: Int
    ) -> NearestQuery<R> {
        NearestQuery(base: self, column: columns[keyPath: column], target: vector, metric: metric, k: k)
    }
}

extension Record {
    /// The `k` records nearest `vector` by the `FloatVector` column `column` (see ``NearestQuery``).
    public static func nearest(
        to vector: FloatVector, by column: KeyPath<Columns, TypedColumn<FloatVector>>,
        metric: VectorMetric = .l2, k: Int
    ) -> NearestQuery<Self> {
        all().nearest(to: vector, by: column, metric: metric, k: k)
    }

    /// The same, for an optional column: rows whose vector is NULL are skipped.
    public static func nearest(
        to vector: FloatVector, by column: KeyPath<Columns, TypedColumn<FloatVector?>>,
        metric: VectorMetric = .l2, k: Int
    ) -> NearestQuery<Self> {
        all().nearest(to: vector, by: column, metric: metric, k: k)
    }
}

/// The former name of ``RecordError`` for a ranked row gone before it was read
/// (``RecordError/rowChanged(rowID:)``).
public typealias NearestQueryError = RecordError
