// `@References`, `@Indexed`, `@Unique` and `@Check`: `createTable` declares them, and SQLite
// enforces what it declared (foreign keys with `PRAGMA foreign_keys = ON`).
import Foundation
import StrataSQift
import StrataTestSupport
import Testing
@testable import StrataRecords

/// The records of these tests, in a namespace: the target has top-level `Author` and `Book`.
enum ConstraintShelf {
    struct Metadata: Codable, Equatable { var tags: [String]; var rating: Double? }

    @Record struct Author: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String }
    @Record struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        @Check("year > 0") var year: Int
        @JSON var metadata: ConstraintShelf.Metadata // qualified: the generated extension is at file scope
    }

    /// A reference to its own type, nullable, set to NULL when the manager goes.
    @Record struct Employee: Equatable {
        @PrimaryKey var id: Int64?
        var name: String
        @References(Employee.self, onDelete: .setNull) var managerId: Int64?
    }

    /// Keywords everywhere: the table, the columns, the referenced table.
    @Record(table: "order") struct Order: Equatable {
        @PrimaryKey @Column("select") var id: Int64?
        @References(Author.self, onDelete: .restrict, onUpdate: .cascade) @Column("from") var from: Int64
        @Unique @Indexed var group: String
        @Check(#""where" <> ''"#) @Column("where") @Indexed var whereText: String
        @Check("\"group\" <> \"where\"") var note: String?
    }

    /// A text key referenced by another record, with an update that cascades.
    @Record struct Country: Equatable { @PrimaryKey var code: String; var name: String }
    @Record struct City: Equatable {
        @PrimaryKey var id: Int64?
        @References(Country.self, onUpdate: .cascade) var countryCode: String
        @Check("length(name) > 0") @Check("name = trim(name)") var name: String
    }

    /// A record without a key cannot be referenced.
    @Record struct Keyless: Equatable { var label: String }
    @Record struct PointsAtKeyless: Equatable { @PrimaryKey var id: Int64?; @References(Keyless.self) var keylessId: Int64 }

    /// A reference on the key (one to one): the key is indexed already.
    @Record struct Profile: Equatable { @PrimaryKey @References(Author.self, onDelete: .cascade) var authorId: Int64; var bio: String }
}

extension ConstraintShelf.Book { static let author = belongsTo(ConstraintShelf.Author.self, using: \.authorId) }
extension ConstraintShelf.Author { static let books = hasMany(ConstraintShelf.Book.self, using: \.authorId) }

private func constraintError(_ body: () throws -> Void) -> SQLiteResultCode? {
    do {
        try body()
        return nil
    } catch let error as SQLiteError {
        return error.resultCode
    } catch {
        return nil
    }
}

private func freshDatabase() throws -> Connection {
    let db = try Connection()
    try db.execute("PRAGMA foreign_keys = ON")
    try ConstraintShelf.Author.createTable(db)
    try ConstraintShelf.Book.createTable(db)
    return db
}

@Suite struct RecordConstraintTests {
    @Test func createTableDeclaresTheConstraints() throws {
        let db = try freshDatabase()
        let author: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'author'")
        #expect(author == #"CREATE TABLE "author" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL UNIQUE)"#)
        let book: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'book'")
        #expect(
            book
                == #"CREATE TABLE "book" ("id" INTEGER PRIMARY KEY, "authorId" INTEGER NOT NULL, "title" TEXT NOT NULL, "year" INTEGER NOT NULL, "metadata" TEXT NOT NULL, "#
                + #"FOREIGN KEY ("authorId") REFERENCES "author" ("id") ON DELETE CASCADE, CHECK (year > 0))"#)
        let indexes: [String] = try db.query("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'book' ORDER BY name")
        #expect(indexes == [#"CREATE INDEX "book_authorId_idx" ON "book" ("authorId")"#, #"CREATE INDEX "book_title_idx" ON "book" ("title")"#])

        // The kernel's reader sees the foreign key and the indexes as SQLite reports them.
        let foreignKeys = try db.schemaReader.foreignKeys(ofTable: "book")
        #expect(foreignKeys.map { [$0.column, $0.parentTable, $0.parentColumn ?? ""] } == [["authorId", "author", "id"]])
        let bookIndexes = try db.schemaReader.indexes(ofTable: "book").filter { $0.origin == .createIndex }
        #expect(Set(bookIndexes.map(\.columnNames)) == [["authorId"], ["title"]])
        let unique = try db.schemaReader.indexes(ofTable: "author").filter(\.isUnique)
        #expect(unique.map(\.columnNames) == [["name"]])

        // Asking again with IF NOT EXISTS changes nothing and does not throw.
        try ConstraintShelf.Book.createTable(db, ifNotExists: true)
        #expect(try db.query("SELECT count(*) FROM sqlite_master WHERE tbl_name = 'book'") as Int == 3)
        #expect(throws: SQLiteError.self) { try ConstraintShelf.Book.createTable(db) }
    }

