import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

// Hybrid search: an FTS5 match and an exact vector search over the same rows, fused by
// reciprocal rank. Both lists are ranked under the query's conditions and fused by rowid (an
// FTS5 index over a record's table shares its rowids, as an external-content index does), so
// the fusion is the one a hand-written `FULL OUTER JOIN` of the two ranked lists computes.

/// How hybrid search merges its two ranked lists.
public struct HybridFusion: Sendable, Hashable {
    /// The rank constant: a row at rank `r` (from 1) in a list scores `weight / (k + r)`.
    public let k: Int
    /// The text list's weight.
    public let textWeight: Double
    /// The vector list's weight.
    public let vectorWeight: Double

    /// Reciprocal rank fusion: a row's score is `textWeight / (k + textRank) + vectorWeight /
    /// (k + vectorRank)`, a list the row is absent from adding nothing. `k = 60` is the usual
    /// constant; a smaller `k` favours the top of each list more.
    public static func reciprocalRank(k: Int = 60, textWeight: Double = 1, vectorWeight: Double = 1) -> HybridFusion {
        HybridFusion(k: k, textWeight: textWeight, vectorWeight: vectorWeight)
    }

    /// The score of ranks (from 1) in each list, nil where the row is absent; the text term first,
    /// as `coalesce(…) + coalesce(…)` adds them in SQL, so both give the same Double.
    func score(textRank: Int?, vectorRank: Int?) -> Double {
        // Added as Doubles, so a huge `k` cannot overflow; exact for any rank SQLite can count.
        let text = textRank.map { textWeight / (Double(k) + Double($0)) } ?? 0
        let vector = vectorRank.map { vectorWeight / (Double(k) + Double($0)) } ?? 0
        return text + vector
    }
}

/// One result of a hybrid search: the record, its fused score (larger is better) and where it
/// stood in each list.
public struct HybridMatch<R> {
    /// The record.
    public let record: R
    /// The fused score; results are ordered by it, largest first, then by rowid.
    public let score: Double
    /// The record's rank (from 1) among the text matches, nil when it was not among them.
    public let textRank: Int?
    /// The record's rank (from 1) among the nearest vectors, nil when it was not among them.
    public let vectorRank: Int?
    /// The vector's distance from the query vector, when the record was among the nearest.
    public let distance: Double?
}

extension HybridMatch: Sendable where R: Sendable {}
extension HybridMatch: Equatable where R: Equatable {}

/// A full-text match and a vector search over one record's rows, fused into one ranking.
///
/// ```swift
/// let hits = try Doc.where { $0.lang == "en" }
///     .hybridSearch(matching: FTS5Pattern(matchingAllTokensIn: text), in: DocText.self,
///                   nearest: queryVector, by: \.embedding, metric: .cosine, k: 10)
///     .fetchAll(db)                    // [HybridMatch<Doc>]: record, score, textRank, vectorRank
/// ```
/// The text list is the FTS5 table's matches among the rows the query's conditions keep, best
/// `rank` first; the vector list is ``NearestQuery``'s exact scan of the same rows. Each list
/// contributes its best `candidates` rows (`k` unless given), fused by ``HybridFusion`` (reciprocal
/// rank, k = 60). The FTS5 index is over the record's table: either an external-content index
/// under the table's rowids (`.external(table:rowID:)`, for an integer key), or a keyed one
/// (`.externalByKey(table:key:)`, for a TEXT key such as a synced table's), whose map is joined
/// back to the record by its primary key. Ties in a list go by rowid (the index's, for the text
/// list), and so do ties in the fused score, so the result does not depend on scan order.
public struct HybridQuery<R: QueryableRecord>: Sendable {
    let base: RecordQuery<R>
    /// The FTS5 table searched.
    public let textTable: String
    /// The text pattern; nil (user text without a token) matches nothing, leaving the vector list.
    public let pattern: FTS5Pattern?
    let nearest: NearestQuery<R>
    /// How many results at most.
    public let k: Int
    /// How many of each list's best rows are fused.
    public let candidates: Int
    /// How the lists are fused.
    public let fusion: HybridFusion

