import Foundation
import StrataSQift
import Testing
import StrataRecords

@Record(table: "staff") struct Staff: Equatable {
    @PrimaryKey var id: Int64?; var name: String; var managerId: Int64?; var score: Int?; var dept: String?
}

@Record(table: "parent_row") struct ParentRow: Equatable { @PrimaryKey var id: Int64?; var name: String; var bio: String }
@Record(table: "child_row") struct ChildRow: Equatable { @PrimaryKey var id: Int64?; var parentId: Int64; var label: String }
extension ParentRow { static let children = hasMany(ChildRow.self, using: \.parentId) }

@Record(table: "json_note") struct JSONNote: Equatable {
    @PrimaryKey var id: Int64?
    @JSON var meta: [String: Int]?
    @JSON var days: [Date]
    @JSON var blobs: [Data]
    @JSON var numbers: [Double]
}

@Suite struct TypedQueryEdgeCaseTests {
    func staff() throws -> Connection {
        try connection(holding: [
            Staff(id: nil, name: "Boss", managerId: nil, score: 9, dept: nil),
            Staff(id: nil, name: "Ann", managerId: 1, score: 5, dept: "x"),
            Staff(id: nil, name: "Bob", managerId: 2, score: 7, dept: "x"),
            Staff(id: nil, name: "Cy", managerId: 2, score: nil, dept: "y")
        ])
    }

    /// A subquery of the outer query's own table gets an alias of its own, so `e.id` names the
    /// outer row (it rendered `"staff"."managerId" = "staff"."id"` and matched nothing).
    @Test func correlatedSubqueryOverTheSameRecordNamesTheOuterRow() throws {
        let db = try staff()
        let managers = Staff.where { e in Staff.where { $0.managerId == e.id }.exists() }
        #expect(try managers.fetchAll(db).map(\.name) == ["Boss", "Ann"])
        #expect(managers.sql.contains(#"FROM "staff" AS "staff_2" WHERE "staff_2"."managerId" = "staff"."id""#), "\(managers.sql)")

        // Two levels deep, and a column selected from the inner query.
        let grandManaged = Staff.where { e in
            Staff.where { m in m.id == e.managerId && Staff.where { $0.id == m.managerId }.exists() }.exists()
        }
        #expect(try grandManaged.fetchAll(db).map(\.name) == ["Bob", "Cy"])
        let outscored = Staff.where { e in e.id.in(Staff.where { $0.score < e.score }.select(\.managerId)) }
        // Boss (9) outscores Ann (5, managed by Boss) and Bob (7, managed by Ann); Ann outscores nobody.
        #expect(try outscored.fetchAll(db).map(\.name) == ["Boss"])
        // A join inside a subquery of the same table stays apart from the outer row too.
        let withPeers = Staff.where { e in
            Staff.join(Staff.self, on: { $0.managerId == $1.id }).where { a, b in a.id != e.id && b.id == e.managerId }.select { a, _ in a.id }.exists()
        }
        #expect(try withPeers.fetchAll(db).map(\.name) == ["Bob", "Cy"])
    }

    /// `including(all:)` with a limit and no order: the children belong to exactly the parents
    /// returned. A covering index made the key subquery scan in name order while the parents
    /// were read in rowid order, so parents got other parents' children (or none).
    @Test func includingAllWithALimitAndNoOrderLoadsTheReturnedParentsChildren() throws {
        let db = try connection(withTablesOf: ParentRow.self, ChildRow.self)
        try db.execute("CREATE INDEX parent_row_name ON parent_row(name)")
        try ParentRow.insertAll(db, ["z", "y", "x", "w"].map { ParentRow(id: nil, name: $0, bio: "about \($0)") })
        try ChildRow.insertAll(db, (1...4).map { ChildRow(id: nil, parentId: Int64($0), label: "of \($0)") })
        let parentsOnly = try ParentRow.all().limit(2).fetchAll(db).map(\.id)
        // The trap: the keys alone are read through the narrower index, in name order.
        #expect(try ParentRow.all().limit(2).select(\.id).fetchAll(db) != parentsOnly)
        let shelves = try ParentRow.including(all: ParentRow.children).limit(2).fetchAll(db)
        #expect(shelves.map(\.0.id) == parentsOnly)
        for (parent, children) in shelves {
            #expect(children.map(\.label) == ["of \(parent.id ?? 0)"])
        }
        // Many parents: the keys are bound in batches.
        try ParentRow.insertAll(db, (0..<1_200).map { ParentRow(id: nil, name: "p\($0)", bio: "") })
        try ChildRow.insertAll(db, (5...1_204).map { ChildRow(id: nil, parentId: Int64($0), label: "of \($0)") })
        let all = try ParentRow.including(all: ParentRow.children).fetchAll(db)
        #expect(all.count == 1_204)
        #expect(all.allSatisfy { parent, children in children.map(\.label) == ["of \(parent.id ?? 0)"] })
    }

