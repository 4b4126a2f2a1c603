import Foundation
import StrataSQift
import Testing
import StrataRecords

@Record struct Document: Equatable { @PrimaryKey var id: Int64?; var name: String; var body: Data; var note: String? }

@Suite struct RecordBlobTests {
    @Test func aRecordPropertyStreamsThroughABlobHandle() async throws {
        let db = try Connection()
        try Document.createTable(db)
        let size = 300_000
        try db.run(literal: "INSERT INTO document(name, body, note) VALUES (\("big.bin"), \(ZeroBlob(count: size)), \("hello"))")
        let id = db.lastInsertRowID
        let writer = try Document.openBlob(\.body, rowID: id, in: db, writable: true)
        let chunks = AsyncStream<Data> { continuation in
            for index in 0..<(size / 1000) { continuation.yield(Data(repeating: UInt8(index % 256), count: 1000)) }
            continuation.finish()
        }
        #expect(try await writer.write(from: chunks) == size)
        writer.close()
        var total = 0
        var last = Data()
        for try await chunk in try Document.openBlob(\.body, rowID: id, in: db).chunks(ofSize: 50_000) {
            total += chunk.count
            last = chunk
        }
        #expect(total == size && last.last == UInt8((size / 1000 - 1) % 256))
        let document = try #require(try Document.fetchOne(db, literal: "SELECT * FROM document WHERE id = \(id)"))
        #expect(document.body.count == size && document.body[1000] == 1)
        // An optional TEXT column opens too; the table and column names come from the record.
        let note = try Document.openBlob(\.note, rowID: id, in: db)
        #expect(try note.read() == Data("hello".utf8))
        #expect(note.table == "document" && note.column == "note")
    }
}
