// `RecordSchema`: the plan from records to a real database (CREATE TABLE, ADD COLUMN, the kernel's
// rebuild, CREATE INDEX), data loss flagged and refused, and `migrate` all or nothing.
import Foundation
import StrataSQift
import StrataTestSupport
import Testing
@testable import StrataRecords

enum PlanShelf {
    @Record(table: "author") struct Author: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String }
    @Record(table: "author") struct AuthorWithBio: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String; var bio: String? }
    @Record(table: "book") struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(PlanShelf.Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        @Check("year > 0") var year: Int
    }
    /// `Book` with a nullable column more: SQLite can add it.
    @Record(table: "book") struct BookWithNote: Equatable {
        @PrimaryKey var id: Int64?
        @References(PlanShelf.Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        @Check("year > 0") var year: Int
        var note: String?
    }
    /// `Book` with a column more that the plan must drop to reach `Book`.
    @Record(table: "book") struct BookWithSubtitle: Equatable {
        @PrimaryKey var id: Int64?
        @References(PlanShelf.Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        @Check("year > 0") var year: Int
        @Indexed var subtitle: String?
    }
    /// `Book` with `title` renamed: a drop and an add, never guessed.
    @Record(table: "book") struct BookWithHeading: Equatable {
        @PrimaryKey var id: Int64?
        @References(PlanShelf.Author.self, onDelete: .cascade) var authorId: Int64
        var heading: String?
        @Check("year > 0") var year: Int
    }
    /// Over a hand-made table whose `pages` is TEXT, `title` nullable and `bookId` without its foreign key.
    @Record(table: "edition") struct Edition: Equatable {
        @PrimaryKey var id: Int64?
        @References(PlanShelf.Book.self) var bookId: Int64
        var pages: Int
        var title: String
    }
}

/// Everything a migration could change: the schema's text and every row of every table, quoted.
private func snapshot(_ db: Connection) throws -> [String] {
    let master: [String] = try db.query("SELECT type || '|' || name || '|' || tbl_name || '|' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
    return master + (try quotedRowsOfEveryTable(db))
}

private func makeLibrary(_ db: Connection) throws -> (PlanShelf.Author, [PlanShelf.Book]) {
    try PlanShelf.Author.createTable(db)
    try PlanShelf.Book.createTable(db)
    let author = try PlanShelf.Author(id: nil, name: "Le Guin").inserted(db)
    let books = try [
        PlanShelf.Book(id: nil, authorId: author.id ?? 0, title: "The Dispossessed", year: 1974).inserted(db),
        PlanShelf.Book(id: nil, authorId: author.id ?? 0, title: "Lathe of Heaven", year: 1971).inserted(db)
    ]
    return (author, books)
}

/// An in-memory connection holding ``makeLibrary(_:)``'s rows, with foreign keys on when
/// `foreignKeys`.
private func libraryDatabase(foreignKeys: Bool = false) throws -> Connection {
    let db = try Connection()
    if foreignKeys { try db.execute("PRAGMA foreign_keys = ON") }
    _ = try makeLibrary(db)
    return db
}

@Suite struct RecordSchemaPlanTests {
    @Test func planIsEmptyWhenTheDatabaseMatches() throws {
        let db = try libraryDatabase()
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        let plan = try schema.plan(for: db)
        #expect(plan.isEmpty)
        #expect(plan.sql.isEmpty)
        #expect(!plan.losesData)
        #expect(try RecordSchema([PlanShelf.Author.self, PlanShelf.Book.self]).plan(for: db).isEmpty)
        let before = try snapshot(db)
        try schema.migrate(db)
        #expect(try snapshot(db) == before)
        // A table no record declares is left alone.
        try db.execute("CREATE TABLE unrelated (x TEXT)")
        #expect(try schema.plan(for: db).isEmpty)
    }

    @Test func missingTablesAreCreatedAsCreateTableMakesThem() throws {
        let reference = try Connection()
        _ = try makeLibrary(reference)
        let db = try Connection()
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.createTable, .createTable])
        #expect(!plan.losesData)
        let made: [String] = try reference.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        #expect(plan.sql == made)
        try schema.migrate(db)
        let created: [String] = try db.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        #expect(created == made)
        #expect(try schema.plan(for: db).isEmpty)
        try PlanShelf.Book.checkSchema(db)
    }

    @Test func nullableColumnIsAddedKeepingRows() throws {
        let db = try Connection()
        let (_, books) = try makeLibrary(db)
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.BookWithNote.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.addColumn])
        #expect(plan.sql == [#"ALTER TABLE "book" ADD COLUMN "note" TEXT"#])
        #expect(!plan.losesData)
        try schema.migrate(db)
        let read = try PlanShelf.BookWithNote.fetchAll(db)
        #expect(read.map(\.title) == books.map(\.title))
        #expect(read.allSatisfy { $0.note == nil })
        #expect(try schema.plan(for: db).isEmpty)
        try PlanShelf.BookWithNote.checkSchema(db)
    }

    @Test func aColumnSpelledInAnotherCaseIsRebuiltUnderTheRecordsName() throws {
        let db = try Connection()
        try PlanShelf.Author.createTable(db)
        try db.execute("INSERT INTO author (id, name) VALUES (1, 'Vian')")
        try db.execute(
            #"CREATE TABLE book (id INTEGER PRIMARY KEY, authorID INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE, title TEXT NOT NULL, year INTEGER NOT NULL CHECK (year > 0))"#
        )
        try db.execute("CREATE INDEX book_title_idx ON book (title)")
        try db.execute("INSERT INTO book (authorID, title, year) VALUES (1, 'Froth', 1947)")
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.rebuildTable, .createIndex])
        #expect(!plan.losesData)
        #expect(plan.steps[0].summary.contains(#"spelled "authorID""#))
        try schema.migrate(db)
        #expect(try PlanShelf.Book.fetchAll(db) == [PlanShelf.Book(id: 1, authorId: 1, title: "Froth", year: 1947)])
        #expect(try schema.plan(for: db).isEmpty)
        try PlanShelf.Book.checkSchema(db)
    }

    @Test func aPlanWithoutRebuildRunsInsideATransactionWithForeignKeysOn() throws {
        let db = try libraryDatabase(foreignKeys: true)
        let schema = RecordSchema(PlanShelf.AuthorWithBio.self, PlanShelf.BookWithNote.self)
        try db.transaction {
            try schema.migrate(db)
            #expect(db.isInTransaction)
        }
        #expect(try schema.plan(for: db).isEmpty)
        #expect(try db.foreignKeysEnabled())
        #expect(try PlanShelf.AuthorWithBio.fetchAll(db).map(\.bio) == [nil])
    }

    @Test func typeAndNotNullChangesRebuildKeepingRowsAndCheckForeignKeys() throws {
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        let (_, books) = try makeLibrary(db)
        try db.execute("CREATE TABLE edition (id INTEGER PRIMARY KEY, bookId INTEGER, pages TEXT, title TEXT)")
        try db.execute("CREATE TRIGGER edition_touch AFTER UPDATE ON edition BEGIN SELECT 1; END")
        try db.execute("CREATE VIEW edition_title AS SELECT title FROM edition")
        try db.run("INSERT INTO edition (bookId, pages, title) VALUES (?, '312', 'first'), (?, '250', 'second')", books[0].id, books[1].id)
        let file = try Connection()
        for sql in try db.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid") as [String] { try file.execute(sql) }
        try file.execute("INSERT INTO author SELECT * FROM (SELECT 1, 'Le Guin')")
        try file.run("INSERT INTO book (authorId, title, year) VALUES (1, 'a', 1), (1, 'b', 2)")
        try file.run("INSERT INTO edition (bookId, pages, title) VALUES (1, '312', 'first')")
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self, PlanShelf.Edition.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.rebuildTable, .createIndex])
        #expect(plan.steps.allSatisfy { $0.table == "edition" })
        #expect(!plan.losesData)
        #expect(plan.sql.contains(#"CREATE INDEX "edition_bookId_idx" ON "edition" ("bookId")"#))
        #expect(plan.sql.contains(#"DROP TABLE main."edition""#))
        try schema.migrate(db)
        // The plan's SQL as a migration file (foreign keys off, one transaction) reaches the same schema.
        try file.transaction { for sql in plan.sql { try file.execute(sql) } }
        #expect(try schema.plan(for: file).isEmpty)
        #expect(try file.query("SELECT title FROM edition_title") as [String] == ["first"])
        #expect(try db.query("SELECT title FROM edition_title") as [String] == ["first", "second"])

        let editions = try PlanShelf.Edition.fetchAll(db)
        #expect(
            editions == [
                PlanShelf.Edition(id: 1, bookId: books[0].id ?? 0, pages: 312, title: "first"),
                PlanShelf.Edition(id: 2, bookId: books[1].id ?? 0, pages: 250, title: "second")
            ])
        let types: [String] = try db.query("SELECT typeof(pages) FROM edition")
        #expect(types == ["integer", "integer"])
        let triggers: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        #expect(triggers == ["edition_touch"])
        #expect(try db.foreignKeysEnabled())
        #expect(try schema.plan(for: db).isEmpty)
        try PlanShelf.Edition.checkSchema(db)
        // The foreign key the rebuild added holds.
        #expect(throws: SQLiteError.self) { try PlanShelf.Edition(id: nil, bookId: 99, pages: 1, title: "x").inserted(db) }
    }

    @Test func foreignKeyViolationsRollTheMigrationBack() throws {
        let db = try libraryDatabase(foreignKeys: true)
        try db.execute(
            "CREATE TABLE edition (id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL, pages INTEGER NOT NULL, title TEXT NOT NULL); INSERT INTO edition (bookId, pages, title) VALUES (99, 10, 'orphan')"
        )
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self, PlanShelf.Edition.self)
        #expect(try schema.plan(for: db).steps.map(\.kind) == [.rebuildTable, .createIndex])
        let before = try snapshot(db)
        #expect(throws: (any Error).self) { try schema.migrate(db) }
        #expect(try snapshot(db) == before)
        #expect(!db.isInTransaction)
        #expect(try db.foreignKeysEnabled())
    }

    @Test func droppingAColumnWithDataIsRefusedUnlessAllowed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let db = try Connection(storageLocation: .onDisk(path))
        try PlanShelf.Author.createTable(db)
        try PlanShelf.BookWithSubtitle.createTable(db)
        let author = try PlanShelf.Author(id: nil, name: "Calvino").inserted(db)
        _ = try PlanShelf.BookWithSubtitle(id: nil, authorId: author.id ?? 0, title: "Invisible Cities", year: 1972, subtitle: "Le città").inserted(db)
        _ = try PlanShelf.BookWithSubtitle(id: nil, authorId: author.id ?? 0, title: "Palomar", year: 1983, subtitle: nil).inserted(db)

        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        let plan = try schema.plan(for: db)
        #expect(plan.losesData)
        #expect(plan.steps.map(\.kind) == [.dropIndex, .rebuildTable])
        #expect(plan.steps.filter(\.losesData).map(\.table) == ["book"])
        #expect(plan.steps[1].summary.contains(#""subtitle""#))

        let before = try snapshot(db)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: RecordSchemaError.wouldLoseData([plan.steps[1].summary])) { try schema.migrate(db) }
        #expect(try snapshot(db) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)

        try schema.migrate(db, allowingDataLoss: true)
        #expect(try PlanShelf.Book.fetchAll(db).map(\.title) == ["Invisible Cities", "Palomar"])
        let columns: [String] = try db.query("SELECT name FROM pragma_table_info('book')")
        #expect(columns == ["id", "authorId", "title", "year"])
        #expect(try schema.plan(for: db).isEmpty)
        try PlanShelf.Book.checkSchema(db)
    }

    @Test func droppingAnEmptyColumnLosesNothing() throws {
        let db = try connection(withTablesOf: PlanShelf.Author.self, PlanShelf.BookWithSubtitle.self)
        let author = try PlanShelf.Author(id: nil, name: "Calvino").inserted(db)
        _ = try PlanShelf.BookWithSubtitle(id: nil, authorId: author.id ?? 0, title: "Palomar", year: 1983, subtitle: nil).inserted(db)
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.Book.self)
        #expect(try !schema.plan(for: db).losesData)
        try schema.migrate(db)
        #expect(try PlanShelf.Book.fetchAll(db).map(\.title) == ["Palomar"])
        #expect(try schema.plan(for: db).isEmpty)
    }

    @Test func aRenameIsADropAndAnAddFlaggedAsLosingData() throws {
        let db = try libraryDatabase()
        let schema = RecordSchema(PlanShelf.Author.self, PlanShelf.BookWithHeading.self)
        let plan = try schema.plan(for: db)
        #expect(plan.losesData)
        #expect(plan.steps.map(\.kind) == [.dropIndex, .rebuildTable])
        #expect(plan.steps[1].summary.contains(#"column "title" of table "book" is dropped, with its data"#))
        #expect(plan.steps[1].summary.contains(#"column "heading" of table "book" is added"#))
        #expect(throws: RecordSchemaError.self) { try schema.migrate(db) }
        try schema.migrate(db, allowingDataLoss: true)
        #expect(try PlanShelf.BookWithHeading.fetchAll(db).map(\.heading) == [nil, nil])
        #expect(try schema.plan(for: db).isEmpty)
    }

    @Test func aFailingMigrationLeavesTheDatabaseExactlyAsBefore() throws {
        let db = try libraryDatabase(foreignKeys: true)
        // `title` NOT NULL over a row holding NULL: the rebuild fails after author's ADD COLUMN ran.
        try db.execute(
            "CREATE TABLE edition (id INTEGER PRIMARY KEY, bookId INTEGER REFERENCES book(id), pages INTEGER NOT NULL, title TEXT); INSERT INTO edition (bookId, pages, title) VALUES (1, 10, NULL)"
        )
        let schema = RecordSchema(PlanShelf.AuthorWithBio.self, PlanShelf.Book.self, PlanShelf.Edition.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.addColumn, .rebuildTable, .createIndex])
        #expect(!plan.losesData)
        let before = try snapshot(db)
        #expect(throws: SQLiteError.self) { try schema.migrate(db) }
        #expect(try snapshot(db) == before)
        #expect(!db.isInTransaction)
        #expect(try db.foreignKeysEnabled())
        #expect(try schema.plan(for: db) == plan)

        // Inside the caller's transaction it is a savepoint: the caller's own work stays.
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.transaction {
            try db.execute("CREATE TABLE mine (x TEXT)")
            #expect(throws: SQLiteError.self) { try schema.migrate(db) }
            #expect(db.isInTransaction)
        }
        let mine: [String] = try db.query("SELECT name FROM sqlite_master WHERE name = 'mine'")
        #expect(mine == ["mine"])
        #expect(try schema.plan(for: db) == plan)
    }
}