    /// Narrows the rows both lists rank (conditions given several times must all hold).
    public func `where`(_ condition: (R.Columns) -> RecordPredicate) -> HybridQuery {
        let narrowed = base.where(condition)
        return HybridQuery(
            base: narrowed, textTable: textTable, pattern: pattern,
            nearest: NearestQuery(
                base: narrowed, column: nearest.column, target: nearest.target,
                metric: nearest.metric, k: nearest.k),
            k: k, candidates: candidates, fusion: fusion)
    }

    /// The text list's SELECT: the rowids of matched rows among those the query keeps, best rank
    /// first. Over a keyed index (``FTS5Options/Content/externalByKey(table:key:)``) the index's
    /// rowids are the key map's, joined back to the record's rows by its primary key.
    func textSelect(keySource: (table: String, key: String)?) throws -> SQLFragment? {
        guard let pattern else { return nil }
        let index = SQLFragment.identifier(textTable)
        let indexRowID = SQLFragment.column("rowid", table: textTable)
        let order: SQLFragment = "ORDER BY \(SQLFragment.column("rank", table: textTable)), \(indexRowID) LIMIT \(Int64(candidates))"
        let recordRowID = SQLFragment.column("rowid", table: base.qualifier)
        guard let keySource else {
            let keptRows = base.queryParts.select(recordRowID, ordering: false, limiting: false)
            return "SELECT \(indexRowID) FROM \(index) WHERE \(index) MATCH \(pattern) AND \(indexRowID) IN (\(keptRows)) \(order)"
        }
        guard sameIdentifier(keySource.table, R.tableName) else {
            throw RecordError.unsupported("hybridSearch on \(R.self): the keyed index \(textTable) is over \(keySource.table), not \(R.tableName)")
        }
        let keyColumn = SQLFragment.column(keySource.key, table: base.qualifier)
        let kept = base.queryParts.select(
            "\(recordRowID) AS \(SQLFragment.identifier("strata_rowid")), \(keyColumn) AS \(SQLFragment.identifier("strata_key"))",
            ordering: false, limiting: false)
        let map = SQLFragment.identifier(Connection.fts5KeyMapTable(textTable))
        return """
            SELECT "strata_kept"."strata_rowid" FROM \(index) JOIN \(map) AS "strata_map" ON "strata_map".\(SQLFragment.identifier(Connection.fts5KeyMapIDColumn)) = \(indexRowID) \
            JOIN (\(kept)) AS "strata_kept" ON "strata_kept"."strata_key" = "strata_map"."key" \
            WHERE \(index) MATCH \(pattern) \(order)
            """
    }

    /// The fused results, best first.
    /// - Throws: ``RecordError`` for a negative `k` or `candidates`, a negative fusion
    ///   constant, or a query with a limit, group or having; what ``NearestQuery/fetchAll(_:)``
    ///   throws for the vectors; `SQLiteError` (no such FTS5 table, a malformed pattern).
    public func fetchAll(_ db: Connection) throws -> [HybridMatch<R>] {
        guard k >= 0, candidates >= 0 else {
            throw RecordError.unsupported("hybridSearch on \(R.self) takes k ≥ 0 and candidates ≥ 0, not k = \(k), candidates = \(candidates)")
        }
        guard fusion.k >= 0, fusion.textWeight.isFinite, fusion.vectorWeight.isFinite else {
            throw RecordError.unsupported("hybridSearch on \(R.self) takes a fusion constant ≥ 0 and finite weights")
        }
        let parts = base.queryParts
        guard parts.limitCount == nil, parts.groups.isEmpty, parts.having == nil else {
            throw RecordError.unsupported("hybridSearch on \(R.self) takes a query without limit, group or having: k is its limit")
        }
        guard k > 0, candidates > 0 else { return [] }

        // Its statements read one snapshot: a row written between them cannot be half seen.
        return try db.strataSavepoint(named: "strata_hybrid") { try fetchInSnapshot(db) }
    }

