import Foundation

// Approximate nearest neighbours through an IVF index (Strata's `createIVFIndex`): the same typed
// query as the exact `nearest`, answered from the lists nearest the query vector.

/// A nearest-neighbour query answered by an IVF index: approximate, nearest first.
///
/// ```swift
/// try Doc.createIVFIndex(db, named: "doc_ivf", on: \.embedding, options: IVFIndexOptions(metric: .cosine))
/// let hits = try Doc.where { $0.lang == "en" }
///     .nearest(to: query, by: \.embedding, metric: .cosine, k: 10)
///     .probing("doc_ivf", nprobe: 8)
///     .fetchAll(db)                                  // [(record: Doc, distance: Double)]
/// ```
/// The query's conditions restrict the rows ranked inside the probed lists, so a filtered
/// search still returns up to `k` rows when the lists hold them. Rows written since the last
/// `updateIVFIndex` are ranked exactly.
public struct ProbingNearestQuery<R: QueryableRecord>: Sendable {
    let nearest: NearestQuery<R>
    /// The IVF index searched.
    public let index: String
    /// How many lists are searched.
    public let nprobe: Int
    /// In a quantized index, how many candidates per result are rescored by their float32 vectors.
    public let rescoring: Int

    /// The nearest records the probed lists hold, nearest first, with their distances.
    /// - Throws: ``RecordError`` when the index is over another table, column or metric, a
    ///   TEMP table hides its table, or the query has a limit, group or having; `VectorIndexError`; `VectorError`; `SQLiteError`.
    public func fetchAll(_ db: Connection) throws -> [(record: R, distance: Double)] {
        let base = nearest.base
        let parts = base.queryParts
        guard parts.limitCount == nil, parts.groups.isEmpty, parts.having == nil else {
            throw RecordError.unsupported("probing(_:nprobe:) on \(R.self) takes a query without limit, group or having: k is its limit")
        }
        guard nearest.k >= 0 else { throw RecordError.unsupported("nearest(to:by:metric:k:) on \(R.self) takes k ≥ 0, not \(nearest.k)") }
        let ivf = try db.ivfIndex(named: index)
        // The index ranks main's rows; the filter and the records would be read from a TEMP
        // table of the same name, which hides main's from unqualified SQL.
        guard try !db.schemaReader.temporaryTableOrViewExists(named: R.tableName) else {
            throw RecordError.unsupported("a TEMP table or view named \(R.tableName) hides the table the IVF index \(index) is over")
        }
        guard sameIdentifier(ivf.table, R.tableName), sameIdentifier(ivf.column, nearest.column.name) else {
            throw RecordError.unsupported("the IVF index \(index) is over \(ivf.table).\(ivf.column), not \(R.tableName).\(nearest.column.name)")
        }
        guard ivf.metric == nearest.metric else {
            throw RecordError.unsupported("the IVF index \(index) ranks by \(ivf.metric.rawValue), and this query by \(nearest.metric.rawValue)")
        }
        let restriction =
            parts.predicate == nil
            ? nil
            : base.queryParts.select(.column("rowid", table: base.qualifier), ordering: false, limiting: false)
        // The search and the records read one snapshot.
        return try db.strataSavepoint(named: "strata_ivf_records") {
            let found = try db.searchIVFIndex(index, nearest: nearest.target, k: nearest.k, nprobe: nprobe, rescoring: rescoring, among: restriction)
            let records = try base.records(rowIDs: found.map(\.rowID), db)
            return found.compactMap { hit in records[hit.rowID].map { (record: $0, distance: hit.distance) } }
        }
    }
}

extension NearestQuery {
    /// The same query answered by the IVF index `index`, searching the `nprobe` lists whose
    /// centroids are nearest the query vector (see ``ProbingNearestQuery``); in a quantized
    /// index the `k × rescoring` best candidates by their codes are ranked again exactly.
    public func probing(_ index: String, nprobe: Int = 8, rescoring: Int = 8) -> ProbingNearestQuery<R> {
        ProbingNearestQuery(nearest: self, index: index, nprobe: nprobe, rescoring: rescoring)
    }
}

extension Record {
    /// Builds an IVF index named `name` over the `FloatVector` column `column` (see
    /// `Connection.createIVFIndex(_:on:column:options:)`).
    @discardableResult
    public static func createIVFIndex(
        _ db: Connection, named name: String, on column: KeyPath<Columns, TypedColumn<FloatVector>>,
        options: IVFIndexOptions = IVFIndexOptions()
    ) throws -> IVFIndex {
        try db.createIVFIndex(name, on: tableName, column: columns[keyPath: column].name, options: options)
    }

    /// The same, for an optional column (rows whose vector is NULL are not indexed).
    @discardableResult
    public static func createIVFIndex(
        _ db: Connection, named name: String, on column: KeyPath<Columns, TypedColumn<FloatVector?>>,
        options: IVFIndexOptions = IVFIndexOptions()
    ) throws -> IVFIndex {
        try db.createIVFIndex(name, on: tableName, column: columns[keyPath: column].name, options: options)
    }
}
