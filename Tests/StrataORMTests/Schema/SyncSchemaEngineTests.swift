// syncSchema(preserve:) runs on the kernel's one schema-sync engine (records' RecordSchema runs on
// it too): columns are matched as SQLite matches identifiers (bytes, ASCII case folded), never
// by Swift's Unicode lowercasing or canonical equivalence.
import Foundation
import Testing
import StrataORM
import StrataTestSupport

private struct Word: Initializable, Equatable {
    var id = 0
    var accent: String?
}

private func wordTable(column: String) -> Table<Word> {
    Table<Word>(
        name: "words",
        Column(name: "id", keyPath: \Word.id, constraints: primaryKey()),
        Column(name: column, keyPath: \Word.accent))
}

@Suite struct SyncSchemaEngineTests {
    /// "É" and "é" are two columns to SQLite (it folds ASCII only), and so are "é" written as
    /// U+00E9 and as e + U+0301; Swift's `lowercased()` and `==` called each pair one, so the
    /// sync said "in sync" and every insert then failed with "no such column".
    @Test(arguments: [("\u{C9}", "\u{E9}"), ("e\u{301}", "\u{E9}"), ("\u{E9}", "e\u{301}")])
    func aColumnThatDiffersOnlyBeyondASCIICaseIsAnotherColumn(existing: String, mapped: String) throws {
        let directory = try TemporaryDirectory()
        let first = try Storage(filename: directory.path("words.sqlite"), wordTable(column: existing))
        _ = try first.syncSchema(preserve: true)
        _ = try first.insert(Word(id: 0, accent: "old"))
        let storage = try Storage(filename: directory.path("words.sqlite"), wordTable(column: mapped))
        let db = storage.connection
        let result = try storage.syncSchema(preserve: true)
        #expect(result == ["words": .newColumnsAddedAndOldColumnsRemoved])
        let names: [String] = try db.query("SELECT name FROM pragma_table_info('words') ORDER BY cid")
        #expect(names.map { Array($0.utf8) } == [Array("id".utf8), Array(mapped.utf8)])
        _ = try storage.insert(Word(id: 0, accent: "new"))
        #expect(try storage.getAll(all: Word.self).map(\.accent) == [nil, "new"])
    }

    /// An ASCII case difference is the same column: nothing to do, the rows stay.
    @Test func anASCIICaseDifferenceIsTheSameColumn() throws {
        let directory = try TemporaryDirectory()
        let first = try Storage(filename: directory.path("words.sqlite"), wordTable(column: "accent"))
        _ = try first.syncSchema(preserve: true)
        _ = try first.insert(Word(id: 0, accent: "kept"))
        let storage = try Storage(filename: directory.path("words.sqlite"), wordTable(column: "Accent"))
        let result = try storage.syncSchema(preserve: true)
        #expect(result == ["words": .alredyInSync])
        #expect(try storage.getAll(all: Word.self).map(\.accent) == ["kept"])
    }

    /// A failed rebuild leaves the table as it was: a NOT NULL column the model leaves nil over
    /// rows that hold NULL.
    @Test func aRefusedRebuildChangesNothing() throws {
        let storage = try temporaryStorage(
            keyedTable("words", key: \Word.id, Column(name: "accent", keyPath: \Word.accent, constraints: notNull())), sync: false)
        let db = storage.connection
        try db.execute("CREATE TABLE words (id INTEGER PRIMARY KEY NOT NULL, accent TEXT, gone TEXT)")
        try db.execute("INSERT INTO words VALUES (1, NULL, 'x')")
        let before: [String] = try db.query("SELECT sql FROM sqlite_master ORDER BY name")
        #expect(throws: ORMError.self) { try storage.syncSchema(preserve: true) }
        #expect(try db.query("SELECT sql FROM sqlite_master ORDER BY name") == before)
        let gone: String? = try db.query("SELECT gone FROM words WHERE id = 1")
        #expect(gone == "x")
    }
}
