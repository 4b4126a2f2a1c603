// The one renderer of SELECT, UPDATE and DELETE: clause order, bound limits, and, for generated
// clause combinations, the rows SQLite returns for the rendered statement against the same
// statement written by hand with literal numbers.
import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
import StrataTestSupport

@Suite struct StatementRendererTests {
    @Test func clausesComeInSQLitesOrderAndLimitsAreBound() {
        let clauses = StatementClauses(predicate: "a > 1", groups: ["b", "c"], having: "count(*) > 1", orderings: ["b DESC"], limit: 10, offset: 5)
        let select = clauses.select("b, count(*)", from: .identifier("my table"))
        #expect(select.sql == #"SELECT b, count(*) FROM "my table" WHERE a > 1 GROUP BY b, c HAVING count(*) > 1 ORDER BY b DESC LIMIT ? OFFSET ?"#)
        #expect(select.arguments == [.integer(10), .integer(5)])
        #expect(StatementClauses(offset: 3).rendered().sql == " LIMIT -1 OFFSET ?")
        #expect(StatementClauses(limit: 2, offset: 0).rendered().sql == " LIMIT ? OFFSET ?")
        #expect(StatementClauses(limit: 2).rendered().sql == " LIMIT ?")
        #expect(StatementClauses(predicate: SQLFragment.written("")).rendered().sql == "")
        #expect(clauses.rendered(ordering: false, limiting: false).sql == " WHERE a > 1 GROUP BY b, c HAVING count(*) > 1")
        #expect(clauses.update(.identifier("t"), set: #""x" = 1"#).sql == #"UPDATE "t" SET "x" = 1 WHERE a > 1"#)
        #expect(clauses.delete(from: .identifier("t")).sql == #"DELETE FROM "t" WHERE a > 1"#)
        let distinct = StatementClauses().select("a", from: "t", distinct: true)
        #expect(distinct.sql == "SELECT DISTINCT a FROM t")
    }

    /// Squeal's positional parameters come before the renderer's bound values, in text order.
    @Test func positionalParametersPrecedeTheRenderersValues() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a INTEGER)")
        for value in 1...10 { try db.run("INSERT INTO t VALUES (?)", value) }
        let (sql, parameters) = StatementClauses(predicate: .written("a > ?"), orderings: ["a"], limit: 2, offset: 1)
            .select("a", from: "t").positional(after: [3])
        #expect(sql == "SELECT a FROM t WHERE a > ? ORDER BY a LIMIT ? OFFSET ?")
        let rows: [Int] = try db.prepare(sql, parameters).query { $0[0] }
        #expect(rows == [5, 6])
    }

    /// Generated WHERE/ORDER BY/LIMIT/OFFSET combinations over generated rows: the rendered
    /// statement returns exactly what the hand-written one (literal numbers) returns.
    @Test func renderedStatementsReturnWhatHandWrittenOnesReturn() throws {
        try PropertyCheck.run("StatementClauses.select vs hand-written SQL", cases: 40) { random in
            let db = try makeConnection(executing: "CREATE TABLE t(a INTEGER, b TEXT)")
            for _ in 0..<random.int(0...30) {
                try db.run("INSERT INTO t VALUES (?, ?)", random.int(-5...5), random.oneIn(4) ? nil : Gen.text(&random, maxPieces: 2))
            }
            let threshold = random.int(-6...6)
            let predicate: String? = random.oneIn(3) ? nil : "a >= \(threshold)"
            let descending = random.oneIn(2)
            let limit: Int? = random.oneIn(3) ? nil : random.int(0...8)
            let offset: Int? = random.oneIn(3) ? nil : random.int(-2...8)
            let clauses = StatementClauses(
                predicate: .written(predicate), orderings: [SQLFragment(sql: descending ? "a DESC, rowid" : "a, rowid")], limit: limit, offset: offset)
            let rendered = clauses.select("a, b", from: "t")
            var handWritten = "SELECT a, b FROM t" + (predicate.map { " WHERE " + $0 } ?? "") + " ORDER BY a\(descending ? " DESC" : ""), rowid"
            switch (limit, offset) {
            case (nil, nil): break
            case (let limit?, nil): handWritten += " LIMIT \(limit)"
            case (nil, let offset?): handWritten += " LIMIT -1 OFFSET \(offset)"
            case (let limit?, let offset?): handWritten += " LIMIT \(limit) OFFSET \(offset)"
            }
            let got: [String] = try db.query(literal: rendered) { row in "\(row[0] as Int?)|\(row[1] as String?)" }
            let expected: [String] = try db.query(literal: SQLFragment(sql: handWritten)) { row in "\(row[0] as Int?)|\(row[1] as String?)" }
            try require(got == expected, "\(rendered.sql) \(rendered.arguments) returned \(got), \(handWritten) returned \(expected)")
        }
    }
}
