import Foundation
import StrataSQift
import Strata
import Testing

@Suite("FTS5 tables")
struct FTS5TableTests {
    private func titles(_ db: Connection, _ table: String, _ pattern: String) throws -> [String] {
        try db.query(literal: "SELECT title FROM \(identifier: table) WHERE \(identifier: table) MATCH \(pattern) ORDER BY rowid")
    }

    @Test func defaultTableIndexesAndSearches() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table("docs", columns: ["title", "body"])
        try db.run("INSERT INTO docs(title, body) VALUES (?, ?)", "SQLite", "A small fast database engine")
        try db.run("INSERT INTO docs(title, body) VALUES (?, ?)", "Swift", "A programming language")
        let p = FTS5Pattern(matchingAllTokensIn: "fast, engine!")
        let hits: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(p) ORDER BY rank")
        #expect(hits == ["SQLite"])
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'docs'")
        #expect(sql == #"CREATE VIRTUAL TABLE "docs" USING "fts5"("title", "body")"#)
    }

    @Test func unicode61Options() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table("keep", columns: ["title"], options: FTS5Options(tokenizer: .unicode61(removeDiacritics: .keep)))
        try db.createFTS5Table("fold", columns: ["title"], options: FTS5Options(tokenizer: .unicode61(removeDiacritics: .always)))
        try db.createFTS5Table("chars", columns: ["title"], options: FTS5Options(tokenizer: .unicode61(tokenCharacters: "-'\"")))
        try db.createFTS5Table("seps", columns: ["title"], options: FTS5Options(tokenizer: .unicode61(separators: "x")))
        for table in ["keep", "fold", "chars", "seps"] {
            try db.run(literal: "INSERT INTO \(identifier: table)(title) VALUES (\("Café e-mail it's \"q\" fooxbar"))")
        }
        #expect(try titles(db, "keep", "cafe").isEmpty)
        #expect(try titles(db, "keep", "café").count == 1)
        #expect(try titles(db, "fold", "cafe").count == 1)
        #expect(try titles(db, "chars", "\"e-mail\"").count == 1)
        #expect(try titles(db, "chars", "mail").isEmpty)
        #expect(try titles(db, "fold", "mail").count == 1)
        #expect(try titles(db, "seps", "bar").count == 1)
        #expect(try titles(db, "fold", "bar").isEmpty)
    }

    @Test func asciiPorterTrigramAndCustom() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table("a", columns: ["title"], options: FTS5Options(tokenizer: .ascii))
        try db.createFTS5Table("p", columns: ["title"], options: FTS5Options(tokenizer: .porter(.unicode61())))
        try db.createFTS5Table("pa", columns: ["title"], options: FTS5Options(tokenizer: .porter(.ascii)))
        try db.createFTS5Table("t", columns: ["title"], options: FTS5Options(tokenizer: .trigram))
        try db.createFTS5Table("c", columns: ["title"], options: FTS5Options(tokenizer: .custom(name: "unicode61", arguments: ["remove_diacritics", "0"])))
        for table in ["a", "p", "pa", "t", "c"] {
            try db.run(literal: "INSERT INTO \(identifier: table)(title) VALUES (\("Running Élan databases"))")
        }
        // ascii folds only ASCII: É stays.
        #expect(try titles(db, "a", "élan").isEmpty)
        #expect(try titles(db, "a", "Élan").count == 1)
        #expect(try titles(db, "p", "run").count == 1)
        #expect(try titles(db, "p", "database").count == 1)
        #expect(try titles(db, "pa", "run").count == 1)
        #expect(try titles(db, "a", "run").isEmpty)
        #expect(try titles(db, "t", "abas").count == 1)
        #expect(try titles(db, "c", "elan").isEmpty)
        #expect(try titles(db, "c", "élan").count == 1)
        #expect(throws: SQLiteError.self) {
            try db.createFTS5Table("x", columns: ["title"], options: FTS5Options(tokenizer: .custom(name: "no such")))
        }
    }

    @Test func prefixesUnindexedAndContentless() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table(
            "docs", columns: ["title", "isbn"],
            options: FTS5Options(prefixes: [2, 3], unindexedColumns: ["isbn"]))
        try db.run("INSERT INTO docs(title, isbn) VALUES (?, ?)", "Programming Swift", "978")
        #expect(try titles(db, "docs", "pro*") == ["Programming Swift"])
        #expect(try titles(db, "docs", "978").isEmpty)
        let isbn: String? = try db.query("SELECT isbn FROM docs")
        #expect(isbn == "978")
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'docs'")
        #expect(sql == #"CREATE VIRTUAL TABLE "docs" USING "fts5"("title", "isbn" UNINDEXED, prefix = '2 3')"#)

        try db.createFTS5Table("bare", columns: ["title"], options: FTS5Options(content: .contentless))
        try db.run("INSERT INTO bare(rowid, title) VALUES (7, 'hidden words')")
        let row: Int64? = try db.query("SELECT rowid FROM bare WHERE bare MATCH 'hidden'")
        #expect(row == 7)
        let title: String? = try db.query("SELECT title FROM bare")
        #expect(title == nil)
    }

    /// IF NOT EXISTS covers the triggers too: a second call at startup leaves the index alone.
    @Test func ifNotExistsOnAnExistingExternalContentIndexLeavesItAsItIs() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")
        try db.run("INSERT INTO book(title) VALUES ('Old Swift')")
        for content in [FTS5Options.Content.external(table: "book", rowID: "id"), .externalByKey(table: "book", key: "id")] {
            let name = "fts_\(content)".unicodeScalars.filter { ("a"..."z").contains($0) || $0 == "_" }.map(String.init).joined()
            let options = FTS5Options(content: content, ifNotExists: true)
            try db.createFTS5Table(name, columns: ["title"], options: options)
            let objects: Int? = try db.query("SELECT count(*) FROM sqlite_schema")
            try db.createFTS5Table(name, columns: ["title"], options: options)
            #expect(try db.query("SELECT count(*) FROM sqlite_schema") == objects, "\(content)")
            try db.run("INSERT INTO book(title) VALUES ('New Swift')")
            let hits: Int? = try db.query(literal: "SELECT count(*) FROM \(identifier: name) WHERE \(identifier: name) MATCH 'swift'")
            #expect((hits ?? 0) >= 2, "\(content)")
        }
    }

    @Test func externalContentIsFilledAndKeptInSync() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(#"CREATE TABLE "my book"("book id" INTEGER PRIMARY KEY, "the title" TEXT, year INTEGER)"#)
        try db.run(#"INSERT INTO "my book"("the title", year) VALUES ('Old Swift', 2014)"#)
        try db.createFTS5Table(
            "book fts", columns: ["the title"],
            options: FTS5Options(content: .external(table: "my book", rowID: "book id")))
        func ids(_ word: String) throws -> [Int64] {
            try db.query(literal: #"SELECT rowid FROM "book fts" WHERE "book fts" MATCH \#(word) ORDER BY rowid"#)
        }
        #expect(try ids("old") == [1])
        try db.run(#"INSERT INTO "my book"("the title", year) VALUES ('New Swift', 2024)"#)
        #expect(try ids("swift") == [1, 2])
        try db.run(#"UPDATE "my book" SET "the title" = 'Ancient Rust' WHERE "book id" = 1"#)
        #expect(try ids("old").isEmpty)
        #expect(try ids("rust") == [1])
        #expect(try ids("swift") == [2])
        try db.run(#"DELETE FROM "my book" WHERE "book id" = 2"#)
        #expect(try ids("swift").isEmpty)
        // The index reads its text from the content table.
        let title: String? = try db.query(#"SELECT "the title" FROM "book fts" WHERE "book fts" MATCH 'rust'"#)
        #expect(title == "Ancient Rust")
        let check: Int64? = try db.query(#"SELECT count(*) FROM "my book""#)
        #expect(check == 1)
        try db.run(#"INSERT INTO "book fts"("book fts", rank) VALUES ('integrity-check', 1)"#)

        // Rebuild on demand, after changes the triggers did not see.
        try db.execute(#"DROP TRIGGER "book fts_ai""#)
        try db.run(#"INSERT INTO "my book"("the title") VALUES ('Unseen Go')"#)
        #expect(try ids("unseen").isEmpty)
        try db.rebuildFTS5Table("book fts")
        #expect(try ids("unseen") == [2])
    }

    @Test func externalContentWithRowID() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE book(title TEXT)")
        try db.run("INSERT INTO book(title) VALUES ('alpha')")
        try db.createFTS5Table("book_fts", columns: ["title"], options: FTS5Options(content: .external(table: "book")))
        try db.run("INSERT INTO book(title) VALUES ('beta')")
        #expect(try titles(db, "book_fts", "alpha OR beta") == ["alpha", "beta"])
    }

    @Test func failedCreationLeavesNothing() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")
        #expect(throws: SQLiteError.self) {
            try db.createFTS5Table("book_fts", columns: ["missing"], options: FTS5Options(content: .external(table: "book", rowID: "id")))
        }
        let count: Int64? = try db.query("SELECT count(*) FROM sqlite_master WHERE name LIKE 'book_fts%'")
        #expect(count == 0)
    }
}

@Suite("FTS5 tables with hostile names")
struct FTS5HostileNameTests {
    @Test func quotesInEveryNameAndArgument() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(#"CREATE TABLE "b""o'k"("i""d" INTEGER PRIMARY KEY, "ti'""tle" TEXT)"#)
        try db.run(#"INSERT INTO "b""o'k"("ti'""tle") VALUES ('first words')"#)
        try db.createFTS5Table(
            #"f"t's"#, columns: [#"ti'"tle"#],
            options: FTS5Options(
                tokenizer: .unicode61(tokenCharacters: #"'""#),
                content: .external(table: #"b"o'k"#, rowID: #"i"d"#)))
        try db.run(#"INSERT INTO "b""o'k"("ti'""tle") VALUES ('second''s words')"#)
        try db.run(#"UPDATE "b""o'k" SET "ti'""tle" = 'changed' WHERE "i""d" = 1"#)
        let hits: [Int64] = try db.query(
            literal: "SELECT rowid FROM \(identifier: #"f"t's"#) WHERE \(identifier: #"f"t's"#) MATCH \(#""second's""#) ORDER BY rowid")
        #expect(hits == [2])
        let words: [Int64] = try db.query(
            literal:
                "SELECT rowid FROM \(identifier: #"f"t's"#) WHERE \(identifier: #"f"t's"#) MATCH \(FTS5Pattern(matchingAnyTokenIn: "words changed")) ORDER BY rowid"
        )
        #expect(words == [1, 2])
        try db.rebuildFTS5Table(#"f"t's"#)
    }
}
