import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// Searching an IVF index: probing the nearest lists, ranking pending rows, rescoring.
extension Connection {
    /// The `k` rows nearest `vector` among the `nprobe` lists whose centroids are nearest it,
    /// and every row written since the last ``updateIVFIndex(_:)``: approximate (a near row in
    /// an unprobed list is missed; more lists probed, better recall, slower), nearest first, ties
    /// by rowid (by the key map's ids over a keyed table). `among`, a `SELECT` of rowids, restricts the rows ranked. In a quantized index
    /// the `k × rescoring` best candidates by their codes are ranked again by their float32
    /// vectors, so the distances returned are exact. A stored vector with a NaN or an infinity
    /// has no distance: the index never files it and searches pass over it (the triggers refuse
    /// a vector of another size, but looking inside each one would slow every write; an exact
    /// scan of the table throws ``VectorError/nonFinite(index:)`` for it instead).
    /// - Throws: ``VectorIndexError``; ``VectorError/wrongDimension(expected:actual:)`` for a
    ///   query vector of another dimension; `SQLiteError`.
    public func searchIVFIndex(
        _ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int = 8,
        among rowIDs: SQLFragment? = nil
    ) throws -> [(rowID: Int64, distance: Double)] {
        // Its statements read one snapshot: a write committed between them cannot show a row twice.
        try strataSavepoint(named: "strata_ivf_search") {
            try searchIVFIndexInSnapshot(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring, among: rowIDs)
        }
    }

    /// ``searchIVFIndex(_:nearest:k:nprobe:rescoring:among:)`` for a caller already reading one
    /// snapshot (a table-valued function inside its statement).
    func searchIVFIndexInSnapshot(
        _ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int = 8,
        among rowIDs: SQLFragment? = nil
    ) throws -> [(rowID: Int64, distance: Double)] {
        guard let probe = try ivfProbe(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring) else { return [] }
        // Pending rows are ranked from the table itself, and their filed entries skipped.
        let skipped = try IVFBuilder.pendingRows(of: probe.index, self)
        let allowed = try rowIDs.map { try IVFBuilder.rowIDs(selectedBy: $0, in: probe.index, self) }
        let pendingBest = try rankPendingRows(probe, among: rowIDs)
        // Entries of rows gone without their delete trigger (a REPLACE through another UNIQUE
        // column) are skipped once found, and the lists ranked again: rare, so checked on the
        // winners only.
        var gone = Set<Int64>()
        while true {
            let candidates = try rankFiledEntries(probe, chunks: nil, excluding: skipped, gone, allowed: allowed)
            let settled = try settle(probe, candidates: candidates, pendingBest: pendingBest)
            if settled.missing.isEmpty { return try IVFBuilder.tableRowIDs(settled.ranked, probe.index, self) }
            gone.formUnion(settled.missing)
        }
    }

    /// What a search reads before any list: the index, its probed lists, how many candidates a
    /// scan keeps; nil for `k: 0`.
    func ivfProbe(_ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int) throws -> IVFProbe? {
        guard k >= 0 else { throw VectorIndexError.invalidOption("k \(k) is below 0") }
        guard nprobe >= 1 else { throw VectorIndexError.invalidOption("nprobe \(nprobe) is below 1") }
        guard rescoring >= 1 else { throw VectorIndexError.invalidOption("rescoring \(rescoring) is below 1") }
        let index = try ivfIndex(named: name)
        guard vector.dimensions == index.dimensions else {
            throw VectorError.wrongDimension(expected: index.dimensions, actual: vector.dimensions)
        }
        guard k > 0 else { return nil }
        let centroids = try IVFBuilder.centroids(of: index, self)
        let probed = vector.values.withUnsafeBytes { query in
            IVFBuilder.nearestLists(query.baseAddress!, centroids: centroids, dimensions: index.dimensions, metric: index.metric, count: nprobe)
        }
        let capacity = index.quantization == .none ? k : (k > Int.max / rescoring ? Int.max : k * rescoring)
        return IVFProbe(index: index, vector: vector, lists: probed.map { Int64($0) }, k: k, capacity: capacity)
    }

    /// The best pending rows (written since the last update), ranked exactly from the table.
    func rankPendingRows(_ probe: IVFProbe, among rowIDs: SQLFragment?) throws -> VectorTopK {
        let index = probe.index
        let restriction: SQLFragment = rowIDs.map { " AND \(index.tableRowID) IN (\($0))" } ?? ""
        let pending: SQLFragment =
            "SELECT \(index.rowID), t.\(identifier: index.column) FROM \(index.pendingSource) WHERE t.\(identifier: index.column) IS NOT NULL" + restriction
        var best = VectorTopK(capacity: probe.k)
        try IVFBuilder.scanFloat(pending, probe.vector, index, self) { best.offer(distance: $0, rowID: $1) }
        return best
    }

