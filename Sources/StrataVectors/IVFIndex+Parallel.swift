import Foundation
import StrataCore

// An IVF search across the reader pool: the probed lists' chunks split into rowid spans, each
// span ranked on its own reader, the spans' best merged under the search's total order
// (distance, then rowid) and settled with the pending rows on one more read. For a flat index
// (`lists: 1`) that is an exact search split across cores, reading the index's chunks rather
// than the table's rows.

extension Database {
    /// ``Connection/searchIVFIndex(_:nearest:k:nprobe:rescoring:among:)`` with the probed lists
    /// ranked in parallel on the reader pool: their chunks are split into `parallelism` rowid
    /// spans, each ranked on its own reader, and the best of each merged. On a database nobody
    /// writes meanwhile, the result is the serial search's, ties included.
    ///
    /// ```swift
    /// try await database.write { db in try db.createIVFIndex("doc_flat", on: "doc", column: "embedding", options: IVFIndexOptions(lists: 1)) }
    /// let exact = try await database.searchIVFIndex("doc_flat", nearest: query, k: 10, nprobe: 1)
    /// ```
    /// Each span is read in its own snapshot (Debian's SQLite has no `sqlite3_snapshot_open` to
    /// share one), and the pending rows once more at the end. An update of the index, or a
    /// ranked row written, while the spans were read is noticed there, and that read then
    /// searches again on its own; other writes committed meanwhile may be seen by some reads
    /// only. A row never comes back twice. When the answer must be of one instant while writes
    /// go on, run the serial search inside one `database.read`.
    /// - Parameters:
    ///   - name: the index.
    ///   - vector: the query, of the index's dimension.
    ///   - k: how many rows at most.
    ///   - nprobe: how many lists, nearest centroids first.
    ///   - rescoring: for a quantized index, how many candidates per row returned are ranked again.
    ///   - rowIDs: a `SELECT` of the rowids that may be returned; nil for all.
    ///   - parallelism: how many spans, at most the pool's readers; the machine's active
    ///     processor count by default.
    /// - Throws: what the serial search throws; ``SQLiteError/closed``; `CancellationError`.
    public func searchIVFIndex(
        _ name: String, nearest vector: FloatVector, k: Int, nprobe: Int, rescoring: Int = 8,
        among rowIDs: SQLFragment? = nil, parallelism: Int? = nil
    ) async throws -> [(rowID: Int64, distance: Double)] {
        let spanCount = max(1, min(parallelism ?? ProcessInfo.processInfo.activeProcessorCount, readerPool.maximumConnectionCount))
        let plan: (probe: IVFProbe, chunks: ClosedRange<Int64>?, generation: Int64)? = try await read { db in
            try db.strataSavepoint(named: "strata_ivf_search") {
                guard let probe = try db.ivfProbe(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring) else { return nil }
                return (probe, try db.ivfChunkBounds(probe.index), try db.ivfGeneration(probe.index))
            }
        }
        guard let plan else { return [] }
        guard spanCount > 1, let chunks = plan.chunks else {
            return try await read { db in try db.searchIVFIndex(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring, among: rowIDs) }
        }
        let probe = plan.probe
        // The first and last spans are open-ended: an update that rewrites chunks between the
        // plan and a span's read files them above the planned bounds.
        var spans = splitRowIDRange(chunks, into: spanCount)
        spans[0] = Int64.min...spans[0].upperBound
        spans[spans.count - 1] = spans[spans.count - 1].lowerBound...Int64.max
        let generation = plan.generation
        let ranked = try await withThrowingTaskGroup(of: (best: [VectorCandidate], skipped: Set<Int64>, generation: Int64).self) { group in
            for span in spans {
                group.addTask {
                    try await self.read { db in
                        // The span's chunks and the rows they skip, read in one snapshot.
                        try db.strataSavepoint(named: "strata_ivf_search") {
                            let skipped = try IVFBuilder.pendingRows(of: probe.index, db)
                            let allowed = try rowIDs.map { try IVFBuilder.rowIDs(selectedBy: $0, in: probe.index, db) }
                            return (
                                try db.rankFiledEntries(probe, chunks: span, excluding: skipped, allowed: allowed).nearestFirst, skipped,
                                try db.ivfGeneration(probe.index)
                            )
                        }
                    }
                }
            }
            var top = VectorTopK(capacity: probe.capacity)
            var skipped = Set<Int64>()
            var sameGeneration = true
            for try await span in group {
                top.merge(span.best)
                skipped.formUnion(span.skipped)
                sameGeneration = sameGeneration && span.generation == generation
            }
            return (candidates: top.nearestFirst, skipped: skipped, sameGeneration: sameGeneration)
        }
        return try await read { db in
            try db.strataSavepoint(named: "strata_ivf_search") {
                // The index changed while the spans were read when an update rewrote its chunks
                // (its generation moved), a row a span skipped as pending is no longer pending,
                // or a candidate is pending now, or was found in two chunks. This read then
                // searches again in one snapshot. So it does when a row gone without its
                // delete trigger took a winner's place (the serial search ranks again without
                // it). All are rare.
                let pending = try IVFBuilder.pendingRows(of: probe.index, db)
                guard ranked.sameGeneration, try db.ivfGeneration(probe.index) == generation, ranked.skipped.isSubset(of: pending) else {
                    return try db.searchIVFIndexInSnapshot(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring, among: rowIDs)
                }
                var seen = Set<Int64>()
                var filed = VectorTopK(capacity: probe.capacity)
                for candidate in ranked.candidates {
                    guard !pending.contains(candidate.rowID), seen.insert(candidate.rowID).inserted else {
                        return try db.searchIVFIndexInSnapshot(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring, among: rowIDs)
                    }
                    filed.offer(distance: candidate.distance, rowID: candidate.rowID)
                }
                let settled = try db.settle(probe, candidates: filed, pendingBest: try db.rankPendingRows(probe, among: rowIDs))
                if settled.missing.isEmpty { return try IVFBuilder.tableRowIDs(settled.ranked, probe.index, db) }
                return try db.searchIVFIndexInSnapshot(name, nearest: vector, k: k, nprobe: nprobe, rescoring: rescoring, among: rowIDs)
            }
        }
    }
}
