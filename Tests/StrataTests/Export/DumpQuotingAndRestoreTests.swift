import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Quoting, dump and restore: a name with a quote before a combining mark cannot inject, and text
/// like it, line breaks, tables named like shadow tables or apart only beyond ASCII, header fields,
/// FTS5 content options and DESC integer keys come back as they were; a restore inside the
/// caller's transaction is refused (issue 38, sections 1 and 2; each test failed before its fix).
@Suite struct DumpQuotingAndRestoreTests {
    private func dump(_ connection: Connection) throws -> String {
        var text = ""
        try connection.dump(to: &text)
        return text
    }

    @Test func identifierWithQuoteBeforeCombiningMarkCannotInject() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        for mark in ["\u{301}", "\u{20DD}", "\u{FE0F}"] {
            let hostile = "t\"\(mark) UNION SELECT sql FROM sqlite_master --"
            #expect(throws: SQLiteError.self) {
                let _: [String] = try connection.query(literal: "SELECT a FROM \(identifier: hostile)")
            }
            // As a real table name it round-trips exactly.
            try connection.execute("CREATE TABLE \(quoteIdentifier(hostile))(x)")
            let name: String? = try connection.query("SELECT name FROM sqlite_master WHERE name = ?", hostile)
            #expect(name == hostile)
            try connection.execute("DROP TABLE \(quoteIdentifier(hostile))")
        }
        #expect("e'\u{301}te".sqift.addingSQLEscapes() == "'e''\u{301}te'")
    }

    @Test func textWithQuoteBeforeCombiningMarkRestores() throws {
        let source = try makeConnection(executing: "CREATE TABLE t(x TEXT DEFAULT 'd''\u{301}')")
        try source.run("INSERT INTO t VALUES (?)", "e'\u{301}te")
        try source.run("INSERT INTO t DEFAULT VALUES")
        let restored = try Connection()
        try restored.restore(fromDump: try dump(source))
        #expect(try DatabaseSnapshot(restored) == DatabaseSnapshot(source))
    }

    @Test func userTableNamedLikeAShadowTableIsDumped() throws {
        let source = try Connection()
        try source.execute(
            """
            CREATE TABLE docs_content(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE docs USING fts5(body, content='docs_content', content_rowid='id');
            INSERT INTO docs_content VALUES (1, 'alpha beta'), (2, 'gamma');
            INSERT INTO docs(docs) VALUES ('rebuild');
            """)
        #expect(try source.readSchema().tableNamed("docs_content") != nil)
        #expect(try source.readSchema().tables.contains { $0.name == "docs_content" })
        let text = try dump(source)
        #expect(text.contains("INSERT INTO \"docs_content\""))
        let restored = try Connection()
        try restored.restore(fromDump: text)
        #expect(try DatabaseSnapshot(restored) == DatabaseSnapshot(source))
        let hits: [Int] = try restored.query("SELECT rowid FROM docs WHERE docs MATCH 'gamma'")
        #expect(hits == [2])
    }

    /// Shadow tables were found by Unicode-lowercased names in a `Set<String>`, which also calls
    /// canonically equal names the same: a user table `É_data` or `e` + U+0301 + `_data` beside an
    /// FTS5 index `é` was taken for its shadow table, left out of the dump with its rows and
    /// hidden from introspection. SQLite compares bytes with ASCII folded, so they are the user's.
    @Test func userTablesNamedLikeAShadowTableUpToUnicodeFoldingAreTheUsers() throws {
        let source = try makeConnection(executing: "CREATE VIRTUAL TABLE \"é\" USING fts5(body); INSERT INTO \"é\" VALUES ('alpha')")
        let lookalikes = ["É_data", "e\u{301}_data", "é_DATA_x", "É_config"]
        for (index, name) in lookalikes.enumerated() {
            try source.execute("CREATE TABLE \(quoteIdentifier(name))(k INTEGER PRIMARY KEY, v TEXT)")
            try source.run("INSERT INTO \(quoteIdentifier(name)) VALUES (?, ?)", index, name)
        }
        let tables = try source.readSchema().tables.map(\.name)
        for name in lookalikes {
            #expect(tables.contains { $0.utf8.elementsEqual(name.utf8) }, "\(name.debugDescription) is missing from \(tables)")
        }
        // The real shadow table (ASCII case aside) stays hidden.
        #expect(!tables.contains { $0.utf8.elementsEqual("é_data".utf8) })
        let text = try dump(source)
        let restored = try Connection()
        try restored.restore(fromDump: text)
        #expect(try DatabaseSnapshot(restored) == DatabaseSnapshot(source))
        for name in lookalikes {
            let value: String? = try restored.query("SELECT v FROM \(quoteIdentifier(name))")
            #expect(value.map { $0.utf8.elementsEqual(name.utf8) } == true)
            try source.rebuildTable(
                named: name, definition: #""k" INTEGER PRIMARY KEY, "v" TEXT"#,
                copying: [(column: "k", expression: #""k""#), (column: "v", expression: #""v""#)])
        }
    }

    /// The schema reader cached a table's columns under its lowercased name: `É` then `é` (two
    /// tables to SQLite) answered with the first one's columns.
    @Test func columnsOfTablesThatDifferOnlyBeyondASCIIAreNotConfused() throws {
        let connection = try makeConnection(executing: "CREATE TABLE \"É\"(upper_a); CREATE TABLE \"é\"(lower_b); CREATE TABLE \"e\u{301}\"(decomposed_c)")
        #expect(try connection.tableInfoForTableNamed("É")?.columnNames == ["upper_a"])
        #expect(try connection.tableInfoForTableNamed("é")?.columnNames == ["lower_b"])
        #expect(try connection.tableInfoForTableNamed("e\u{301}")?.columnNames == ["decomposed_c"])
        #expect(try connection.readSchema().entryNamed("e\u{301}")?.sql?.contains("decomposed_c") == true)
    }

    @Test func contentlessAndViewContentFTS5Restore() throws {
        let source = try Connection()
        try source.execute(
            """
            CREATE TABLE z_items(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIEW a_view AS SELECT id, body FROM z_items;
            CREATE VIRTUAL TABLE a_index USING fts5(body, content='a_view', content_rowid='id');
            CREATE VIRTUAL TABLE bare USING fts5(body, content='');
            INSERT INTO z_items VALUES (1, 'red fox'), (2, 'blue whale');
            INSERT INTO a_index(a_index) VALUES ('rebuild');
            INSERT INTO bare(rowid, body) VALUES (7, 'lonely word'), (9, 'another word');
            """)
        let text = try dump(source)
        #expect(!text.contains("'rebuild'"))
        let restored = try Connection()
        try restored.restore(fromDump: text)
        #expect(try DatabaseSnapshot(restored) == DatabaseSnapshot(source))
        let bare: [Int] = try restored.query("SELECT rowid FROM bare WHERE bare MATCH 'word' ORDER BY rowid")
        #expect(bare == [7, 9])
        let viewHits: [Int] = try restored.query("SELECT rowid FROM a_index WHERE a_index MATCH 'whale'")
        #expect(viewHits == [2])
        if SQLiteShell.path != nil {
            let directory = try TemporaryDirectory()
            let shellResult = try SQLiteShell.run(database: directory.path("shell.db"), input: Data(text.utf8))
            #expect(shellResult.status == 0, "\(shellResult.error)")
            let loaded = try Connection(storageLocation: .onDisk(directory.path("shell.db")))
            #expect(try DatabaseSnapshot(loaded) == DatabaseSnapshot(source))
        }
    }

    @Test func headerFieldsAreDumped() throws {
        let source = try makeConnection(executing: "CREATE TABLE t(x); PRAGMA user_version = 7; PRAGMA application_id = -123456")
        let restored = try Connection()
        try restored.restore(fromDump: try dump(source))
        #expect(try restored.query("PRAGMA user_version") as Int? == 7)
        #expect(try restored.query("PRAGMA application_id") as Int? == -123456)
    }

    @Test func restoreInsideTheCallersTransactionIsRefusedAndKeepsItsWrites() throws {
        let source = try makeConnection(executing: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let text = try dump(source)
        let target = try Connection(storageLocation: .temporary)
        try target.execute("BEGIN; CREATE TEMP TABLE mine(y); INSERT INTO mine VALUES (42)")
        #expect(throws: DumpError.inTransaction) { try target.restore(fromDump: text) }
        #expect(target.isInTransaction)
        #expect(try target.query("SELECT y FROM mine") as Int? == 42)
        try target.execute("COMMIT")
    }

    @Test func integerPrimaryKeyDescKeepsItsRowids() throws {
        let source = try Connection()
        try source.execute(
            """
            CREATE TABLE d(id INTEGER PRIMARY KEY DESC, v TEXT);
            INSERT INTO d(rowid, id, v) VALUES (100, 1, 'a'), (5, 2, 'b'), (50, NULL, 'c');
            CREATE TABLE alias(id INTEGER, v, PRIMARY KEY(id DESC));
            INSERT INTO alias VALUES (3, 'x'), (9, 'y');
            """)
        let restored = try Connection()
        try restored.restore(fromDump: try dump(source))
        #expect(try DatabaseSnapshot(restored) == DatabaseSnapshot(source))
    }

    @Test func lineBreaksSurviveTheShell() throws {
        guard SQLiteShell.path != nil else { return }
        let source = try makeConnection(executing: "CREATE TABLE t(x)")
        for text in ["a\r\nb", "\r", "\n", "end\r", "\r\n\r\n", "x\ry\nz", "é\r\n'\u{301}"] {
            try source.run("INSERT INTO t VALUES (?)", text)
        }
        let directory = try TemporaryDirectory()
        let result = try SQLiteShell.run(database: directory.path("loaded.db"), input: Data(try dump(source).utf8))
        #expect(result.status == 0, "\(result.error)")
        let loaded = try Connection(storageLocation: .onDisk(directory.path("loaded.db")))
        #expect(try DatabaseSnapshot(loaded) == DatabaseSnapshot(source))
    }
}
