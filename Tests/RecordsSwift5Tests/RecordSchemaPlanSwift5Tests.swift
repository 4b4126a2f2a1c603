import Foundation
import StrataSQift
import StrataRecords
import Testing

// API.md section 7 "Records are the schema": the plan and `migrate`, as Swift 5 client code writes
// them. The records live in a namespace: this target already has top-level `Author` and `Book`.
enum PlanSwift5 {
    struct Metadata: Codable, Equatable { var tags: [String]; var rating: Double? }

    @Record struct Author: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String }
    @Record struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        @Check("year > 0") var year: Int
        @JSON var metadata: PlanSwift5.Metadata
    }
    /// Version 1 of `book`: no `year` yet, and a `blurb` the next version drops.
    @Record(table: "book") struct BookV1: Equatable {
        @PrimaryKey var id: Int64?
        var authorId: Int64
        var title: String
        var blurb: String?
        @JSON var metadata: PlanSwift5.Metadata
    }

    @Suite struct Tests {
        @Test func planAndMigrateSpellings() throws {
            let db = try Connection()
            try db.execute("PRAGMA foreign_keys = ON")
            let schema = RecordSchema(Author.self, Book.self) // also RecordSchema([Author.self, Book.self])
            let plan: RecordSchemaPlan = try schema.plan(for: db)
            #expect(!plan.isEmpty)
            #expect(plan.sql.count == 4) // two tables, two indexes
            #expect(!plan.losesData)
            try schema.migrate(db)
            #expect(try RecordSchema([Author.self, Book.self]).plan(for: db).isEmpty)
            try Book.checkSchema(db)
        }

        @Test func dataLossIsRefusedUnlessAllowed() throws {
            let db = try Connection()
            try db.execute("PRAGMA foreign_keys = ON")
            try Author.createTable(db)
            try BookV1.createTable(db)
            var author = Author(id: nil, name: "Vian")
            try author.insert(db)
            var book = BookV1(
                id: nil, authorId: author.id ?? 0, title: "L'Écume des jours", blurb: "a novel",
                metadata: Metadata(tags: ["novel"], rating: nil))
            try book.insert(db)

            let schema = RecordSchema(Author.self, Book.self)
            let plan = try schema.plan(for: db)
            #expect(plan.losesData) // `blurb` holds data
            do {
                try schema.migrate(db)
                Issue.record("migrate dropped data without being allowed")
            } catch RecordSchemaError.wouldLoseData(let steps) {
                #expect(steps.count == 1)
            }
            try db.execute("UPDATE book SET blurb = NULL")
            #expect(throws: RecordSchemaError.newColumnNeedsDefault(table: "book", column: "year")) {
                try schema.migrate(db) // year NOT NULL over an existing row, no @Default
            }
            try db.execute("UPDATE book SET blurb = 'back'")
            // Fill `year` for the existing row, as a hand-written step before the records' plan would.
            try db.execute("ALTER TABLE book ADD COLUMN year INTEGER DEFAULT 1947")
            try schema.migrate(db, allowingDataLoss: true)
            #expect(
                try Book.fetchAll(db) == [
                    Book(
                        id: book.id, authorId: author.id ?? 0, title: "L'Écume des jours", year: 1947,
                        metadata: Metadata(tags: ["novel"], rating: nil))
                ])
            #expect(try schema.plan(for: db).isEmpty)
        }
    }
}