@Suite struct RecordSchemaPlanPropertyTests {
    /// Random names and random changes between two versions of a table with rows: the plan loses
    /// data exactly when a column with values goes, `migrate` reaches the records with every row and
    /// every kept value, and the plan's SQL run as a migration file reaches the same schema.
    @Test func migrateReachesTheRecordsWithAnyNames() throws {
        try PropertyCheck.run("record schema plan with any names", cases: 25) { random in
            var names = Gen.distinctIdentifiers(&random, count: 9)
            names = names.map { isRowIDName($0) ? $0 + "_" : $0 }
            let (table, key) = (names[0], names[1])
            let types = ["INTEGER", "REAL", "TEXT", "BLOB", ""]
            let keyColumn = RecordColumn(name: key, sqlType: "INTEGER", isOptional: true, isPrimaryKey: true)
            var old: [RecordColumn] = [keyColumn], new: [RecordColumn] = [keyColumn]
            var constraints: [RecordConstraint] = []
            var kept: [String] = [], dropped: [String] = []
            for name in names[2..<7] {
                let column = RecordColumn(name: name, sqlType: random.pick(types), isOptional: random.oneIn(2), isPrimaryKey: false)
                old.append(column)
                switch random.int(0...4) {
                case 0: dropped.append(name)
                case 1: new.append(RecordColumn(name: name, sqlType: random.pick(types), isOptional: column.isOptional, isPrimaryKey: false))
                case 2: new.append(RecordColumn(name: name, sqlType: column.sqlType, isOptional: !column.isOptional, isPrimaryKey: false))
                default: new.append(column); kept.append(name)
                }
            }
            for name in names[7...] where random.oneIn(2) {
                new.append(RecordColumn(name: name, sqlType: random.pick(types), isOptional: true, isPrimaryKey: false))
            }
            for column in new.dropFirst() {
                switch random.int(0...3) {
                case 0: constraints.append(.indexed(column.name))
                case 1: constraints.append(.check(column.name, "(" + quoteIdentifier(column.name) + " IS NULL) OR 1"))
                default: break
                }
            }
            let oldStatements = RecordStatements(table: table, columns: old, primaryKeyIndex: 0)
            let rowCount = random.int(0...3)
            var rows: [[Bindable?]] = []
            for _ in 0..<rowCount {
                rows.append(
                    old.dropFirst().map { column -> Bindable? in
                        switch column.sqlType {
                        case "REAL": return Double(random.int(-99...99)) / 4
                        case "TEXT": return Gen.text(&random, maxPieces: 3, nul: false)
                        case "BLOB": return Gen.bytes(&random)
                        default: return Int64(random.int(-99...99))
                        }
                    })
            }
            func makeOld() throws -> Connection {
                let db = try Connection()
                for sql in try oldStatements.createTableStatements(ifNotExists: false, constraints: []) { try db.execute(sql) }
                let insert =
                    "INSERT INTO \(quoteIdentifier(table)) (\(old.dropFirst().map { quoteIdentifier($0.name) }.joined(separator: ", "))) VALUES (\(old.dropFirst().map { _ in "?" }.joined(separator: ", ")))"
                for row in rows { try db.run(insert, row) }
                return db
            }
            func values(_ db: Connection, _ columns: [String]) throws -> [String] {
                let list = ([key] + columns).map { "quote(" + quoteIdentifier($0) + ")" }.joined(separator: " || ',' || ")
                return try db.query("SELECT \(list) FROM \(quoteIdentifier(table)) ORDER BY \(quoteIdentifier(key))")
            }
            let declaration = RecordSchema.TableDeclaration(
                record: "R", table: table, columns: new, primaryKeyIndex: 0, constraints: constraints,
                statements: RecordStatements(table: table, columns: new, primaryKeyIndex: 0))
            let schema = RecordSchema(tables: [declaration])

            let db = try makeOld()
            let plan = try schema.plan(for: db)
            try require(plan.losesData == (!dropped.isEmpty && rowCount > 0), "losesData \(plan.losesData), dropped \(dropped), rows \(rowCount)")
            let keptBefore = try values(db, kept)
            if plan.losesData {
                let before = try snapshot(db)
                do {
                    try schema.migrate(db)
                    throw PropertyViolation("migrate dropped data without being allowed")
                } catch RecordSchemaError.wouldLoseData {}
                try require(try snapshot(db) == before, "a refused plan changed the database")
            }
            // A column made NOT NULL over rows is filled by the rows' values, all non-NULL here.
            try schema.migrate(db, allowingDataLoss: true)
            let after = try schema.plan(for: db)
            try require(after.isEmpty, "plan after migrate: \(after)")
            let differences = try recordSchemaDifferences(table: table, columns: new, primaryKeyIndex: 0, constraints: constraints, in: db)
            try require(differences.isEmpty, "differences after migrate: \(differences)")
            try require(try values(db, kept) == keptBefore, "kept values changed")

            // The plan's SQL as a migration file, on the same old database.
            let file = try makeOld()
            try file.transaction { for sql in plan.sql { try file.execute(sql) } }
            let afterFile = try schema.plan(for: file)
            try require(afterFile.isEmpty, "plan after running plan.sql: \(afterFile)\n\(plan.sql)")
            try require(try values(file, kept) == keptBefore, "kept values changed by plan.sql")
        }
    }
}

