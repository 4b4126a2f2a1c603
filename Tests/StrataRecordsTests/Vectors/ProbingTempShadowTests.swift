import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import StrataRecords

/// A TEMP table of the record's table name while the IVF index is over main's: the index ranks
/// main's rows, so a probing query refuses rather than read the filter and records from TEMP.
@Suite struct ProbingTempShadowTests {
    @Test func aTempTableOfTheRecordsNameIsRefused() throws {
        let db = try Connection()
        try VectorNote.createTable(db)
        for index in 1...20 {
            var note = VectorNote(id: nil, title: "main\(index)", embedding: try FloatVector([Float(index), 0]))
            try note.insert(db)
        }
        try VectorNote.createIVFIndex(db, named: "note_ivf", on: \.embedding, options: IVFIndexOptions(lists: 1))
        try db.execute("CREATE TEMP TABLE vector_note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, embedding BLOB)")
        for index in 1...20 {
            try db.run(
                literal:
                    "INSERT INTO temp.vector_note(id, title, embedding) VALUES (\(Int64(index)), \("temp\(index)"), \(try FloatVector([Float(-index), 0])))")
        }
        let q = try FloatVector([3, 0])
        #expect(throws: RecordQueryError.self) {
            try VectorNote.all().nearest(to: q, by: \.embedding, metric: .l2, k: 2).probing("note_ivf", nprobe: 1).fetchAll(db)
        }
        try db.execute("DROP TABLE temp.vector_note")
        let probed = try VectorNote.where { $0.title != "main3" }.nearest(to: q, by: \.embedding, metric: .l2, k: 2).probing("note_ivf", nprobe: 1).fetchAll(db)
        #expect(probed.map(\.record.title) == ["main2", "main4"])
    }
}
