import Foundation
import StrataSQift
import Strata
import Testing

// API.md section 6's bound interpolation, as Swift 5 client code writes it.
@Suite struct LiteralSwift5Tests {
    @Test func literalSpellings() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, country TEXT)")
        try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER, title TEXT, year INTEGER, price REAL)")
        let title = "Dune"
        let frag: SQLFragment = "SELECT * FROM \(identifier: "book") WHERE year > \(1999) AND title = \(title)"
        #expect(frag.sql == "SELECT * FROM \"book\" WHERE year > ? AND title = ?")
        #expect(frag.arguments == [.integer(1999), .text(title)])
        let more = frag + " AND price IS NOT NULL" // SQLFragment + SQLFragment; \(frag) nests one in another
        #expect(more.sql == frag.sql + " AND price IS NOT NULL")
        let nested: SQLFragment = "SELECT count(*) FROM (\(more))"
        #expect(nested.arguments == frag.arguments)
        let name = "Herbert", country = "US"
        try db.run(literal: "INSERT INTO author(name, country) VALUES (\(name), \(country))")
        try db.run(literal: "INSERT INTO book(authorId, title, year, price) VALUES (\(1), \(title), \(2000), \(nil as Double?))")
        let y = 1999
        let n: Int? = try db.query(literal: "SELECT count(*) FROM book WHERE year > \(y)") // every return type query(_:) has
        #expect(n == 1)
        let t = title
        let rows: [Row] = try db.query(literal: "SELECT * FROM book WHERE title = \(t)")
        #expect(rows.count == 1)
        #expect(rows.first?["year"] as Int? == 2000)
        if let row = try db.query(literal: "SELECT name FROM author WHERE country = \(country)") {
            #expect(row["name"] as String? == "Herbert")
        }
        let none: Int? = try db.query(literal: nested)
        #expect(none == 0)
    }
}
