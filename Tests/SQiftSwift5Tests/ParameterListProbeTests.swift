import Foundation
import Testing
@testable import Strata

// Review probe, third batch: calls that could be ambiguous between the variadic, array,
// dictionary and parameter-pack forms, or between the optional and non-optional query forms.

@Suite struct SQiftProbeAmbiguityTests {
    @Test func emptyAndLiteralParameterLists() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a, b)")
        try db.prepare("INSERT INTO t VALUES(1, 2)").bind().run()
        try db.run("INSERT INTO t VALUES(3, 4)")
        try db.run("INSERT INTO t VALUES(5, 6)", [])
        try db.run("INSERT INTO t VALUES(7, 8)", [:])
        try db.prepare("INSERT INTO t VALUES(?, ?)", [9, 10]).run()
        try db.run("INSERT INTO t VALUES(?, ?)", [11, 12])
        try db.run("INSERT INTO t VALUES(:a, :b)", [":a": 13, ":b": 14])
        let n: Int = try db.query("SELECT count(*) FROM t", [])
        let m: Int? = try db.query("SELECT count(*) FROM t", [:])
        #expect(n == 7 && m == 7)
        let viaAs = try db.query("SELECT count(*) FROM t") as Int?
        #expect(viaAs == 7)
        let viaAs2 = try db.query("SELECT count(*) FROM t") as Int
        #expect(viaAs2 == 7)
        let all: [Int] = try db.query("SELECT a FROM t WHERE a > ?", [10])
        #expect(all == [11, 13])
        let statement = try db.prepare("SELECT a FROM t ORDER BY a")
        var seen: [Int] = []
        while let value: Int = try statement.query() { seen.append(value) }
        #expect(seen.count == 7)
        let row = try db.query("SELECT a, b FROM t WHERE a = ?", 1)
        let b: Int? = row?[1]
        #expect(b == 2)
        let bByName: Int? = row?["b"]
        #expect(bByName == 2)
        let a: Int64 = try db.query("SELECT a FROM t WHERE a = :a", [":a": 1])
        #expect(a == 1)
    }
}