    private func fetchInSnapshot(_ db: Connection) throws -> [HybridMatch<R>] {
        let textRowIDs: [Int64] = try textSelect(keySource: pattern == nil ? nil : db.fts5KeySource(textTable)).map { try db.query(literal: $0) } ?? []
        let vectorEntries = try nearest.rankedEntries(db)

        var textRanks: [Int64: Int] = [:]
        for (offset, rowID) in textRowIDs.enumerated() where textRanks[rowID] == nil { textRanks[rowID] = offset + 1 }
        var vectorRanks: [Int64: (rank: Int, entry: (rowID: Int64, record: R, distance: Double))] = [:]
        for (offset, entry) in vectorEntries.enumerated() { vectorRanks[entry.rowID] = (offset + 1, entry) }

        let ranked = Set(textRanks.keys).union(vectorRanks.keys).map { rowID in
            (rowID: rowID, score: fusion.score(textRank: textRanks[rowID], vectorRank: vectorRanks[rowID]?.rank))
        }
        .sorted { ($0.score, $1.rowID) > ($1.score, $0.rowID) }
        .prefix(k)

        // Rows found only by text are read once, together, under the query's conditions.
        let textOnly = ranked.map(\.rowID).filter { vectorRanks[$0] == nil }
        let textRecords = try base.records(rowIDs: textOnly, db)
        return try ranked.map { hit in
            let vector = vectorRanks[hit.rowID]
            guard let record = vector?.entry.record ?? textRecords[hit.rowID] else {
                throw RecordError.unsupported("hybridSearch on \(R.self): the row with rowid \(hit.rowID) changed while it was read")
            }
            return HybridMatch(
                record: record, score: hit.score, textRank: textRanks[hit.rowID],
                vectorRank: vector?.rank, distance: vector?.entry.distance)
        }
    }
}

extension RecordQuery {
    /// The `k` best records by an FTS5 match in `textIndex` and nearness to `vector` by the
    /// `FloatVector` column `column`, fused by reciprocal rank, among the rows this query's
    /// conditions keep (see ``HybridQuery``).
    ///
    /// ```swift
    /// try Doc.all().hybridSearch(matching: pattern, in: DocText.self, nearest: q, by: \.embedding, k: 10).fetchAll(db)
    /// ```
    public func hybridSearch<T: QueryableRecord>(
        matching pattern: FTS5Pattern?, in textIndex: T.Type,
        nearest vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector>>,
        metric: VectorMetric = .l2, k: Int, candidates: Int? = nil,
        fusion: HybridFusion = .reciprocalRank()
    ) -> HybridQuery<R> {
        hybridSearch(
            matching: pattern, inTable: T.tableName, nearest: nearest(to: vector, by: column, metric: metric, k: candidates ?? k),
            k: k, candidates: candidates ?? k, fusion: fusion)
    }

    /// The same, for an optional vector column: rows whose vector is NULL can still match by text.
    public func hybridSearch<T: QueryableRecord>(
        matching pattern: FTS5Pattern?, in textIndex: T.Type,
        nearest vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector?>>,
        metric: VectorMetric = .l2, k: Int, candidates: Int? = nil,
        fusion: HybridFusion = .reciprocalRank()
    ) -> HybridQuery<R> {
        hybridSearch(
            matching: pattern, inTable: T.tableName, nearest: nearest(to: vector, by: column, metric: metric, k: candidates ?? k),
            k: k, candidates: candidates ?? k, fusion: fusion)
    }

