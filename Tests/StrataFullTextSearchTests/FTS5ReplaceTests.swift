import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// A REPLACE removes the row it conflicts with without its delete trigger, so a keyed index used
/// to keep that row's tokens (and FTS5's integrity-check called the index malformed). Its
/// triggers keep the replaced row aside before the write and unfile it after.
@Suite("FTS5 external content under REPLACE")
struct FTS5ReplaceTests {
    enum Kind: String, CaseIterable, Sendable { case keyedBinary, keyedNoCase }

    static func setUp(_ kind: Kind) throws -> Connection {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY\(kind == .keyedNoCase ? " COLLATE NOCASE" : ""), body TEXT)")
        try db.execute("INSERT INTO doc VALUES ('a', 'apple')")
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
        return db
    }

    /// The table's ids whose body matches `word`, through the index (joined back as a search would).
    static func matches(_ db: Connection, _ word: String) throws -> [String] {
        let pattern = try #require(FTS5Pattern(matchingAllTokensIn: word))
        return try db.query(
            literal: """
                SELECT doc.id FROM doc_fts JOIN doc_fts_keys AS k ON k.strata_fts_id = doc_fts.rowid
                JOIN doc ON doc.id = k."key" WHERE doc_fts MATCH \(pattern) ORDER BY doc.id
                """)
    }

    static func integrityCheck(_ db: Connection) throws {
        try db.execute("INSERT INTO doc_fts(doc_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test(arguments: Kind.allCases)
    func aReplaceOfTheSameKeyDropsTheOldTokens(kind: Kind) throws {
        let db = try Self.setUp(kind)
        let key = kind == .keyedNoCase ? "'A'" : "'a'"
        try db.execute("INSERT OR REPLACE INTO doc VALUES (\(key), 'cherry')")
        try Self.integrityCheck(db)
        #expect(try Self.matches(db, "apple").isEmpty)
        #expect(try Self.matches(db, "cherry") == [kind == .keyedNoCase ? "A" : "a"])
    }

    @Test(arguments: Kind.allCases)
    func anUpdateOrReplaceOntoAnotherKeyDropsThatRowsTokens(kind: Kind) throws {
        let db = try Self.setUp(kind)
        try db.execute("INSERT INTO doc VALUES ('b', 'banana')")
        try db.execute("UPDATE OR REPLACE doc SET id = 'a' WHERE id = 'b'")
        try Self.integrityCheck(db)
        #expect(try Self.matches(db, "apple").isEmpty)
        #expect(try Self.matches(db, "banana") == ["a"])
    }

    /// Generated writes of every conflict form, with recursive triggers on and off, checked
    /// after each against an index of the table's rows built from scratch.
    @Test(arguments: Kind.allCases)
    func everyConflictFormKeepsTheIndexInStep(kind: Kind) throws {
        let words = ["apple", "banana", "cherry", "o'brien", "e\u{301}te\u{301}", "日本"]
        try PropertyCheck.run("an external-content index matches a rebuilt one after every write (\(kind))", cases: 20) { random in
            let db = try Self.setUp(kind)
            try db.execute("CREATE VIRTUAL TABLE oracle USING fts5(key UNINDEXED, body)")
            // Integers too: the TEXT key's affinity stores them as text.
            func key() -> any Bindable { random.oneIn(5) ? random.int(1...3) : random.pick(["a", "A", "b", "B", "c", "d'é", "1"]) }
            func text() -> String? {
                random.oneIn(8) ? nil : (0..<random.int(0...3)).map { _ in random.pick(words) }.joined(separator: " ")
            }
            for step in 0..<random.int(5...30) {
                let write: SQLFragment
                switch random.int(0...8) {
                case 0: write = "INSERT OR REPLACE INTO doc VALUES (\(key()), \(text()))"
                case 1: write = "REPLACE INTO doc VALUES (\(key()), \(text())), (\(key()), \(text()))"
                case 2: write = "INSERT OR IGNORE INTO doc VALUES (\(key()), \(text()))"
                case 3: write = "INSERT INTO doc VALUES (\(key()), \(text())) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
                case 4: write = "UPDATE OR REPLACE doc SET id = \(key()) WHERE id = \(key())"
                case 5: write = "UPDATE doc SET body = \(text()) WHERE id = \(key())"
                case 6: write = "DELETE FROM doc WHERE id = \(key())"
                case 7: write = "INSERT INTO doc VALUES (\(key()), \(text()))" // may fail on the key: nothing changes
                default:
                    try db.execute("PRAGMA recursive_triggers = \(random.oneIn(2) ? "ON" : "OFF")")
                    continue
                }
                do { try db.run(literal: write) } catch let error as SQLiteError {
                    try require(error.resultCode.primary == .constraint, "step \(step): \(write.sql) failed: \(error)")
                }
                try db.execute("DELETE FROM oracle")
                try db.execute("INSERT INTO oracle(key, body) SELECT id, body FROM doc")
                do { try Self.integrityCheck(db) } catch {
                    try require(false, "step \(step): after \(write.sql) the index fails integrity-check: \(error)")
                }
                for word in words {
                    let pattern = try #require(FTS5Pattern(matchingAllTokensIn: word))
                    var expected: [String] = try db.query(literal: "SELECT key FROM oracle WHERE oracle MATCH \(pattern)")
                    let found = try Self.matches(db, word).sorted()
                    expected.sort()
                    try require(found == expected, "step \(step) after \(write.sql), '\(word)': \(found) vs \(expected)")
                }
            }
        }
    }

    static func keyed(_ db: Connection) throws {
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
    }

    /// The review's probes: an ignored insert nested in another (a user's trigger that makes sure
    /// a parent row exists) left its copy of a live row, which the outer insert then unfiled.
    @Test(arguments: ["BEFORE", "AFTER"])
    func aNestedIgnoredInsertLeavesTheLiveRowFiled(timing: String) throws {
        let db = try makeConnection(executing: "CREATE TABLE doc(id TEXT PRIMARY KEY, parent TEXT, body TEXT); INSERT INTO doc VALUES ('p', NULL, 'apple')")
        let ensureParent =
            "CREATE TRIGGER doc_parent \(timing) INSERT ON doc WHEN new.parent IS NOT NULL BEGIN INSERT OR IGNORE INTO doc(id) VALUES (new.parent); END"
        if timing == "BEFORE" { try db.execute(ensureParent) }
        try Self.keyed(db)
        if timing == "AFTER" { try db.execute(ensureParent) }
        try db.execute("INSERT INTO doc VALUES ('c', 'p', 'banana')")
        try Self.integrityCheck(db)
        #expect(try Self.matches(db, "apple") == ["p"])
        #expect(try Self.matches(db, "banana") == ["c"])
    }

    /// A write nested between a REPLACE's BEFORE and AFTER triggers (a foreign-key action, a
    /// user's trigger) cleared the kept row, so the replaced row's tokens stayed.
    @Test(arguments: ["ON DELETE CASCADE", "ON DELETE SET NULL", "trigger"])
    func aNestedWriteKeepsTheReplacedRowAside(nested: String) throws {
        let db = try Connection()
        if nested == "trigger" {
            try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, parent TEXT, body TEXT, n INTEGER DEFAULT 0)")
        } else {
            try db.execute("PRAGMA foreign_keys = ON")
            try db.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, parent TEXT REFERENCES doc(id) \(nested), body TEXT, n INTEGER DEFAULT 0)")
        }
        try db.execute("INSERT INTO doc(id, parent, body) VALUES ('p', NULL, 'apple'), ('c', 'p', 'banana')")
        try Self.keyed(db)
        if nested == "trigger" {
            try db.execute("CREATE TRIGGER doc_count AFTER INSERT ON doc BEGIN UPDATE doc SET n = n + 1 WHERE id = 'c'; END")
        }
        try db.execute("INSERT OR REPLACE INTO doc(id, parent, body) VALUES ('p', NULL, 'cherry')")
        try Self.integrityCheck(db)
        #expect(try Self.matches(db, "apple").isEmpty)
        #expect(try Self.matches(db, "cherry") == ["p"])
        #expect(try Self.matches(db, "banana") == (nested == "ON DELETE CASCADE" ? [] : ["c"]))
    }

    /// The row kept aside is the one the key index finds, under the index's collation when it
    /// differs from the column's.
    @Test(arguments: [
        ("id TEXT COLLATE NOCASE, body TEXT, PRIMARY KEY(id COLLATE BINARY)", "INSERT", ["a", "A"]),
        ("id TEXT, body TEXT, PRIMARY KEY(id COLLATE NOCASE)", "INSERT OR REPLACE", ["A"])
    ])
    func theKeyIndexsCollationDecidesWhichRowIsReplaced(columns: String, write: String, keys: [String]) throws {
        // A BINARY key over a NOCASE column keeps 'a' and 'A' as two rows, both filed; a NOCASE
        // key over a BINARY column has 'A' replace 'a'.
        let db = try makeConnection(executing: "CREATE TABLE doc(\(columns)); INSERT INTO doc VALUES ('a', 'apple')")
        try Self.keyed(db)
        try db.execute("\(write) INTO doc VALUES ('A', 'cherry')")
        try Self.integrityCheck(db)
        // By the map's key (a join on a NOCASE column would match both rows).
        func mapped(_ word: String) throws -> [String] {
            try db.query("SELECT k.\"key\" FROM doc_fts JOIN doc_fts_keys AS k ON k.strata_fts_id = doc_fts.rowid WHERE doc_fts MATCH ?", word)
        }
        #expect(try mapped("apple") == keys.filter { $0 == "a" })
        #expect(try mapped("cherry") == ["A"])
        #expect(try db.query("SELECT \"key\" FROM doc_fts_keys ORDER BY \"key\" DESC") as [String] == keys.sorted(by: >))
    }

    /// The second review's probes. A plain BINARY key names no collation in the triggers, so a
    /// later rebuild that makes the key NOCASE is followed; a NOCASE UNIQUE index beside a
    /// BINARY primary key is the one a REPLACE conflicts through, and is used.
    @Test func theTriggersFollowARebuiltKeyAndALooserUniqueIndex() throws {
        let rebuilt = try Connection()
        try rebuilt.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, body TEXT)")
        try Self.keyed(rebuilt)
        try rebuilt.execute("INSERT INTO doc VALUES ('a', 'apple')")
        try rebuilt.rebuildTable(
            named: "doc", definition: "\"id\" TEXT COLLATE NOCASE PRIMARY KEY, \"body\" TEXT",
            copying: [(column: "id", expression: "\"id\""), (column: "body", expression: "\"body\"")])
        let looser = try Connection()
        try looser.execute("CREATE TABLE doc(id TEXT PRIMARY KEY, body TEXT)")
        try looser.execute("CREATE UNIQUE INDEX doc_id_nocase ON doc(id COLLATE NOCASE)")
        try looser.execute("INSERT INTO doc VALUES ('a', 'apple')")
        try Self.keyed(looser)
        for db in [rebuilt, looser] {
            try db.execute("INSERT OR REPLACE INTO doc VALUES ('A', 'cherry')")
            try Self.integrityCheck(db)
            #expect(try Self.matches(db, "apple").isEmpty)
            #expect(try Self.matches(db, "cherry") == ["A"])
            #expect(try db.query("SELECT \"key\" FROM doc_fts_keys") as [String] == ["A"])
        }
    }

    /// A rowid-keyed index keeps SQLite's documented triggers (no table beside it): a REPLACE
    /// leaves tokens behind, as the article says, and a rebuild puts the index right.
    @Test func aRowIDIndexIsPutRightByARebuildAfterAReplace() throws {
        let db = try makeConnection(executing: "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO doc VALUES (1, 'apple')")
        try db.createFTS5Table("doc_fts", columns: ["body"], options: FTS5Options(content: .external(table: "doc", rowID: "id")))
        try db.execute("INSERT OR REPLACE INTO doc VALUES (1, 'cherry')")
        #expect(throws: SQLiteError.self) { try Self.integrityCheck(db) }
        try db.rebuildFTS5Table("doc_fts")
        try Self.integrityCheck(db)
        let apple: [Int64] = try db.query("SELECT rowid FROM doc_fts WHERE doc_fts MATCH 'apple'")
        #expect(apple.isEmpty)
    }
}
