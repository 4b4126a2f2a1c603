import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// A model read by column name, for the model forms of `query(literal:)`.
private struct Book: ExpressibleByRow, Equatable {
    let id: Int64
    let title: String
    let year: Int
    init(id: Int64, title: String, year: Int) { (self.id, self.title, self.year) = (id, title, year) }
    init(row: Row) throws {
        guard let id: Int64 = row["id"], let title: String = row["title"], let year: Int = row["year"] else {
            throw ExpressibleByRowError(type: Book.self, row: row)
        }
        (self.id, self.title, self.year) = (id, title, year)
    }
}

private func makeBooks() throws -> Connection {
    let db = try makeConnection(executing: "CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL, price REAL)")
    try db.run(literal: "INSERT INTO book(title, year, price) VALUES (\("Dune"), \(1965), \(9.5))")
    try db.run(literal: "INSERT INTO book(title, year, price) VALUES (\("Hyperion"), \(1989), \(nil as Double?))")
    try db.run(literal: "INSERT INTO book(title, year, price) VALUES (\("Anathem"), \(2008), \(12.0))")
    return db
}

@Suite struct SQLFragmentTests {
    // MARK: - Building

    @Test func interpolationBindsValuesAndQuotesIdentifiers() {
        let title = "Dune"
        let frag: SQLFragment = "SELECT * FROM \(identifier: "book") WHERE year > \(1999) AND title = \(title)"
        #expect(frag.sql == #"SELECT * FROM "book" WHERE year > ? AND title = ?"#)
        #expect(frag.arguments == [.integer(1999), .text("Dune")])
        #expect(frag.description == frag.sql)
    }

    @Test func everyValueKindBinds() {
        let data = Data([0, 1, 2])
        let missing: String? = nil
        let present: Int64? = 7
        let frag: SQLFragment = "\(1.5) \(data) \(missing) \(present) \(true) \(UInt8(3))"
        #expect(frag.sql == "? ? ? ? ? ?")
        #expect(frag.arguments == [.real(1.5), .blob(data), .null, .integer(7), .integer(1), .integer(3)])
        let bindable: any Bindable = "existential"
        let fromExistential: SQLFragment = "x = \(bindable)"
        #expect(fromExistential.arguments == [.text("existential")])
    }

    @Test func hostileIdentifiersAreQuoted() {
        let frag: SQLFragment = "SELECT \(column: #"a"b"#) FROM \(identifier: "t\"; DROP TABLE book; --")"
        #expect(frag.sql == #"SELECT "a""b" FROM "t""; DROP TABLE book; --""#)
        #expect(frag.arguments.isEmpty)
        #expect(SQLFragment.identifier("").sql == #""""#)
    }

    @Test func nestingKeepsValuesInOrder() {
        let condition: SQLFragment = "year BETWEEN \(1900) AND \(2000)"
        let frag: SQLFragment = "SELECT \(1) WHERE \(condition) AND title = \("x") LIMIT \(5)"
        #expect(frag.sql == "SELECT ? WHERE year BETWEEN ? AND ? AND title = ? LIMIT ?")
        #expect(frag.arguments == [.integer(1), .integer(1900), .integer(2000), .text("x"), .integer(5)])
        let twice: SQLFragment = "(\(condition)) OR (\(condition))"
        #expect(twice.arguments.count == 4)
    }

    @Test func concatenation() {
        let frag: SQLFragment = "SELECT * FROM book WHERE year > \(1999)"
        let more = frag + " AND price IS NOT NULL"
        #expect(more.sql == "SELECT * FROM book WHERE year > ? AND price IS NOT NULL")
        #expect(more.arguments == [.integer(1999)])
        var built = SQLFragment()
        #expect(built.isEmpty)
        built += "a = \(1)"
        built += SQLFragment(" AND ") + "b = \(2)"
        #expect(built.sql == "a = ? AND b = ?")
        #expect(built.arguments == [.integer(1), .integer(2)])
        let list = [SQLFragment.column("a"), .column("b"), .value("c")].joined(separator: ", ")
        #expect(list.sql == #""a", "b", ?"#)
        #expect(list.arguments == [.text("c")])
        let prebound = SQLFragment(sql: "x IN (?, ?)", arguments: [.integer(1), .null])
        #expect((prebound + " AND y = \(3)").arguments == [.integer(1), .null, .integer(3)])
    }

