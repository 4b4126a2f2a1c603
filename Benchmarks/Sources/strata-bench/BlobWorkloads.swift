import Foundation
import StrataSQift
import SQLite3
import Strata

// Issue 32's row: a blob streamed in and out through incremental blob I/O, 64 KiB at a time. Raw
// C loops over sqlite3_blob_write/read with one reused buffer; Strata writes from an async
// sequence of Data chunks and reads through `Blob.chunks`. GRDB has no incremental blob API (n/a).

/// The same 64 KiB chunk `count` times: the source costs nothing, so the blob API is measured.
struct RepeatedChunks: AsyncSequence, AsyncIteratorProtocol {
    let chunk: Data
    var remaining: Int
    func makeAsyncIterator() -> RepeatedChunks { self }
    mutating func next() async -> Data? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return chunk
    }
}

enum BlobWorkloads {
    static let name = "blob-stream"
    static let chunkSize = 64 * 1024
    static let chunk = Data((0..<chunkSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    /// Mebibytes streamed each way (`--rows` sets it; `--quick` 4).
    static var mebibytes: Int { options.quick ? min(options.rows ?? 4, 4) : options.rows ?? 64 }

    @MainActor static func measureAll() async throws -> [Result] {
        guard options.filter == nil || name.contains(options.filter!) else { return [] }
        if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
        let size = mebibytes << 20
        let path = directory.appendingPathComponent("\(name).sqlite").path
        try? FileManager.default.removeItem(atPath: path)
        let setup = try Raw.open(path)
        try Raw.exec(setup, "CREATE TABLE files(id INTEGER PRIMARY KEY, body BLOB)")
        let insert = try Raw.prepare(setup, "INSERT INTO files(id, body) VALUES (1, ?)")
        sqlite3_bind_zeroblob64(insert, 1, sqlite3_uint64(size))
        guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite("insert zeroblob") }
        sqlite3_finalize(insert)
        try Raw.exec(setup, "PRAGMA wal_checkpoint(TRUNCATE)")
        sqlite3_close_v2(setup)

        var measurements = Array(repeating: Measurement(), count: 3)
        var expected: Int64?
        for round in 0...options.runs {
            for index in 0..<2 {
                let start: UInt64
                let result: Int64
                if index == 0 {
                    let db = try Raw.open(path)
                    defer { sqlite3_close_v2(db) }
                    start = DispatchTime.now().uptimeNanoseconds
                    result = try rawBlobStream(db, size: size)
                } else {
                    let db = try Connection(storageLocation: .onDisk(path))
                    try db.execute(Workloads.pragmas)
                    start = DispatchTime.now().uptimeNanoseconds
                    result = try await strataBlobStream(db, size: size)
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                if let expected, expected != result {
                    throw BenchError.mismatch("\(name): contestant \(index) computed \(result), expected \(expected)")
                }
                expected = result
                if round > 0 { measurements[index].times.append(elapsed) }
            }
        }
        for (label, measurement) in [("raw C", measurements[0]), ("Strata", measurements[1])] {
            if let median = measurement.median, !options.json {
                let rate = Double(2 * mebibytes) / (median / 1000)
                FileHandle.standardError.write(Data(String(format: "%@ %@: %.0f MB/s (in and out)\n", name, label, rate).utf8))
            }
        }
        return [Result(workload: name, rows: mebibytes, raw: measurements[0], strata: measurements[1], grdb: measurements[2])]
    }

    /// Sums the first and last byte of each chunk read back, with the chunk count.
    static func fold(_ checksum: inout Int64, _ first: UInt8, _ last: UInt8) {
        checksum = checksum &* 31 &+ Int64(first) &+ Int64(last) &* 3
    }

    // MARK: - Contenders (each function's name is what callgrind-records.sh counts)

    @inline(never) static func rawBlobStream(_ db: OpaquePointer, size: Int) throws -> Int64 {
        var blob: OpaquePointer?
        guard sqlite3_blob_open(db, "main", "files", "body", 1, 1, &blob) == SQLITE_OK, let blob else { throw BenchError.sqlite("blob open") }
        try chunk.withUnsafeBytes { bytes in
            var offset = 0
            while offset < size {
                guard sqlite3_blob_write(blob, bytes.baseAddress, Int32(chunkSize), Int32(offset)) == SQLITE_OK else { throw BenchError.sqlite("blob write") }
                offset += chunkSize
            }
        }
        sqlite3_blob_close(blob)
        var reader: OpaquePointer?
        guard sqlite3_blob_open(db, "main", "files", "body", 1, 0, &reader) == SQLITE_OK, let reader else { throw BenchError.sqlite("blob open") }
        defer { sqlite3_blob_close(reader) }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var checksum: Int64 = 0
        var offset = 0
        let total = Int(sqlite3_blob_bytes(reader))
        while offset < total {
            let length = min(chunkSize, total - offset)
            try buffer.withUnsafeMutableBytes { bytes in
                guard sqlite3_blob_read(reader, bytes.baseAddress, Int32(length), Int32(offset)) == SQLITE_OK else { throw BenchError.sqlite("blob read") }
            }
            fold(&checksum, buffer[0], buffer[length - 1])
            offset += length
        }
        return checksum
    }

    @inline(never) @MainActor static func strataBlobStream(_ db: Connection, size: Int) async throws -> Int64 {
        let writer = try db.openBlob(table: "files", column: "body", rowID: 1, writable: true)
        try await writer.write(from: RepeatedChunks(chunk: chunk, remaining: size / chunkSize))
        writer.close()
        let reader = try db.openBlob(table: "files", column: "body", rowID: 1)
        var checksum: Int64 = 0
        for try await piece in reader.chunks(ofSize: chunkSize) {
            fold(&checksum, piece[piece.startIndex], piece[piece.endIndex - 1])
        }
        return checksum
    }
}
