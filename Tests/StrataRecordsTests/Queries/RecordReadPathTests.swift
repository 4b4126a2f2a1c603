import Foundation
import StrataSQift
import Strata
import StrataRecords
import Testing

// The generated reads take two paths: records with a memberwise init are built through it, the
// others property by property. Both read NULL, values and mismatches the same way.

@Record(table: "reading")
struct Reading: Equatable {
    @PrimaryKey var id: Int64?
    var label: String
    var note: String?
    var weight: Double?
    var takenAt: Date?
}

/// Has its own init, so no memberwise one: read property by property.
@Record(table: "reading")
struct ReadingWithOwnInit: Equatable {
    @PrimaryKey var id: Int64?
    var label: String
    var note: String?
    var weight: Double?
    var takenAt: Date?
    init(id: Int64?, label: String, note: String?, weight: Double?, takenAt: Date?) {
        (self.id, self.label, self.note, self.weight, self.takenAt) = (id, label, note, weight, takenAt)
    }
}

/// A private property makes the memberwise init private: read property by property.
@Record(table: "reading")
struct ReadingWithPrivateNote {
    @PrimaryKey var id: Int64?
    var label: String
    private var note: String?
    var weight: Double?
    var takenAt: Date?
    var noteLength: Int { note?.utf8.count ?? -1 }
}

@Suite struct RecordReadPathTests {
    func makeDB() throws -> Connection {
        let db = try Connection()
        try db.execute("CREATE TABLE reading(id INTEGER PRIMARY KEY, label TEXT NOT NULL, note TEXT, weight REAL, takenAt TEXT)")
        try db.execute("INSERT INTO reading VALUES (1, 'a', NULL, NULL, NULL), (2, 'b', 'x''y', 2.5, '2024-02-29T12:30:45.250')")
        return db
    }

    @Test func optionalColumnsReadNullAsNilOnBothPaths() throws {
        let db = try makeDB()
        let date = try #require(Date.fromBindingValue("2024-02-29T12:30:45.250"))
        let expected = [
            Reading(id: 1, label: "a", note: nil, weight: nil, takenAt: nil),
            Reading(id: 2, label: "b", note: "x'y", weight: 2.5, takenAt: date)
        ]
        #expect(try Reading.order(by: \.id).fetchAll(db) == expected)
        let own = try ReadingWithOwnInit.order(by: \.id).fetchAll(db)
        #expect(own == expected.map { ReadingWithOwnInit(id: $0.id, label: $0.label, note: $0.note, weight: $0.weight, takenAt: $0.takenAt) })
        #expect(try ReadingWithPrivateNote.order(by: \.id).fetchAll(db).map(\.noteLength) == [-1, 3])
        let joined = try Reading.join(ReadingWithOwnInit.self, as: "other", on: { $0.id == $1.id }).order { reading, _ in reading.id }.fetchAll(db)
        #expect(joined.map(\.0) == expected)
    }

    @Test func aNonNullValueOfAnotherStorageClassInAnOptionalColumnStillThrows() throws {
        let db = try makeDB()
        try db.execute("UPDATE reading SET note = x'2a' WHERE id = 2")
        for fetch in [{ _ = try Reading.fetchAll(db) }, { _ = try ReadingWithOwnInit.fetchAll(db) }, { _ = try ReadingWithPrivateNote.fetchAll(db) }] {
            do {
                try fetch()
                Issue.record("expected an error")
            } catch let error as RecordError {
                guard case .valueMismatch(let column, _, let expected, let storageClass) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect((column, expected, storageClass) == ("note", "String", "BLOB"))
            }
        }
        do {
            _ = try Reading.fetchAll(db)
        } catch let error as RecordError {
            #expect(error == .valueMismatch(column: "note", record: "Reading", expected: "String", storageClass: "BLOB"))
        }
    }

    @Test func aNullInANonOptionalColumnNamesIt() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE reading(id INTEGER PRIMARY KEY, label TEXT, note TEXT, weight REAL, takenAt TEXT)")
        try db.execute("INSERT INTO reading(id) VALUES (1)")
        #expect(throws: RecordError.nullInNonOptional(column: "label", record: "Reading")) { try Reading.fetchAll(db) }
        #expect(throws: RecordError.nullInNonOptional(column: "label", record: "ReadingWithOwnInit")) { try ReadingWithOwnInit.fetchAll(db) }
    }
}