    @Test func equalityIgnoresHowAFragmentWasPutTogether() {
        let whole: SQLFragment = "a = \(1) AND b = \(2)"
        let pieces = SQLFragment("a = \(1)") + " AND " + "b = \(2)"
        let nested: SQLFragment = "\(SQLFragment("a = \(1)")) AND b = \(2)"
        #expect(whole == pieces)
        #expect(whole == nested)
        #expect(Set([whole, pieces, nested]).count == 1)
        #expect(whole != "a = \(1) AND b = \(3)")
        // A column and a name that is not a column write the same SQL but qualify differently.
        #expect(SQLFragment.column("a") != SQLFragment.identifier("a"))
    }

    // MARK: - Qualifying

    @Test func columnsQualifyAndReAlias() {
        let year = SQLFragment.column("year")
        let condition: SQLFragment = "\(year) > \(2000) AND \(column: "title") = \("x")"
        #expect(condition.sql == #""year" > ? AND "title" = ?"#)
        let single = condition.qualifyingColumns(with: "book")
        #expect(single.sql == #""book"."year" > ? AND "book"."title" = ?"#)
        #expect(single.arguments == condition.arguments)
        // The same expression for the second table of a self-join.
        let aliased = single.requalifyingColumns(from: "book", to: "b2")
        #expect(aliased.sql == #""b2"."year" > ? AND "b2"."title" = ?"#)
        #expect(aliased.unqualifyingColumns() == condition)
        // Identifiers that are not columns are left alone; qualified columns keep their table.
        let join: SQLFragment = "SELECT * FROM \(identifier: "book") JOIN \(identifier: "author") ON \(column: "authorId") = \(column: "id", table: "author")"
        #expect(
            join.qualifyingColumns(with: "book").sql
                == #"SELECT * FROM "book" JOIN "author" ON "book"."authorId" = "author"."id""#)
        // Nested fragments qualify too; a hostile alias is quoted.
        let outer: SQLFragment = "NOT (\(condition))"
        #expect(outer.qualifyingColumns(with: #"x"y"#).sql == #"NOT ("x""y"."year" > ? AND "x""y"."title" = ?)"#)
    }

    @Test func subqueryQualifiedBeforeNesting() {
        let inner = SQLFragment("SELECT \(column: "authorId") FROM \(identifier: "book") AS \(identifier: "b") WHERE \(column: "year") > \(2000)")
            .qualifyingColumns(with: "b")
        let outer: SQLFragment = "SELECT * FROM \(identifier: "author") WHERE \(column: "id") IN (\(inner))"
        let sql = outer.qualifyingColumns(with: "author").sql
        #expect(sql == #"SELECT * FROM "author" WHERE "author"."id" IN (SELECT "b"."authorId" FROM "book" AS "b" WHERE "b"."year" > ?)"#)
        #expect(outer.arguments == [.integer(2000)])
    }

    // MARK: - Running

    @Test func runAndQueryLiteral() throws {
        let db = try makeBooks()
        let y = 1980
        let n: Int? = try db.query(literal: "SELECT count(*) FROM book WHERE year > \(y)")
        #expect(n == 2)
        let count: Int = try db.query(literal: "SELECT count(*) FROM \(identifier: "book")")
        #expect(count == 3)
        let titles: [String] = try db.query(literal: "SELECT title FROM book WHERE year > \(y) ORDER BY year")
        #expect(titles == ["Hyperion", "Anathem"])
        let first: Book? = try db.query(literal: "SELECT * FROM book WHERE title = \("Dune")")
        #expect(first == Book(id: 1, title: "Dune", year: 1965))
        let books: [Book] = try db.query(literal: "SELECT * FROM book WHERE year < \(2000) ORDER BY id")
        #expect(books.map(\.title) == ["Dune", "Hyperion"])
        let upper: String? = try db.query(literal: "SELECT title FROM book WHERE id = \(3)") { row in (row[0] as String).uppercased() }
        #expect(upper == "ANATHEM")
        let years: [Int] = try db.query(literal: "SELECT year FROM book ORDER BY year DESC") { row in row[0] }
        #expect(years == [2008, 1989, 1965])
        let byTitle: [String: Int] = try db.query(literal: "SELECT title, year FROM book") { row in (row[0], row[1]) }
        #expect(byTitle["Hyperion"] == 1989)
        let running: [String: Int] = try db.query(literal: "SELECT title, year FROM book ORDER BY id") { (sofar: [String: Int], row: Row) in
            (row[0], sofar.count)
        }
        #expect(running == ["Dune": 0, "Hyperion": 1, "Anathem": 2])
        let missing: Int? = try db.query(literal: "SELECT year FROM book WHERE id = \(99)")
        #expect(missing == nil)
        #expect(sqliteError { let _: Int = try db.query(literal: "SELECT year FROM book WHERE id = \(99)") }?.code == SQLITE_MISUSE)
    }