    /// `SQLExpression == nil` is IS NULL (it bound NULL with `=` and matched nothing).
    @Test func expressionComparedWithNilIsANullTest() throws {
        let db = try Connection()
        try JSONNote.createTable(db)
        try JSONNote.insertAll(
            db,
            [
                JSONNote(id: nil, meta: ["pages": 3], days: [], blobs: [], numbers: []),
                JSONNote(id: nil, meta: ["year": 1], days: [], blobs: [], numbers: []),
                JSONNote(id: nil, meta: nil, days: [], blobs: [], numbers: [])
            ])
        let pages = JSONNote.all().where { $0.meta.json("$.pages", as: Int.self) == nil }
        #expect(pages.sql.contains("IS NULL"))
        #expect(try pages.fetchAll(db).map(\.id) == [2, 3])
        #expect(try JSONNote.where { $0.meta.json("$.pages", as: Int.self) != nil }.fetchAll(db).map(\.id) == [1])
        #expect(try JSONNote.where { $0.meta.json("$.pages", as: Int.self) == 3 }.fetchAll(db).map(\.id) == [1])
    }

    /// `contains` binds a `Date` or `Data` element as the JSON encoder stored it (a number,
    /// base64 text), not as the column value Strata binds elsewhere.
    @Test func jsonArrayContainsDatesAndData() throws {
        let db = try Connection()
        try JSONNote.createTable(db)
        let day = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let bytes = Data([0, 1, 2, 0xFF])
        try JSONNote.insertAll(
            db,
            [
                JSONNote(id: nil, meta: nil, days: [day], blobs: [bytes], numbers: [1.5]),
                JSONNote(id: nil, meta: nil, days: [Date(timeIntervalSinceReferenceDate: 0)], blobs: [Data()], numbers: [2])
            ])
        #expect(try JSONNote.where { $0.days.contains(day) }.fetchAll(db).map(\.id) == [1])
        #expect(try JSONNote.where { $0.blobs.contains(bytes) }.fetchAll(db).map(\.id) == [1])
        #expect(try JSONNote.where { $0.blobs.contains(Data()) }.fetchAll(db).map(\.id) == [2])
        #expect(try JSONNote.where { $0.numbers.contains(1.5) }.fetchAll(db).map(\.id) == [1])
        #expect(try JSONNote.where { $0.days.contains(Date(timeIntervalSinceReferenceDate: 1)) }.fetchAll(db).isEmpty)
    }

    /// A value JSON cannot hold throws wherever it is written or compared, never NULL.
    @Test func unencodableJSONThrowsEverywhere() throws {
        let db = try Connection()
        try JSONNote.createTable(db)
        var first = JSONNote(id: nil, meta: nil, days: [], blobs: [], numbers: [1])
        try first.insert(db)
        var bad = JSONNote(id: nil, meta: nil, days: [], blobs: [], numbers: [.nan])
        #expect(throws: (any Error).self) { try bad.insert(db) }
        #expect(throws: (any Error).self) { try JSONNote.all().update(db, set: { $0.numbers.set([.infinity]) }) }
        #expect(try db.query("SELECT numbers FROM json_note WHERE id = 1") as String? == "[1]")
        #expect(throws: (any Error).self) { try JSONNote.where { $0.numbers == [.nan] }.fetchAll(db) }
        #expect(throws: (any Error).self) { try JSONNote.where { $0.numbers != [-.infinity] }.fetchCount(db) }
        #expect(throws: (any Error).self) { try JSONNote.where { $0.numbers.contains(.nan) }.fetchAll(db) }
        #expect(throws: (any Error).self) { try Staff.where { _ in JSONNote.where { $0.numbers == [.nan] }.exists() }.fetchAll(db) }
        #expect(throws: (any Error).self) { try db.run(literal: "UPDATE json_note SET \(column: "numbers") = \(JSONBinding([Double.nan]))") }
        #expect(throws: (any Error).self) { try db.run(literal: "UPDATE json_note SET \(column: "numbers") = \(Optional(JSONBinding([Double.nan])))") }
        #expect(try db.query("SELECT numbers FROM json_note WHERE id = 1") as String? == "[1]")
        // A nil optional is still NULL, and an encodable value still binds.
        let none: JSONBinding<[Double]>? = nil
        #expect(try db.query(literal: "SELECT \(none) IS NULL") as Int? == 1)
        #expect(try db.query(literal: "SELECT \(JSONBinding([2.5]))") as String? == "[2.5]")
    }
}