    @Test func sqliteEnforcesWhatCreateTableDeclared() throws {
        let db = try freshDatabase()
        let vian = try ConstraintShelf.Author(id: nil, name: "Vian").inserted(db)
        let queneau = try ConstraintShelf.Author(id: nil, name: "Queneau").inserted(db)
        let metadata = ConstraintShelf.Metadata(tags: ["novel"], rating: nil)
        let kept = try ConstraintShelf.Book(id: nil, authorId: queneau.id ?? 0, title: "Zazie", year: 1959, metadata: metadata).inserted(db)
        for title in ["L'Écume des jours", "L'Automne à Pékin"] {
            _ = try ConstraintShelf.Book(id: nil, authorId: vian.id ?? 0, title: title, year: 1947, metadata: metadata).inserted(db)
        }

        #expect(constraintError { _ = try ConstraintShelf.Author(id: nil, name: "Vian").inserted(db) } == .constraintUnique)
        #expect(
            constraintError { _ = try ConstraintShelf.Book(id: nil, authorId: vian.id ?? 0, title: "t", year: 0, metadata: metadata).inserted(db) }
                == .constraintCheck)
        #expect(
            constraintError { _ = try ConstraintShelf.Book(id: nil, authorId: 999, title: "t", year: 1, metadata: metadata).inserted(db) }
                == .constraintForeignKey)
        #expect(try ConstraintShelf.Book.fetchCount(db) == 3)

        // ON DELETE CASCADE: Vian's books go with him, Queneau's stay.
        #expect(try vian.delete(db))
        #expect(try ConstraintShelf.Book.fetchAll(db) == [kept])
    }

    @Test func associationsWorkOverDeclaredReferences() throws {
        let db = try freshDatabase()
        let vian = try ConstraintShelf.Author(id: nil, name: "Vian").inserted(db)
        let queneau = try ConstraintShelf.Author(id: nil, name: "Queneau").inserted(db)
        let metadata = ConstraintShelf.Metadata(tags: [], rating: nil)
        let book = try ConstraintShelf.Book(id: nil, authorId: vian.id ?? 0, title: "L'Écume des jours", year: 1947, metadata: metadata).inserted(db)
        let credited = try ConstraintShelf.Book.including(required: ConstraintShelf.Book.author).fetchAll(db)
        #expect(credited.map { [$0.0.title, $0.1.name] } == [[book.title, "Vian"]])
        let shelves = try ConstraintShelf.Author.including(all: ConstraintShelf.Author.books).order(by: \.name).fetchAll(db)
        #expect(shelves.map { $0.0 } == [queneau, vian])
        #expect(shelves.map { $0.1 } == [[], [book]])
    }

    @Test func referenceActionsAndSelfReference() throws {
        let db = try Connection()
        try db.execute("PRAGMA foreign_keys = ON")
        try ConstraintShelf.Employee.createTable(db)
        let boss = try ConstraintShelf.Employee(id: nil, name: "Boss", managerId: nil).inserted(db)
        let worker = try ConstraintShelf.Employee(id: nil, name: "Worker", managerId: boss.id).inserted(db)
        #expect(constraintError { _ = try ConstraintShelf.Employee(id: nil, name: "Ghost", managerId: 42).inserted(db) } == .constraintForeignKey)
        try boss.delete(db) // ON DELETE SET NULL
        #expect(try ConstraintShelf.Employee.fetchAll(db) == [ConstraintShelf.Employee(id: worker.id, name: "Worker", managerId: nil)])

        // A text key: ON UPDATE CASCADE follows the renamed key; no ON DELETE is NO ACTION.
        try ConstraintShelf.Country.createTable(db)
        try ConstraintShelf.City.createTable(db)
        _ = try ConstraintShelf.Country(code: "FR", name: "France").inserted(db)
        let paris = try ConstraintShelf.City(id: nil, countryCode: "FR", name: "Paris").inserted(db)
        try db.run("UPDATE country SET code = 'FX' WHERE code = 'FR'")
        #expect(try ConstraintShelf.City.fetchOne(db, id: paris.id ?? 0)?.countryCode == "FX")
        #expect(constraintError { try db.run("DELETE FROM country") } == .constraintForeignKey)
        // Both CHECKs of one property are declared.
        #expect(constraintError { _ = try ConstraintShelf.City(id: nil, countryCode: "FX", name: "").inserted(db) } == .constraintCheck)
        #expect(constraintError { _ = try ConstraintShelf.City(id: nil, countryCode: "FX", name: " Lyon").inserted(db) } == .constraintCheck)
    }

    @Test func namesThatNeedQuoting() throws {
        let db = try freshDatabase()
        try ConstraintShelf.Order.createTable(db)
        let sql: String? = try db.query(#"SELECT sql FROM sqlite_master WHERE name = 'order'"#)
        #expect(
            sql
                == #"CREATE TABLE "order" ("select" INTEGER PRIMARY KEY, "from" INTEGER NOT NULL, "group" TEXT NOT NULL UNIQUE, "where" TEXT NOT NULL, "note" TEXT, "#
                + #"FOREIGN KEY ("from") REFERENCES "author" ("id") ON DELETE RESTRICT ON UPDATE CASCADE, CHECK ("where" <> ''), CHECK ("group" <> "where"))"#)
        // "from" gets its index; "group" is UNIQUE, so indexed already; "where" is indexed.
        let indexes: [String] = try db.query(#"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'order' AND sql IS NOT NULL ORDER BY name"#)
        #expect(indexes == ["order_from_idx", "order_where_idx"])

        let author = try ConstraintShelf.Author(id: nil, name: "A").inserted(db)
        let order = try ConstraintShelf.Order(id: nil, from: author.id ?? 0, group: "g", whereText: "w", note: nil).inserted(db)
        #expect(try ConstraintShelf.Order.where { $0.group == "g" }.fetchAll(db) == [order])
        #expect(
            constraintError { _ = try ConstraintShelf.Order(id: nil, from: author.id ?? 0, group: "g", whereText: "v", note: nil).inserted(db) }
                == .constraintUnique)
        #expect(
            constraintError { _ = try ConstraintShelf.Order(id: nil, from: author.id ?? 0, group: "h", whereText: "", note: nil).inserted(db) }
                == .constraintCheck)
        #expect(
            constraintError { _ = try ConstraintShelf.Order(id: nil, from: author.id ?? 0, group: "x", whereText: "x", note: nil).inserted(db) }
                == .constraintCheck)
        // RESTRICT: the author cannot go while an order refers to it.
        // (SQLite reports a RESTRICT action's refusal with SQLITE_CONSTRAINT_TRIGGER.)
        #expect(constraintError { try author.delete(db) }?.primary == .constraint)
        #expect(try ConstraintShelf.Author.fetchCount(db) == 1)
    }

    @Test func aReferenceOnTheKeyAddsNoIndex() throws {
        let db = try freshDatabase()
        try ConstraintShelf.Profile.createTable(db)
        #expect(try db.query("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'profile'") as Int == 0) // the key is the rowid
        let author = try ConstraintShelf.Author(id: nil, name: "A").inserted(db)
        _ = try ConstraintShelf.Profile(authorId: author.id ?? 0, bio: "b").inserted(db)
        try author.delete(db)
        #expect(try ConstraintShelf.Profile.fetchCount(db) == 0)
    }

    @Test func aReferenceToARecordWithoutKeyIsRefused() throws {
        let db = try Connection()
        try ConstraintShelf.Keyless.createTable(db)
        #expect(throws: RecordError.noPrimaryKey(record: "Keyless")) { try ConstraintShelf.PointsAtKeyless.createTable(db) }
        #expect(try db.schemaReader.table(named: "pointsAtKeyless") == nil)
    }

    /// The table and its indexes are one change: an index that cannot be created leaves no table.
    @Test func createTableIsAllOrNothing() throws {
        let db = try freshDatabase()
        try db.execute("DROP TABLE book")
        try db.execute(#"CREATE TABLE "book_title_idx" (x)"#) // takes the name of the title's index
        #expect(constraintError { try ConstraintShelf.Book.createTable(db) } == .error)
        #expect(try db.schemaReader.table(named: "book") == nil)
        #expect(!db.isInTransaction)
        // Inside the caller's transaction, the failure leaves the transaction as it was.
        try db.transaction(transactionType: .deferred) {
            try db.execute("CREATE TABLE other (x)")
            #expect(throws: SQLiteError.self) { try ConstraintShelf.Book.createTable(db) }
        }
        #expect(try db.schemaReader.table(named: "other") != nil)
        #expect(try db.schemaReader.table(named: "book") == nil)
    }

    /// Any table and column names: the DDL that records render quotes them, SQLite accepts it,
    /// and the reader finds the foreign key, UNIQUE and index under the names given.
    @Test func constraintsRoundTripAnyNames() throws {
        try PropertyCheck.run("record constraints with any names", cases: 30) { random in
            let names = Gen.distinctIdentifiers(&random, count: 5)
            let (parent, child, key, reference, other) = (names[0], names[1], names[2], names[3], names[4])
            let db = try Connection()
            try db.execute("PRAGMA foreign_keys = ON")
            let parentStatements = RecordStatements(table: parent, columns: [.describing(key, as: Int64?.self, isPrimaryKey: true)], primaryKeyIndex: 0)
            for sql in try parentStatements.createTableStatements(ifNotExists: false, constraints: []) { try db.execute(sql) }
            let childStatements = RecordStatements(
                table: child,
                columns: [
                    .describing(reference, as: Int64.self, isPrimaryKey: false),
                    .describing(other, as: String.self, isPrimaryKey: false)
                ], primaryKeyIndex: nil)
            let constraints = [
                RecordConstraint(column: reference, kind: .references(record: "P", table: parent, key: key, onDelete: .cascade, onUpdate: nil)),
                RecordConstraint(column: other, kind: .unique),
                RecordConstraint(column: other, kind: .check(quoteIdentifier(other) + " <> ''"))
            ]
            for sql in try childStatements.createTableStatements(ifNotExists: false, constraints: constraints) { try db.execute(sql) }
            let foreignKeys = try db.schemaReader.foreignKeys(ofTable: child)
            try require(foreignKeys.map { [$0.column, $0.parentTable, $0.parentColumn ?? ""] } == [[reference, parent, key]], "foreign key \(foreignKeys)")
            let indexes = try db.schemaReader.indexes(ofTable: child)
            try require(indexes.contains { $0.name == recordIndexName(table: child, column: reference) && $0.columnNames == [reference] }, "index \(indexes)")
            try require(indexes.contains { $0.isUnique && $0.columnNames == [other] }, "unique \(indexes)")
            try db.run("INSERT INTO " + quoteIdentifier(parent) + " DEFAULT VALUES")
            try db.run("INSERT INTO " + quoteIdentifier(child) + " VALUES (1, 'a')")
            try require(constraintError { try db.run("INSERT INTO " + quoteIdentifier(child) + " VALUES (1, '')") } == .constraintCheck, "check")
            try require(constraintError { try db.run("INSERT INTO " + quoteIdentifier(child) + " VALUES (1, 'a')") } == .constraintUnique, "unique")
            try db.run("DELETE FROM " + quoteIdentifier(parent))
            try require(try db.query("SELECT count(*) FROM " + quoteIdentifier(child)) as Int == 0, "cascade")
        }
    }
}
