import Foundation
import StrataSQift
import Strata
import StrataRecords
import Testing

/// Records for the sweep: `item` changes type, nullability and loses a column; `tag` is new.
enum RecordSchemaFaultShelf {
    @Record(table: "owner") struct Owner: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String; var note: String? }
    @Record(table: "item") struct Item: Equatable {
        @PrimaryKey var id: Int64?
        @References(RecordSchemaFaultShelf.Owner.self, onDelete: .cascade) var ownerId: Int64
        @Indexed var label: String
        var weight: Double
    }
    @Record(table: "tag") struct Tag: Equatable { @PrimaryKey var id: Int64?; @Indexed var name: String }
}

extension FaultSweeps {
    /// `RecordSchema.migrate` (ADD COLUMN, a rebuild dropping a column with data, CREATE TABLE and
    /// CREATE INDEX in one transaction) under every fault: the schema and rows are the old or the new.
    @Suite struct RecordSchemaFaultTests {
        @Test func recordSchemaMigrate() throws {
            let schema = RecordSchema(RecordSchemaFaultShelf.Owner.self, RecordSchemaFaultShelf.Item.self, RecordSchemaFaultShelf.Tag.self)
            try Sweep<Connection>(
                name: "RecordSchema.migrate (ADD COLUMN, a rebuild, CREATE TABLE)", faults: Fault.journalModeFaults,
                setUp: { db in
                    try db.execute(#"CREATE TABLE "owner" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL UNIQUE)"#)
                    try db.execute(#"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY, "ownerId" INTEGER, "label" TEXT, "weight" TEXT, "old" TEXT)"#)
                    for id in 1...20 {
                        try db.run("INSERT INTO owner (id, name) VALUES (?, ?)", id, "owner \(id)")
                        try db.run("INSERT INTO item (ownerId, label, weight, old) VALUES (?, ?, ?, ?)", id, "item \(id)", "\(id).5", "x")
                    }
                },
                open: { path, _ in
                    let db = try Connection(storageLocation: .onDisk(path))
                    try db.execute("PRAGMA foreign_keys = ON")
                    return db
                },
                connection: { $0 },
                run: { db in try schema.migrate(db, allowingDataLoss: true) }, state: allRows
            )()
        }
    }
}
