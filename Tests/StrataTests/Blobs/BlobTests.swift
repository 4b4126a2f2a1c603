import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

@Suite struct BlobTests {
    private func makeFiles(_ connection: Connection) throws {
        try connection.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT, body BLOB)")
    }

    @Test func zeroBlobReservesSpaceThatTheHandleFills() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try makeFiles(connection)
        try connection.run("INSERT INTO files(name, body) VALUES(?, ?)", "a", ZeroBlob(count: 1000))
        let length: Int? = try connection.query("SELECT length(body) FROM files")
        #expect(length == 1000)
        let blob = try connection.openBlob(table: "files", column: "body", rowID: connection.lastInsertRowID, writable: true)
        #expect(blob.count == 1000)
        try blob.write(Data([1, 2, 3]), at: 10)
        try blob.write(Data(repeating: 9, count: 5), at: 995)
        #expect(try blob.read(at: 9, length: 5) == Data([0, 1, 2, 3, 0]))
        #expect(try blob.read(at: 995) == Data(repeating: 9, count: 5))
        blob.close()
        let stored: Data? = try connection.query("SELECT substr(body, 11, 3) FROM files")
        #expect(stored == Data([1, 2, 3]))
    }

    @Test func zeroBlobInABoundLiteralIsReservedBySQLite() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try makeFiles(connection)
        let name = "x'); DROP TABLE files; --"
        let fragment: SQLFragment = "INSERT INTO files(name, body) VALUES (\(name), \(ZeroBlob(count: 1 << 20)))"
        // The count is bound, not a megabyte of zeros.
        #expect(fragment.sql == "INSERT INTO files(name, body) VALUES (?, zeroblob(?))")
        #expect(fragment.arguments == [.text(name), .integer(1 << 20)])
        try connection.run(literal: fragment)
        let stored: String? = try connection.query("SELECT name FROM files")
        let length: Int? = try connection.query("SELECT length(body) FROM files")
        let type: String? = try connection.query("SELECT typeof(body) FROM files")
        #expect(stored == name)
        #expect(length == 1 << 20)
        #expect(type == "blob")
    }

    @Test func writingPastTheEndThrowsAClearError() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try makeFiles(connection)
        try connection.run("INSERT INTO files(body) VALUES(?)", ZeroBlob(count: 10))
        let blob = try connection.openBlob(table: "files", column: "body", rowID: 1, writable: true)
        let error = sqliteError { try blob.write(Data(count: 4), at: 8) }
        #expect(error?.code == 1)
        #expect(error?.message.contains("goes past the end") == true)
        #expect(error?.message.contains("ZeroBlob") == true)
        #expect(sqliteError { _ = try blob.read(at: 5, length: 6) }?.message.contains("size is 10 bytes") == true)
        #expect(sqliteError { try blob.write(Data(), at: -1) } != nil)
        // Nothing was written by the failed call.
        #expect(try blob.read() == Data(count: 10))
    }

    @Test func aRowChangedUnderneathExpiresTheHandle() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try makeFiles(connection)
        try connection.run("INSERT INTO files(id, name, body) VALUES(1, 'a', ?)", Data([1, 2, 3, 4]))
        try connection.run("INSERT INTO files(id, name, body) VALUES(2, 'b', ?)", Data([5, 6]))
        let blob = try connection.openBlob(table: "files", column: "body", rowID: 1, writable: true)
        try connection.run("UPDATE files SET name = 'changed' WHERE id = 1")
        let error = sqliteError { _ = try blob.read() }
        #expect(error?.resultCode == .abort)
        #expect(error?.message.contains("changed or deleted") == true)
        #expect(sqliteError { try blob.write(Data([0]), at: 0) }?.resultCode == .abort)
        // Reopening moves it on.
        try blob.reopen(rowID: 2)
        #expect(blob.rowID == 2 && blob.count == 2)
        #expect(try blob.read() == Data([5, 6]))
        try connection.run("DELETE FROM files WHERE id = 2")
        #expect(sqliteError { _ = try blob.read() }?.resultCode == .abort)
    }

    @Test func badTableColumnOrRowThrows() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try makeFiles(connection)
        try connection.run("INSERT INTO files(id, name, body) VALUES(1, 'a', x'00')")
        #expect(sqliteError { _ = try connection.openBlob(table: "nope", column: "body", rowID: 1) }?.message.contains("no such table") == true)
        #expect(sqliteError { _ = try connection.openBlob(table: "files", column: "nope", rowID: 1) }?.message.contains("no such column") == true)
        #expect(sqliteError { _ = try connection.openBlob(table: "files", column: "body", rowID: 99) }?.message.contains("no such rowid") == true)
        #expect(sqliteError { _ = try connection.openBlob(table: "files", column: "body", rowID: 1, schema: "nope") } != nil)
        let blob = try connection.openBlob(table: "files", column: "body", rowID: 1)
        #expect(sqliteError { try blob.reopen(rowID: 42) }?.message.contains("rowid 42") == true)
        // A read-only handle refuses writes.
        let reader = try connection.openBlob(table: "files", column: "body", rowID: 1)
        #expect(sqliteError { try reader.write(Data([1]), at: 0) }?.resultCode == .readOnly)
        reader.close()
        reader.close()
        #expect(sqliteError { _ = try reader.read() }?.resultCode == .misuse)
    }

    @Test func textAndAttachedSchemas() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .inMemory)
        try connection.attachDatabase(from: .onDisk(directory.path("other.db")), withName: "other")
        try connection.execute("CREATE TABLE other.notes(body TEXT)")
        try connection.run("INSERT INTO other.notes VALUES('hello')")
        let blob = try connection.openBlob(table: "notes", column: "body", rowID: 1, schema: "other", writable: true)
        try blob.write(Data("J".utf8), at: 0)
        blob.close()
        let text: String? = try connection.query("SELECT body FROM other.notes")
        #expect(text == "Jello")
    }

    @Test func streamsChunksOutAndIn() async throws {
        let connection = try Connection(storageLocation: .inMemory)
        try makeFiles(connection)
        let source = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try connection.run("INSERT INTO files(body) VALUES(?)", ZeroBlob(count: source.count))
        let blob = try connection.openBlob(table: "files", column: "body", rowID: 1, writable: true)
        let chunks = AsyncStream<Data> { continuation in
            var offset = 0
            while offset < source.count {
                continuation.yield(source.subdata(in: offset..<min(offset + 333, source.count)))
                offset += 333
            }
            continuation.finish()
        }
        #expect(try await blob.write(from: chunks) == source.count)
        var read = Data()
        var sizes = Set<Int>()
        for try await chunk in blob.chunks(ofSize: 4096) {
            sizes.insert(chunk.count)
            read.append(chunk)
        }
        #expect(read == source)
        #expect(sizes == [4096, 10_000 - 2 * 4096])
        // From an offset, and bytes one at a time.
        var tail = Data()
        for try await chunk in blob.chunks(ofSize: 100, from: 9_950) { tail.append(chunk) }
        #expect(tail == source.suffix(50))
        let bytes = AsyncStream<UInt8> { continuation in
            for byte in [UInt8](repeating: 0xAB, count: 300) { continuation.yield(byte) }
            continuation.finish()
        }
        #expect(try await blob.write(bytes: bytes, at: 100, chunkSize: 128) == 300)
        #expect(try blob.read(at: 99, length: 302) == Data([source[99]] + [UInt8](repeating: 0xAB, count: 300) + [source[400]]))
        // A stream that runs past the end writes what fits and throws.
        let tooLong = AsyncStream<Data> { continuation in
            continuation.yield(Data(count: 9_000)); continuation.yield(Data(count: 9_000)); continuation.finish()
        }
        await #expect(throws: SQLiteError.self) { try await blob.write(from: tooLong) }
    }

    @Test func copiesToAndFromFiles() throws {
        let directory = try TemporaryDirectory()
        let input = URL(fileURLWithPath: directory.path("in.bin"))
        let output = URL(fileURLWithPath: directory.path("out.bin"))
        let contents = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        try contents.write(to: input)
        let connection = try Connection(storageLocation: .onDisk(directory.path("files.db")))
        try makeFiles(connection)
        try connection.run("INSERT INTO files(body) VALUES(?)", ZeroBlob(count: contents.count))
        let blob = try connection.openBlob(table: "files", column: "body", rowID: 1, writable: true)
        #expect(try blob.copy(from: input, chunkSize: 7_000) == contents.count)
        #expect(try blob.copy(to: output, chunkSize: 9_999) == contents.count)
        #expect(try Data(contentsOf: output) == contents)
        let stored: Data? = try connection.query("SELECT body FROM files")
        #expect(stored == contents)
        // A file larger than the blob throws.
        try connection.run("INSERT INTO files(body) VALUES(?)", ZeroBlob(count: 10))
        try blob.reopen(rowID: 2)
        #expect(sqliteError { try blob.copy(from: input) }?.message.contains("goes past the end") == true)
    }

    @Test func theHandleClosesBeforeItsConnection() throws {
        var blob: Blob?
        do {
            let connection = try Connection(storageLocation: .inMemory)
            try makeFiles(connection)
            try connection.run("INSERT INTO files(body) VALUES(x'0102')")
            blob = try connection.openBlob(table: "files", column: "body", rowID: 1)
        }
        // The blob keeps its connection open: still readable after the caller dropped it.
        #expect(try blob?.read() == Data([1, 2]))
        blob = nil
    }
}
