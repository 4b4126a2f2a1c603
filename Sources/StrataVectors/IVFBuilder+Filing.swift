import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// Filing vectors into their lists' chunks, and the chunks' rows.
extension IVFBuilder {
    /// How many vectors a chunk of a list holds at most. A probe steps one SQLite row per chunk,
    /// not per vector: stepping rows, not computing distances, was most of a probe's time.
    static let chunkCapacity = 256

    /// The bytes of one filed code: float32 as in the table, int8 with its scale, or bits.
    static func codeBytes(_ index: IVFIndex) -> Int {
        switch index.quantization {
        case .none: index.dimensions * 4
        case .int8: index.dimensions + 4
        case .bit: (index.dimensions + 7) / 8
        }
    }

    /// Files each vector under its nearest centroid: appended to its list's last chunk while it
    /// has room, then in new chunks.
    static func file(_ vectors: Vectors, into index: IVFIndex, centroids: [Float], _ db: Connection) throws {
        guard vectors.count > 0 else { return }
        let bytes = index.dimensions * 4
        var byList: [Int: [Int]] = [:]
        vectors.components.withUnsafeBytes { components in
            centroids.withUnsafeBytes { centres in
                guard let first = components.baseAddress, let centre = centres.baseAddress else { return }
                for position in 0..<vectors.count {
                    let list = nearestList(
                        first + position * bytes, centroids: centre, lists: index.lists,
                        dimensions: index.dimensions, metric: index.metric)
                    byList[list, default: []].append(position)
                }
            }
        }
        for (list, positions) in byList.sorted(by: { $0.key < $1.key }) {
            var chunk: (id: Int64?, rows: Data, codes: Data) = (nil, Data(), Data())
            let last = try chunks(
                literal: "SELECT rowid, \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE list = \(Int64(list)) ORDER BY rowid DESC LIMIT 1",
                index, db)
            if let last = last.first, last.rows.count / 8 < chunkCapacity {
                chunk = (last.id, last.rows, last.codes)
            }
            func flush() throws {
                if let id = chunk.id {
                    try db.run(
                        literal: "UPDATE main.\(identifier: index.entriesTable) SET \"rows\" = \(chunk.rows), codes = \(chunk.codes) WHERE rowid = \(id)")
                } else {
                    try db.run(
                        literal:
                            "INSERT INTO main.\(identifier: index.entriesTable)(list, \"rows\", codes) VALUES (\(Int64(list)), \(chunk.rows), \(chunk.codes))")
                }
                chunk = (nil, Data(), Data())
            }
            try vectors.components.withUnsafeBytes { components in
                guard let first = components.baseAddress else { return }
                for position in positions {
                    withUnsafeBytes(of: vectors.rowIDs[position].littleEndian) { chunk.rows.append(contentsOf: $0) }
                    chunk.codes.append(code(first + position * bytes, dimensions: index.dimensions, quantization: index.quantization))
                    if chunk.rows.count / 8 == chunkCapacity { try flush() }
                }
            }
            if !chunk.rows.isEmpty { try flush() }
        }
    }

