import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// FTS5 over a table with a TEXT key (`externalByKey`): the index's rowids are a key map's, so
/// they survive what renumbers the table's rowids, and the index stays in step with the table.
@Suite("FTS5 keyed external content")
struct FTS5KeyedContentTests {
    static let schema = "CREATE TABLE doc(id TEXT PRIMARY KEY, title TEXT, body TEXT)"

    /// Keys of the documents `pattern` matches through the keyed index, joined back by key.
    static func keyedMatches(_ db: Connection, _ pattern: FTS5Pattern) throws -> [String] {
        try db.query(
            literal: """
                SELECT m."key" FROM doc_fts JOIN doc_fts_keys AS m ON m.strata_fts_id = doc_fts.rowid
                WHERE doc_fts MATCH \(pattern) ORDER BY m."key"
                """)
    }

    /// `integrity-check` with rank 1 also compares the index with its content (the view).
    static func integrityCheck(_ db: Connection, _ index: String) throws {
        try db.run(literal: "INSERT INTO \(identifier: index)(\(identifier: index), rank) VALUES ('integrity-check', 1)")
    }

    @Test func survivesADumpAndReloadThatBreaksARowidIndex() throws {
        let folder = try TemporaryDirectory()
        let original = folder.path("original.sqlite"), reloaded = folder.path("reloaded.sqlite")
        do {
            let db = try Connection(storageLocation: .onDisk(original))
            try db.execute(Self.schema)
            for (id, title) in [("a", "spice"), ("b", "salt"), ("c", "pepper"), ("d", "saffron")] {
                try db.run("INSERT INTO doc VALUES (?, ?, ?)", id, title, "about \(title)")
            }
            try db.createFTS5Table("doc_fts", columns: ["title", "body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
            try db.createFTS5Table("doc_rowid_fts", columns: ["title", "body"], options: FTS5Options(content: .external(table: "doc", rowID: "rowid")))
            try db.execute("DELETE FROM doc WHERE id = 'a'") // a gap in the rowids, which a reload closes
            try Self.integrityCheck(db, "doc_fts")
            try Self.integrityCheck(db, "doc_rowid_fts")
        }
        // SQLite's own shell: `.dump` writes the table's rows without their rowids.
        let dump = try SQLiteShell.run(database: original, arguments: [".dump"])
        try #require(dump.status == 0)
        let load = try SQLiteShell.run(database: reloaded, input: dump.output)
        try #require(load.status == 0, "\(load.error)")

        let db = try Connection(storageLocation: .onDisk(reloaded))
        let ids: [Int64] = try db.query("SELECT rowid FROM doc ORDER BY rowid")
        #expect(ids == [1, 2, 3]) // renumbered: 2, 3, 4 before
        try Self.integrityCheck(db, "doc_fts")
        #expect(try Self.keyedMatches(db, #require(FTS5Pattern(matchingAllTokensIn: "pepper"))) == ["c"])
        let highlighted: [String] = try db.query("SELECT highlight(doc_fts, 0, '[', ']') FROM doc_fts WHERE doc_fts MATCH 'saffron'")
        #expect(highlighted == ["[saffron]"])
        // The index over the table's rowids now points at the wrong rows (the reason for the map).
        #expect(throws: SQLiteError.self) { try Self.integrityCheck(db, "doc_rowid_fts") }
    }

    @Test func staysInStepWithEveryWriteVacuumAndRebuild() throws {
        let words = ["spice", "salt", "select", "order", "café", "e\u{301}te\u{301}", "o'brien", "日本", "x"]
        try PropertyCheck.run("a keyed FTS5 index matches what a hand-kept index of the same rows matches", cases: 25) { random in
            let db = try Connection() // in memory: VACUUM still rewrites it
            try db.execute(Self.schema)
            // The oracle: an FTS5 table with its own content, kept by hand beside every write.
            try db.execute("CREATE VIRTUAL TABLE oracle USING fts5(key UNINDEXED, title, body)")
            func text() -> String? {
                random.oneIn(8) ? nil : (0..<random.int(0...4)).map { _ in random.pick(words) }.joined(separator: " ")
            }
            func write(_ sql: String, _ values: [BindingValue]) throws {
                try db.run(literal: SQLFragment(sql: sql, arguments: values))
            }
            func refreshOracle(_ key: String) throws {
                try write("DELETE FROM oracle WHERE key = ?", [.text(key)])
                try write("INSERT INTO oracle(key, title, body) SELECT id, title, body FROM doc WHERE id = ?", [.text(key)])
            }
            var keys: [String] = []
            let createAt = random.int(0...10)
            for step in 0..<random.int(10...50) {
                if step == createAt {
                    try db.createFTS5Table("doc_fts", columns: ["title", "body"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
                }
                let value = { (t: String?) -> BindingValue in t.map(BindingValue.text) ?? .null }
                switch random.int(0...9) {
                case 0...3:
                    let key = random.pick(["k\(step)", "K\(step)", "'\(step)\u{301}", "\(step) 日本"])
                    try write("INSERT INTO doc VALUES (?, ?, ?)", [.text(key), value(text()), value(text())])
                    keys.append(key)
                    try refreshOracle(key)
                case 4 where !keys.isEmpty:
                    let key = random.pick(keys)
                    try write("UPDATE doc SET body = ? WHERE id = ?", [value(text()), .text(key)])
                    try refreshOracle(key)
                case 5 where !keys.isEmpty:
                    let key = random.pick(keys), newKey = "re\(step)"
                    try write("UPDATE doc SET id = ?, title = ? WHERE id = ?", [.text(newKey), value(text()), .text(key)])
                    keys.removeAll { $0 == key }
                    keys.append(newKey)
                    try write("DELETE FROM oracle WHERE key = ?", [.text(key)])
                    try refreshOracle(newKey)
                case 6 where !keys.isEmpty:
                    let key = random.pick(keys)
                    try write("DELETE FROM doc WHERE id = ?", [.text(key)])
                    keys.removeAll { $0 == key }
                    try refreshOracle(key)
                case 7 where !keys.isEmpty:
                    let key = random.pick(keys)
                    try write(
                        "INSERT INTO doc VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title",
                        [.text(key), value(text()), .null])
                    try refreshOracle(key)
                case 8:
                    try db.execute("VACUUM")
                default:
                    if step > createAt { try db.rebuildFTS5Table("doc_fts") }
                }
                guard step >= createAt else { continue }
                try Self.integrityCheck(db, "doc_fts")
                // The map holds exactly the table's keys: none left behind by a delete or a rekey.
                let mapped: [String] = try db.query("SELECT \"key\" FROM doc_fts_keys ORDER BY \"key\"")
                let stored: [String] = try db.query("SELECT id FROM doc ORDER BY id")
                try require(mapped == stored, "step \(step): map \(mapped) vs table \(stored)")
                let token = random.pick(words)
                let pattern = try #require(FTS5Pattern(matchingAllTokensIn: token))
                let expected: [String] = try db.query(literal: "SELECT key FROM oracle WHERE oracle MATCH \(pattern) ORDER BY key")
                let found = try Self.keyedMatches(db, pattern)
                try require(found == expected, "step \(step) '\(token)': \(found) vs \(expected)")
            }
        }
    }

    @Test func aFailedCreateLeavesNothingAndDropRemovesTheMap() throws {
        let db = try Connection()
        try db.execute(Self.schema)
        #expect(throws: SQLiteError.self) {
            try db.createFTS5Table("doc_fts", columns: ["title", "missing"], options: FTS5Options(content: .externalByKey(table: "doc", key: "id")))
        }
        let left: Int = try db.query("SELECT count(*) FROM sqlite_master WHERE name LIKE 'doc_fts%'")
        #expect(left == 0)
        try db.run("INSERT INTO doc VALUES ('a', 'spice', NULL)")
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'doc'")
        #expect(sql == Self.schema)
    }
}