/// A column the record declares that the database has as a generated column: a rebuild (here
/// forced by the generated column itself, which an INSERT cannot write) copies its values into
/// the new plain column, as before the plan ran on the shared engine.
@Record(table: "shouting") struct ShoutingOptional: Equatable { @PrimaryKey var id: Int64?; var first: String; var shout: String? }
@Record(table: "shouting") struct ShoutingRequired: Equatable { @PrimaryKey var id: Int64?; var first: String; var shout: String }

@Suite struct RecordSchemaGeneratedColumnTests {
    @Test(arguments: [false, true])
    func aGeneratedColumnsValuesAreKept(required: Bool) throws {
        let db = try Connection()
        try db.execute("CREATE TABLE shouting(id INTEGER PRIMARY KEY, first TEXT NOT NULL, shout TEXT GENERATED ALWAYS AS (first || '!') STORED)")
        try db.execute("INSERT INTO shouting(first) VALUES ('a'), ('b')")
        if required { try RecordSchema(ShoutingRequired.self).migrate(db) } else { try RecordSchema(ShoutingOptional.self).migrate(db) }
        let values: [String] = try db.query("SELECT quote(shout) FROM shouting ORDER BY id")
        #expect(values == ["'a!'", "'b!'"])
        let hidden: [Int] = try db.query("SELECT hidden FROM pragma_table_xinfo('shouting')")
        #expect(hidden == [0, 0, 0])
    }
}