    /// The same, naming the FTS5 table instead of a record over it.
    public func hybridSearch(
        matching pattern: FTS5Pattern?, inTable textTable: String,
        nearest vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector>>,
        metric: VectorMetric = .l2, k: Int, candidates: Int? = nil,
        fusion: HybridFusion = .reciprocalRank()
    ) -> HybridQuery<R> {
        hybridSearch(
            matching: pattern, inTable: textTable, nearest: nearest(to: vector, by: column, metric: metric, k: candidates ?? k),
            k: k, candidates: candidates ?? k, fusion: fusion)
    }

    /// The same, naming the FTS5 table, for an optional vector column.
    public func hybridSearch(
        matching pattern: FTS5Pattern?, inTable textTable: String,
        nearest vector: FloatVector, by column: KeyPath<R.Columns, TypedColumn<FloatVector?>>,
        metric: VectorMetric = .l2, k: Int, candidates: Int? = nil,
        fusion: HybridFusion = .reciprocalRank()
    ) -> HybridQuery<R> {
        hybridSearch(
            matching: pattern, inTable: textTable, nearest: nearest(to: vector, by: column, metric: metric, k: candidates ?? k),
            k: k, candidates: candidates ?? k, fusion: fusion)
    }

    private func hybridSearch(
        matching pattern: FTS5Pattern?, inTable textTable: String, nearest: NearestQuery<R>,
        k: Int, candidates: Int, fusion: HybridFusion
    ) -> HybridQuery<R> {
        HybridQuery(base: self, textTable: textTable, pattern: pattern, nearest: nearest, k: k, candidates: candidates, fusion: fusion)
    }
}

extension Record {
    /// The `k` best records by an FTS5 match and nearness to a vector, fused by reciprocal rank
    /// (see ``HybridQuery``).
    public static func hybridSearch<T: QueryableRecord>(
        matching pattern: FTS5Pattern?, in textIndex: T.Type,
        nearest vector: FloatVector, by column: KeyPath<Columns, TypedColumn<FloatVector>>,
        metric: VectorMetric = .l2, k: Int, candidates: Int? = nil,
        fusion: HybridFusion = .reciprocalRank()
    ) -> HybridQuery<Self> {
        all().hybridSearch(
            matching: pattern, in: textIndex, nearest: vector, by: column, metric: metric, k: k,
            candidates: candidates, fusion: fusion)
    }

    /// The same, for an optional vector column.
    public static func hybridSearch<T: QueryableRecord>(
        matching pattern: FTS5Pattern?, in textIndex: T.Type,
        nearest vector: FloatVector, by column: KeyPath<Columns, TypedColumn<FloatVector?>>,
        metric: VectorMetric = .l2, k: Int, candidates: Int? = nil,
        fusion: HybridFusion = .reciprocalRank()
    ) -> HybridQuery<Self> {
        all().hybridSearch(
            matching: pattern, in: textIndex, nearest: vector, by: column, metric: metric, k: k,
            candidates: candidates, fusion: fusion)
    }
}

extension RecordQuery {
    /// The records with these rowids among the rows the query keeps, keyed by rowid (read in one
    /// statement: what a search found by rowid, decoded once).
    func records(rowIDs: [Int64], _ db: Connection) throws -> [Int64: R] {
        let rowID = SQLFragment.column("rowid", table: qualifier)
        let rowIDIndex = Int32(R.recordColumns.count)
        var found: [Int64: R] = [:]
        // In slices, under SQLite's limit on bound values in one statement.
        for start in stride(from: 0, to: rowIDs.count, by: 500) {
            let markers = rowIDs[start..<min(start + 500, rowIDs.count)].map { SQLFragment.value($0) }.joined(separator: ", ")
            var parts = queryParts
            parts.addPredicate(RecordPredicate("\(rowID) IN (\(markers))"))
            let statement = parts.select([selectList, rowID].joined(separator: ", "), ordering: false, limiting: false)
            let _: [Void] = try runningTypedQuery(of: [R.self]) {
                try db.query(literal: statement) { row in
                    found[sqlite3_column_int64(row.statementHandle, rowIDIndex)] = try R(columnOrderedRow: row)
                }
            }
        }
        return found
    }
}