    @Test func rowsOutliveTheQuery() throws {
        let db = try makeBooks()
        let t = "Hyperion"
        let rows: [Row] = try db.query(literal: "SELECT * FROM book WHERE title = \(t) OR year > \(2000) ORDER BY id")
        #expect(rows.count == 2)
        // Another query on the same SQL does not move them.
        let _: [Row] = try db.query(literal: "SELECT * FROM book WHERE title = \("Dune") OR year > \(2000) ORDER BY id")
        #expect(rows[0]["title"] as String? == "Hyperion")
        #expect(rows[0]["price"] as Double? == nil)
        #expect(rows[1]["title"] as String? == "Anathem")
        #expect(rows[1]["price"] as Double? == 12.0)
        // Storage classes are kept: each value reads as it does from the table itself.
        #expect(rows[1]["year"] as Int? == 2008)
        #expect(rows[1].columns.map(\.dataType) == [.integer, .text, .integer, .float])
        let direct: String? = try db.query(literal: "SELECT year FROM book WHERE id = \(3)")
        #expect(rows[1]["year"] as String? == direct)
        #expect(rows[1].columns.map(\.name) == ["id", "title", "year", "price"])
        let row: Row? = try db.query(literal: "SELECT title FROM book WHERE id = \(1)")
        let _: Int? = try db.query(literal: "SELECT count(*) FROM book")
        #expect(row?["title"] as String? == "Dune")
        let none: [Row] = try db.query(literal: "SELECT * FROM book WHERE id = \(99)")
        #expect(none.isEmpty)
    }

    @Test func injectionStaysAValue() throws {
        let db = try makeBooks()
        let hostile = "x'); DROP TABLE book; --"
        try db.run(literal: "INSERT INTO book(title, year) VALUES (\(hostile), \(2020))")
        let stored: String? = try db.query(literal: "SELECT title FROM book WHERE year = \(2020)")
        #expect(stored == hostile)
        let alwaysTrue = "' OR 1=1 --"
        let matches: [String] = try db.query(literal: "SELECT title FROM book WHERE title = \(alwaysTrue)")
        #expect(matches.isEmpty)
        #expect(try db.query(literal: "SELECT count(*) FROM book") as Int == 4)
    }

    @Test func nullBindsAsNull() throws {
        let db = try makeBooks()
        let price: Double? = nil
        try db.run(literal: "UPDATE book SET price = \(price) WHERE id = \(1)")
        let isNull: Bool? = try db.query(literal: "SELECT price IS NULL FROM book WHERE id = \(1)")
        #expect(isNull == true)
    }

    @Test func literalStatementsComeFromTheOneCache() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(x)")
        let before = db.cachedStatementCount
        for value in 0..<20 { try db.run(literal: "INSERT INTO t VALUES (\(value))") }
        #expect(db.cachedStatementCount == before + 1)
        for value in 0..<20 { let _: Int? = try db.query(literal: "SELECT x FROM t WHERE x = \(value)") }
        #expect(db.cachedStatementCount == before + 2)
        // The same SQL as a plain query shares the statement.
        let _: Int? = try db.query("SELECT x FROM t WHERE x = ?", 3)
        #expect(db.cachedStatementCount == before + 2)
        #expect(try db.query(literal: "SELECT count(*) FROM t") as Int == 20)
    }

    @Test func questionMarkInLiteralTextIsRefused() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(x)")
        let error = sqliteError { try db.run(literal: "INSERT INTO t VALUES (?)") }
        #expect(error?.code == SQLITE_MISUSE)
        #expect(try db.query(literal: "SELECT count(*) FROM t") as Int == 0)
        let constraint = sqliteError { try db.run(literal: "INSERT INTO missing VALUES (\(1))") }
        #expect(constraint?.code == SQLITE_ERROR)
    }
}