    /// Removes `rows` from the chunks that hold them (rewritten, or deleted when emptied). Reads
    /// every chunk's rowids, not its codes: an update's cost grows with the index's size.
    static func unfile(_ rows: Set<Int64>, from index: IVFIndex, _ db: Connection) throws {
        guard !rows.isEmpty else { return }
        var touched: [Int64] = []
        let codeBytes = codeBytes(index)
        // typeof and length read no BLOB content.
        try db.withStatement(literal: "SELECT rowid, \"rows\", typeof(codes), length(codes) FROM main.\(identifier: index.entriesTable)") { statement in
            let handle = statement.handle
            while try statement.step() {
                let rowBytes = Int(sqlite3_column_bytes(handle, 1))
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB, sqlite3_column_text(handle, 2).map({ String(cString: $0) }) == "blob" else {
                    throw VectorError.malformedBlob(bytes: Int(sqlite3_column_int64(handle, 3)), layout: layout(index))
                }
                try checkChunk(rows: rowBytes, codes: Int(sqlite3_column_int64(handle, 3)), codeBytes: codeBytes, index)
                guard let pointer = sqlite3_column_blob(handle, 1) else { continue }
                if (0..<rowBytes / 8).contains(where: { rows.contains(Int64(littleEndian: pointer.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self))) }) {
                    touched.append(sqlite3_column_int64(handle, 0))
                }
            }
        }
        for id in touched {
            guard
                let chunk = try chunks(literal: "SELECT rowid, \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE rowid = \(id)", index, db)
                    .first
            else { continue }
            var keptRows = Data(), keptCodes = Data()
            for entry in 0..<chunk.rows.count / 8 {
                let row = chunk.rows.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: entry * 8, as: Int64.self)) }
                guard !rows.contains(row) else { continue }
                keptRows.append(chunk.rows[chunk.rows.startIndex + entry * 8..<chunk.rows.startIndex + (entry + 1) * 8])
                keptCodes.append(chunk.codes[chunk.codes.startIndex + entry * codeBytes..<chunk.codes.startIndex + (entry + 1) * codeBytes])
            }
            if keptRows.isEmpty {
                try db.run(literal: "DELETE FROM main.\(identifier: index.entriesTable) WHERE rowid = \(id)")
            } else {
                try db.run(literal: "UPDATE main.\(identifier: index.entriesTable) SET \"rows\" = \(keptRows), codes = \(keptCodes) WHERE rowid = \(id)")
            }
        }
    }

    /// Rewrites each list that has more chunks than its entries need (rows removed from the
    /// middle of chunks leave them part full) as full chunks, so churn never drifts back towards a
    /// row per vector. `length` reads no BLOB content, so finding them reads no codes.
    static func compact(_ index: IVFIndex, _ db: Connection) throws {
        let capacity = Int64(chunkCapacity)
        let lists: [Int64] = try db.query(
            literal:
                "SELECT list FROM main.\(identifier: index.entriesTable) GROUP BY list HAVING count(*) > (sum(length(\"rows\")) / 8 + \(capacity - 1)) / \(capacity)"
        )
        for list in lists {
            let chunks = try chunks(
                literal: "SELECT rowid, \"rows\", codes FROM main.\(identifier: index.entriesTable) WHERE list = \(list) ORDER BY rowid", index, db)
            var rows = Data(), codes = Data()
            for chunk in chunks { rows.append(chunk.rows); codes.append(chunk.codes) }
            try db.run(literal: "DELETE FROM main.\(identifier: index.entriesTable) WHERE list = \(list)")
            let codeBytes = codeBytes(index), count = rows.count / 8
            for start in stride(from: 0, to: count, by: chunkCapacity) {
                let end = min(start + chunkCapacity, count)
                let chunkRows = rows[rows.startIndex + start * 8..<rows.startIndex + end * 8]
                let chunkCodes = codes[codes.startIndex + start * codeBytes..<codes.startIndex + end * codeBytes]
                try db.run(
                    literal:
                        "INSERT INTO main.\(identifier: index.entriesTable)(list, \"rows\", codes) VALUES (\(list), \(Data(chunkRows)), \(Data(chunkCodes)))")
            }
        }
    }

    /// The chunks `literal` selects (rowid, rows, codes), copied and checked.
    static func chunks(literal: SQLFragment, _ index: IVFIndex, _ db: Connection) throws -> [(id: Int64, rows: Data, codes: Data)] {
        var result: [(id: Int64, rows: Data, codes: Data)] = []
        let codeBytes = codeBytes(index)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                let chunk = try chunkBlobs(handle, 1, index, codeBytes: codeBytes)
                result.append(
                    (
                        sqlite3_column_int64(handle, 0),
                        chunk.rows.map { Data(bytes: $0, count: chunk.count * 8) } ?? Data(),
                        chunk.codes.map { Data(bytes: $0, count: chunk.count * codeBytes) } ?? Data()
                    ))
            }
        }
        return result
    }

    /// The rowids and codes of the chunk in columns `column` and `column + 1` of the current row,
    /// in place, and how many entries it holds; a chunk that is not two BLOBs of agreeing sizes
    /// is ``VectorError/malformedBlob(bytes:layout:)``.
    @inline(__always)
    static func chunkBlobs(
        _ handle: OpaquePointer, _ column: Int32, _ index: IVFIndex, codeBytes: Int
    ) throws
        -> (rows: UnsafeRawPointer?, codes: UnsafeRawPointer?, count: Int)
    {
        // Each column's pointer stays valid until the next step.
        let rows = sqlite3_column_blob(handle, column), rowBytes = Int(sqlite3_column_bytes(handle, column))
        let codes = sqlite3_column_blob(handle, column + 1), codeCount = Int(sqlite3_column_bytes(handle, column + 1))
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB, sqlite3_column_type(handle, column + 1) == SQLITE_BLOB else {
            throw VectorError.malformedBlob(bytes: codeCount, layout: layout(index))
        }
        try checkChunk(rows: rowBytes, codes: codeCount, codeBytes: codeBytes, index)
        return (rows, codes, rowBytes / 8)
    }

    /// The layout an index's codes are named by in errors.
    static func layout(_ index: IVFIndex) -> VectorLayout {
        switch index.quantization {
        case .none: .float32;
        case .int8: .int8;
        case .bit: .bit
        }
    }

    /// A chunk's two BLOBs must hold the same number of entries.
    static func checkChunk(rows: Int, codes: Int, codeBytes: Int, _ index: IVFIndex) throws {
        guard rows % 8 == 0, codes == rows / 8 * codeBytes else {
            throw VectorError.malformedBlob(bytes: codes, layout: layout(index))
        }
    }

    /// A keyed index's winners under the table's rowids now (the ids are the map's), in the
    /// same order: by distance, ties by the map's ids.
    static func tableRowIDs(
        _ ranked: [(rowID: Int64, distance: Double)], _ index: IVFIndex, _ db: Connection
    ) throws
        -> [(rowID: Int64, distance: Double)]
    {
        guard index.key != nil, !ranked.isEmpty else { return ranked }
        var rowIDs: [Int64: Int64] = [:]
        for start in stride(from: 0, to: ranked.count, by: 500) {
            let ids = ranked[start..<min(start + 500, ranked.count)].map { SQLFragment.value($0.rowID) }.joined(separator: ", ")
            let pairs: [Row] = try db.query(literal: "SELECT m.id, \(index.tableRowID) FROM \(index.rowSource) WHERE m.id IN (\(ids))")
            for pair in pairs { rowIDs[pair[0]] = pair[1] }
        }
        return ranked.compactMap { entry in rowIDs[entry.rowID].map { (rowID: $0, distance: entry.distance) } }
    }

    /// The rows queued since the last update (written, moved or deleted).
    static func pendingRows(of index: IVFIndex, _ db: Connection) throws -> Set<Int64> {
        Set(try db.query(literal: "SELECT \"row\" FROM main.\(identifier: index.pendingTable)") as [Int64])
    }

    /// The rows of the indexed table among the rowids `select` returns, matched by SQLite's own
    /// `IN` (so text, reals and NULLs match as they do in SQL, and as the pending rows are).
    static func rowIDs(selectedBy select: SQLFragment, in index: IVFIndex, _ db: Connection) throws -> Set<Int64> {
        Set(try db.query(literal: "SELECT \(index.rowID) FROM \(index.rowSource) WHERE \(index.tableRowID) IN (" + select + ")") as [Int64])
    }
}
