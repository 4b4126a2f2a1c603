import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

private typealias SAuthor = TypedSQLShelf.Author
private typealias SBook = TypedSQLShelf.Book
private typealias SAuditEntry = TypedSQLShelf.AuditEntry

@Suite struct RecordTriggerTests {
    private func makeDB() throws -> Connection {
        let db = try connection(withTablesOf: SAuthor.self, SBook.self, SAuditEntry.self)
        _ = try SAuthor(id: nil, name: "Le Guin", bookCount: 0).inserted(db)
        _ = try SAuthor(id: nil, name: "Vian", bookCount: 0).inserted(db)
        return db
    }

    @Test func issueSpelling() throws {
        let db = try makeDB()
        try SBook.afterInsert(named: "count_books") { new in
            SAuthor.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
        }.create(db, temporary: false)
        for author in [1, 1, 2] as [Int64] { _ = try SBook(id: nil, authorId: author, title: "t", year: 2000, price: nil).inserted(db) }
        #expect(try SAuthor.order(by: \.id).fetchAll(db).map(\.bookCount) == [2, 1])
        let stored: String? = try db.query("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'count_books'")
        #expect(
            stored
                == #"CREATE TRIGGER "count_books" AFTER INSERT ON "ts_book" FOR EACH ROW BEGIN UPDATE "ts_author" SET "bookCount" = "ts_author"."bookCount" + 1 WHERE "ts_author"."id" = "NEW"."authorId"; END"#
        )
    }

    @Test func updateDeleteBeforeAndWhen() throws {
        let db = try makeDB()
        try SBook.afterUpdate(of: \.title, when: { old, new in old.title != new.title }) { old, new in
            SAuditEntry.insert {
                $0.bookId.set(to: new.id); $0.action.set(to: "retitle"); $0.title = old.title
            }
        }.create(db)
        try SBook.afterDelete { old in
            SAuditEntry.insert {
                $0.bookId.set(to: old.id); $0.action.set(to: "delete"); $0.title.set(to: old.title)
            }
            SAuthor.where { $0.id == old.authorId }.update { $0.bookCount -= 1 }
        }.create(db)
        try SBook.beforeInsert(named: "no_empty_titles", when: { new in new.title == "" }) { new in
            SBook.where { $0.title == "" }.delete()
        }.create(db, temporary: true)
        try SBook.beforeDelete { old in
            SAuditEntry.where { $0.bookId == old.id }.delete()
        }.create(db)

        var book = try SBook(id: nil, authorId: 1, title: "Draft", year: 2000, price: nil).inserted(db)
        try db.run(literal: "UPDATE ts_book SET year = 2001") // not OF title: nothing
        book.title = "Lavinia"; try book.update(db)
        try book.update(db) // same title: WHEN is false
        #expect(try SAuditEntry.fetchAll(db).map { [$0.action, $0.title] } == [["retitle", "Draft"]])
        try book.delete(db)
        #expect(try SAuditEntry.fetchAll(db).map { [$0.action, $0.title] } == [["delete", "Lavinia"]])
        #expect(try SAuthor.fetchOne(db, id: 1)?.bookCount == -1)
        let temporary: [String] = try db.query("SELECT name FROM sqlite_temp_master WHERE type = 'trigger'")
        #expect(temporary == ["no_empty_titles"])
        let named: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        #expect(named == ["ts_book_after_delete", "ts_book_after_update_title", "ts_book_before_delete"])
        try SBook.beforeDelete { old in SAuditEntry.where { $0.bookId == old.id }.delete() }.drop(db)
        #expect(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'ts_book_before_delete'") as Int == 0)
    }

    @Test func badInputThrows() throws {
        let db = try Connection()
        // A trigger on a table that does not exist.
        #expect(throws: SQLiteError.self) {
            try SBook.afterInsert { new in SAuthor.where { $0.id == new.authorId }.update { $0.bookCount += 1 } }.create(db)
        }
        // An UPDATE that assigns nothing, an update trigger OF something that is no column.
        #expect(throws: RecordQueryError.self) { try SBook.afterInsert { _ in SAuthor.all().update { _ in } }.sql() }
        #expect(throws: RecordQueryError.self) { try SBook.afterUpdate(of: \.title.name) { _, new in SBook.where { $0.id == new.id }.delete() }.sql() }
        #expect(throws: RecordQueryError.self) { try SAuthor.all().update { _ in }.execute(db) }
    }

    @Test func writeStatementsRunOnTheirOwn() throws {
        let db = try makeDB()
        try SAuthor.where { $0.name == "Vian" }.update {
            $0.bookCount += 5; $0.bookCount -= 2
        }.execute(db)
        #expect(try SAuthor.fetchOne(db, id: 2)?.bookCount == 3)
        let changed = try SAuditEntry.insert {
            $0.bookId.set(to: 7); $0.action.set(to: "x"); $0.title.set(to: "it's\0")
        }.execute(db)
        #expect(changed == 1)
        #expect(try SAuditEntry.fetchAll(db).map(\.title) == ["it's\0"])
    }

    /// Generated writes against the same triggers written by hand: the typed triggers carry the
    /// generated values as literals (quotes, NUL, keywords, Int64 limits), the hand-written ones
    /// read them from a table, so both see the same values without sharing a renderer.
    @Test func matchesHandWrittenTriggers() throws {
        try PropertyCheck.run("typed triggers = hand-written triggers", cases: 25) { random in
            let typed = try makeDB()
            let hand = try makeDB()
            let (inserted, deleted) = (hardText(&random), hardText(&random))
            let threshold = Int(Gen.int64(&random))
            try SBook.afterInsert(named: "ins") { new in
                SAuthor.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
                SAuditEntry.insert {
                    $0.bookId.set(to: new.id); $0.action.set(to: inserted); $0.title = new.title
                }
            }.create(typed, temporary: random.oneIn(2))
            try SBook.afterUpdate(named: "upd", of: \.title, \.authorId, when: { old, new in old.authorId != new.authorId }) { old, new in
                SAuthor.where { $0.id == old.authorId }.update { $0.bookCount -= 1 }
                SAuthor.where { $0.id == new.authorId }.update { $0.bookCount += 1 }
            }.create(typed)
            try SBook.afterDelete(named: "del", when: { old in old.year > threshold }) { old in
                SAuditEntry.insert {
                    $0.bookId.set(to: old.id); $0.action.set(to: deleted); $0.title.set(to: old.title)
                }
            }.create(typed)

            try hand.execute("CREATE TABLE cfg(k INTEGER PRIMARY KEY, v)")
            try hand.run("INSERT INTO cfg VALUES (1, ?), (2, ?), (3, ?)", inserted, deleted, threshold)
            try hand.execute(
                """
                CREATE TRIGGER ins AFTER INSERT ON ts_book BEGIN
                    UPDATE ts_author SET bookCount = bookCount + 1 WHERE id = NEW.authorId;
                    INSERT INTO audit(bookId, action, title) VALUES (NEW.id, (SELECT v FROM cfg WHERE k = 1), NEW.title);
                END;
                CREATE TRIGGER upd AFTER UPDATE OF title, authorId ON ts_book WHEN OLD.authorId <> NEW.authorId BEGIN
                    UPDATE ts_author SET bookCount = bookCount - 1 WHERE id = OLD.authorId;
                    UPDATE ts_author SET bookCount = bookCount + 1 WHERE id = NEW.authorId;
                END;
                CREATE TRIGGER del AFTER DELETE ON ts_book WHEN OLD.year > (SELECT v FROM cfg WHERE k = 3) BEGIN
                    INSERT INTO audit(bookId, action, title) VALUES (OLD.id, (SELECT v FROM cfg WHERE k = 2), OLD.title);
                END;
                """)
            for _ in 0..<random.int(1...30) {
                let id = Int64(random.int(1...8))
                let author = Int64(random.int(1...2))
                let title = hardText(&random)
                let year = Int(Gen.int64(&random))
                let statement: (sql: SQLFragment, ignored: Bool) =
                    switch random.int(0...2) {
                    case 0: ("INSERT OR IGNORE INTO ts_book(id, authorId, title, year) VALUES (\(id), \(author), \(title), \(year))", false)
                    case 1: ("UPDATE ts_book SET authorId = \(author), title = \(title) WHERE id = \(id)", false)
                    default: ("DELETE FROM ts_book WHERE id = \(id)", false)
                    }
                try typed.run(literal: statement.sql)
                try hand.run(literal: statement.sql)
            }
            for table in ["ts_author", "ts_book", "audit"] {
                try require(try tableDump(typed, table) == tableDump(hand, table), "table \(table) differs")
            }
        }
    }
}
