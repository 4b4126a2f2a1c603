// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The Swift blocks of the Strata catalog's older articles (GettingStarted, Concurrency,
// FullTextSearch, WorkingWithChangesets), word for word between `DOC:begin Article N` markers, each
// run with what its article assumes (supplied before the marker) and checked after it.
import Foundation
import StrataRecords
import Testing

// DOC:begin FullTextSearch 5
@Record(table: "book_text") struct BookText { @PrimaryKey @Column("rowid") var id: Int64?; var title: String }
// DOC:end

extension READMEExamples {
    /// Every held block of the older articles, each in a new folder of its own.
    @Test func articleExamplesRunAsPrinted() async throws {
        try await inNewFolder { try await migrations1() }
        try await inNewFolder { try gettingStarted1() }
        #expect(printed.take() == ["52642"])
        try await inNewFolder { try await concurrency1() }
        try await inNewFolder { try await concurrency2() }
        try await inNewFolder { try fullTextSearch() }
        try await inNewFolder { try changesets() }
        try await inNewFolder { try sqlHelpers1() }
        try await inNewFolder { try strataSquealLanding() }
        try await inNewFolder { try migrations() }
        try await inNewFolder { try encryption() }
        #expect(printed.take() == [])
    }

    /// The Encryption article's block: it encrypts where an encrypting SQLite is loaded (CI's
    /// second pass) and is refused by name elsewhere.
    func encryption() throws {
        do {
            // DOC:begin Encryption 1
            var configuration = Database.Configuration()
            configuration.passphrase = "correct horse battery staple"
            let database = try Database(path: "secret.sqlite", configuration: configuration)
            // DOC:end
            #expect(try database.read { try $0.query("SELECT count(*) FROM sqlite_master") as Int? } == 0)
        } catch SQLiteLibraryError.encryptionUnavailable {
            return
        }
    }

    func migrations1() async throws {
        let database = try Database(path: "bookmarks.sqlite")
        // DOC:begin Migrations 1
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", sql: "CREATE TABLE bookmark(id INTEGER PRIMARY KEY, url TEXT NOT NULL)")
        migrator.registerMigration("v2", sql: "ALTER TABLE bookmark ADD COLUMN title TEXT")
        try await migrator.migrate(database)   // or try migrator.migrate(connection)
        // DOC:end
        let columns = try await database.read { db in try db.query("SELECT name FROM pragma_table_info('bookmark')") as [String] }
        #expect(columns == ["id", "url", "title"])
        #expect(try await migrator.migrate(database) == [])
        try await database.close()
    }