    /// The best `probe.capacity` filed entries of the probed lists (of the chunks whose rowids
    /// are in `chunks`, when given), by exact distance or, in a quantized index, by their codes;
    /// rows in `excluded` or `gone`, or not `allowed`, are passed over.
    func rankFiledEntries(
        _ probe: IVFProbe, chunks: ClosedRange<Int64>?, excluding excluded: Set<Int64>, _ gone: Set<Int64> = [],
        allowed: Set<Int64>?
    ) throws -> VectorTopK {
        let index = probe.index
        let lists = probe.lists.map { SQLFragment.value($0) }.joined(separator: ", ")
        let span: SQLFragment = chunks.map { " AND rowid BETWEEN \($0.lowerBound) AND \($0.upperBound)" } ?? ""
        let filed: SQLFragment = "SELECT \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE list IN (\(lists))" + span
        var best = VectorTopK(capacity: probe.capacity)
        // Most searches skip nothing: then no row is hashed.
        let filtering = !excluded.isEmpty || !gone.isEmpty || allowed != nil
        func counts(_ row: Int64) -> Bool {
            !filtering || (!excluded.contains(row) && !gone.contains(row) && allowed?.contains(row) != false)
        }
        if index.quantization == .none {
            let prepared = PreparedVectorTarget(probe.vector, metric: index.metric)
            try IVFBuilder.scanChunks(filed, index, self) { row, code in
                if counts(row) { best.offer(distance: try prepared.distance(to: code), rowID: row) }
            }
        } else {
            try IVFBuilder.scanCodes(filed, probe.vector, index, self) { distance, row in
                if counts(row) { best.offer(distance: distance, rowID: row) }
            }
        }
        return best
    }

    /// The `k` winners from the filed candidates and the pending rows' best, with the rows among
    /// them the table no longer has (a REPLACE through another UNIQUE column removes a row
    /// without its delete trigger): the caller ranks again without those. A quantized index's
    /// candidates are ranked again by their float32 vectors, so every distance returned is exact.
    func settle(
        _ probe: IVFProbe, candidates: VectorTopK, pendingBest: VectorTopK
    ) throws
        -> (ranked: [(rowID: Int64, distance: Double)], missing: [Int64])
    {
        let index = probe.index
        var best = pendingBest
        let candidateRows = candidates.nearestFirst.map(\.rowID)
        if index.quantization == .none {
            best.merge(candidates.nearestFirst)
            let winners = best.nearestFirst
            let present = try IVFBuilder.existingRows(winners.map(\.rowID), in: index, self)
            return (winners.map { ($0.rowID, $0.distance) }, winners.map(\.rowID).filter { !present.contains($0) })
        }
        // A gone row has no vector left to read, so it drops out here, and took the place of a
        // candidate that has one.
        var rescoredRows = Set<Int64>()
        for start in stride(from: 0, to: candidateRows.count, by: 500) {
            let slice = candidateRows[start..<min(start + 500, candidateRows.count)].map { SQLFragment.value($0) }.joined(separator: ", ")
            let rescored: SQLFragment =
                "SELECT \(index.rowID), t.\(identifier: index.column) FROM \(index.rowSource) WHERE \(index.rowID) IN (\(slice)) AND t.\(identifier: index.column) IS NOT NULL"
            try IVFBuilder.scanFloat(rescored, probe.vector, index, self) { distance, row in
                best.offer(distance: distance, rowID: row)
                rescoredRows.insert(row)
            }
        }
        return (best.nearestFirst.map { ($0.rowID, $0.distance) }, candidateRows.filter { !rescoredRows.contains($0) })
    }

    /// How many times ``updateIVFIndex(_:)`` has rewritten the index's chunks (0 for an index
    /// built before it counted, until its next update).
    func ivfGeneration(_ index: IVFIndex) throws -> Int64 {
        guard try hasIVFGeneration(index) else { return 0 }
        return try query(literal: "SELECT generation FROM main.\(identifier: index.configTable) WHERE id = 1") ?? 0
    }

    func hasIVFGeneration(_ index: IVFIndex) throws -> Bool {
        try schemaReader.columns(ofTable: index.configTable).contains { sameIdentifier($0.name, "generation") }
    }

    /// The lowest and highest rowid of the index's chunks, or nil when it has none: two seeks.
    func ivfChunkBounds(_ index: IVFIndex) throws -> ClosedRange<Int64>? {
        let entries = SQLFragment.identifier(index.entriesTable)
        let rows: [ClosedRange<Int64>?] = try query(literal: "SELECT (SELECT min(rowid) FROM main.\(entries)), (SELECT max(rowid) FROM main.\(entries))") {
            row in
            let handle = row.statementHandle
            guard sqlite3_column_type(handle, 0) != SQLITE_NULL else { return nil }
            return sqlite3_column_int64(handle, 0)...sqlite3_column_int64(handle, 1)
        }
        return rows.first ?? nil
    }
}

/// A search's plan, read once and handed to the readers of a parallel search.
struct IVFProbe: Sendable {
    let index: IVFIndex
    let vector: FloatVector
    /// The probed lists, best first.
    let lists: [Int64]
    let k: Int
    /// How many candidates a scan of the lists keeps: `k`, or `k × rescoring` for codes.
    let capacity: Int
}

extension VectorTopK {
    /// The kept candidates, nearest first, as (rowid, distance) pairs.
    var ranked: [(rowID: Int64, distance: Double)] { nearestFirst.map { (rowID: $0.rowID, distance: $0.distance) } }
}