    func gettingStarted1() throws {
        // DOC:begin GettingStarted 1
        let database = try Database(path: "cars.sqlite")   // WAL, foreign keys on, a 5 s busy timeout
        try database.write { db in                           // one IMMEDIATE transaction
            try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER)")
            try db.run("INSERT INTO cars(name, price) VALUES(?, ?)", "Audi", 52_642)
        }
        let names: [String] = try database.read { db in try db.query("SELECT name FROM cars ORDER BY name") }
        let price: Int? = try database.read { db in try db.query("SELECT price FROM cars WHERE id = ?", 1) }
        print(price ?? 0)   // 52642
        // DOC:end
        #expect(names == ["Audi"])
    }

    func concurrency1() async throws {
        let setup = try Database(path: "app.sqlite")
        try await setup.write { try $0.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)") }
        try await setup.close()
        // DOC:begin Concurrency 1
        let database = try Database(path: "app.sqlite")
        try await database.write { db in try db.run("INSERT INTO book(title) VALUES(?)", "Dune") }
        let titles = try await database.read { db in try db.query("SELECT title FROM book") as [String] }
        try await database.close()   // app.sqlite alone now holds every commit
        // DOC:end
        #expect(titles == ["Dune"])
        #expect(((try? FileManager.default.attributesOfItem(atPath: "app.sqlite-wal"))?[.size] as? NSNumber)?.intValue ?? 0 == 0)
    }

    func concurrency2() async throws {
        let database = try Database(path: "books.sqlite")
        try await database.write { db in
            try Book.createTable(db)
            try db.run("INSERT INTO book(id, authorId, title, year) VALUES(42, 1, 'Dune', 1965)")
        }
        // DOC:begin Concurrency 2
        let book = try await database.readOnCallingThread { db in try Book.fetchOne(db, id: 42) }
        // DOC:end
        #expect(book?.title == "Dune")
        try await database.close()
    }

    func fullTextSearch() throws {
        let db = try Connection(path: "search.sqlite")
        try Book.createTable(db)
        try db.run("INSERT INTO book(id, authorId, title, year) VALUES(1, 1, 'Dune', 1965), (2, 1, 'Dune Messiah', 1969), (3, 2, 'Emma', 1815)")
        let userText = "dune"
        // DOC:begin FullTextSearch 1
        try db.createFTS5Table("docs", columns: ["title", "body"])
        try db.createFTS5Table("docs2", columns: ["body"], options: FTS5Options(tokenizer: .porter(.unicode61())))
        // DOC:end
        try db.run("INSERT INTO docs(title, body) VALUES('Dune', 'Spice'), ('Emma', 'Highbury')")
        // DOC:begin FullTextSearch 2
        try db.createFTS5Table("book_fts", columns: ["title"],
                               options: FTS5Options(content: .external(table: "book", rowID: "id")))
        let titles: [String] = try db.query(literal: """
            SELECT book.title FROM book JOIN book_fts ON book_fts.rowid = book.id
            WHERE book_fts MATCH \(FTS5Pattern(matchingAllTokensIn: "dune")) ORDER BY rank
            """)
        // DOC:end
        #expect(Set(titles) == ["Dune", "Dune Messiah"])
        // DOC:begin FullTextSearch 3
        let p = FTS5Pattern(matchingAllTokensIn: userText)   // also matchingAnyTokenIn, matchingPhrase, prefix forms
        let hits: [String] = try db.query(literal: "SELECT title FROM docs WHERE docs MATCH \(p) ORDER BY rank")
        // DOC:end
        #expect(hits == ["Dune"])
        // DOC:begin FullTextSearch 4
        try db.registerFTS5Tokenizer(named: "synonyms", wrapping: .unicode61()) { token, emit in
            emit(token)
            if token == "car" { emit("automobile") }
        }
        try db.createFTS5Table("ads", columns: ["text"], options: FTS5Options(tokenizer: .custom(name: "synonyms")))
        // DOC:end
        try db.run("INSERT INTO ads(text) VALUES('a red car')")
        #expect(try db.query("SELECT count(*) FROM ads WHERE ads MATCH 'automobile'") as Int? == 1)
        // DOC:begin FullTextSearch 5
        try BookText.createFTS5Table(db, options: FTS5Options(content: .external(table: "book", rowID: "id")))
        // DOC:end
        // DOC:begin FullTextSearch 5
        let pattern = FTS5Pattern(matchingAllTokensIn: userText)
        let best = try BookText.matching(pattern).orderByRank().limit(20).fetchAll(db)        // table MATCH, best first
        let weighted = try BookText.matching(pattern).order { _ in BookText.bm25(10) }.fetchAll(db)
        let marked = try BookText.matching(pattern)
            .select { ($0.id, BookText.highlight(\.title, open: "<b>", close: "</b>")) }    // also snippet(_:open:close:ellipsis:tokens:)
            .fetchAll(db)
        let books = try Book.join(BookText.self, on: { book, text in book.id == text.id })      // the index joined back to its table
            .where { _, text in text.title.match(pattern) }                                     // a column filter
            .fetchAll(db)
        // DOC:end
        #expect(Set(best.map(\.title)) == ["Dune", "Dune Messiah"])
        #expect(weighted.count == 2)
        #expect(Set(marked.map(\.1)) == ["<b>Dune</b>", "<b>Dune</b> Messiah"])
        #expect(Set(books.map(\.0.title)) == ["Dune", "Dune Messiah"])
        try db.execute("CREATE TABLE t(j TEXT)")
        // DOC:begin FullTextSearch 6
        try db.run("INSERT INTO t(j) VALUES (?)", JSONBinding(["a", "b"]))
        let back: JSONBinding<[String]>? = try db.query("SELECT j FROM t")        // back?.value == ["a", "b"]
        let first: String? = try db.query("SELECT json_extract(j, '$[0]') FROM t")
        // DOC:end
        #expect(back?.value == ["a", "b"])
        #expect(first == "a")
    }

    func changesets() throws {
        let setup = "CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT, team TEXT, score INTEGER); INSERT INTO players VALUES(1, 'Ann', 'red', 5), (2, 'Bob', 'blue', 7), (3, 'Cy', 'red', 1)"
        let db = try Connection(path: "game.sqlite")
        try db.execute(setup)
        // DOC:begin WorkingWithChangesets 1
        let session = try db.recordChanges()
        try db.run("UPDATE players SET score = score + 10 WHERE team = ?", "red")
        let edit = try session.changeset()
        session.close()

        try db.apply(try edit.inverted()) { _ in .abort }   // undo
        try db.apply(edit) { _ in .abort }                  // redo
        // DOC:end
        #expect(try db.query("SELECT score FROM players ORDER BY id") as [Int] == [15, 7, 11])
        // DOC:begin WorkingWithChangesets 4
        for change in try edit.changes() {
            print(change.table, change.operation, change.primaryKey, change.oldValues, change.newValues)
        }
        // DOC:end
        #expect(printed.take().count == 2)

        let phone = try Connection(path: "phone.sqlite")
        let laptop = try Connection(path: "laptop.sqlite")
        try phone.execute(setup)
        try laptop.execute(setup)
        let phoneSession = try phone.recordChanges()
        try phone.run("UPDATE players SET score = 50 WHERE id = 1")
        let fromPhone = try phoneSession.changeset()
        let laptopSession = try laptop.recordChanges()
        try laptop.run("UPDATE players SET score = 40 WHERE id = 1")
        let laptopChanges = try laptopSession.changeset()
        // DOC:begin WorkingWithChangesets 2
        let rebase = try laptop.apply(fromPhone) { conflict in
            switch conflict.kind {
            case .data, .conflict: return .replace      // the phone wins
            case .notFound, .constraint, .foreignKey: return .omit
            }
        }
        // DOC:end
        #expect(try laptop.query("SELECT score FROM players WHERE id = 1") as Int? == 50)
        // DOC:begin WorkingWithChangesets 3
        let outgoing = try Rebaser(rebase).rebase(laptopChanges)
        // DOC:end
        // The phone's value replaced the laptop's, so the rebased laptop changes no longer carry it.
        #expect(try outgoing.changes().isEmpty)
    }
}
