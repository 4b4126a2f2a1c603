import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

// Parameter lists in every form SQift code passes them (variadic, array, dictionary, empty,
// literal), including calls that could be ambiguous between the variadic, array, dictionary and
// parameter-pack forms, or between the optional and non-optional query forms.

@Suite struct SQiftParameterListBehaviourTests {
    @Test func argumentKinds() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a, b, c)")
        try db.run("INSERT INTO t VALUES(?, ?, ?)", 1, nil, "x")
        let optional: Int? = nil
        try db.run("INSERT INTO t VALUES(?, ?, ?)", 2, optional, 2.5)
        try db.run("INSERT INTO t VALUES(?, ?, ?)", [3, nil, "y"])
        try db.run("INSERT INTO t VALUES(:a, :b, :c)", [":a": 4, ":b": nil, ":c": "z"])
        try db.run("INSERT INTO t VALUES(?, ?, ?)", [5, optional, Data([1])])
        let params: [Bindable?] = [6, nil, true]
        try db.run("INSERT INTO t VALUES(?, ?, ?)", params)
        let named: [String: Bindable?] = ["@a": 7, "@b": nil, "@c": Date()]
        try db.run("INSERT INTO t VALUES(@a, @b, @c)", named)
        try db.prepare("INSERT INTO t VALUES(?, ?, ?)", 8, nil, "w").run()
        try db.prepare("INSERT INTO t VALUES(?, ?, ?)", [9, nil, "v"]).run()
        try db.prepare("INSERT INTO t VALUES($a, $b, $c)", ["$a": 10, "$b": nil, "$c": "u"]).run()
        let count: Int = try db.query("SELECT count(*) FROM t WHERE b IS NULL")
        #expect(count == 10)
        let n1: Int? = try db.query("SELECT count(*) FROM t WHERE a > ?", 5)
        let n2: Int? = try db.query("SELECT count(*) FROM t WHERE a > ?", [5])
        let n3: Int? = try db.query("SELECT count(*) FROM t WHERE a > :a", [":a": 5])
        #expect(n1 == 5 && n2 == 5 && n3 == 5)
        let all: [Int] = try db.query("SELECT a FROM t ORDER BY a")
        #expect(all.count == 10)
        let dict: [Int: String] = try db.query("SELECT a, c FROM t WHERE typeof(c) = 'text' ORDER BY a") { ($0[0], $0[1]) }
        #expect(dict[1] == "x")
        let reduced: [Int: Int] = try db.query("SELECT a FROM t") { (result: [Int: Int], row: Row) in
            let a: Int = row[0]
            return (a, result.count)
        }
        #expect(reduced.count == 10)
        let rows: [Int] = try db.query("SELECT a FROM t WHERE a < ?", 3) { row in row[0] }
        #expect(rows == [1, 2])
        let first: String? = try db.query("SELECT c FROM t WHERE a = ?", 1) { row -> String in row[0] }
        #expect(first == "x")
        if let row = try db.query("SELECT a, b, c FROM t WHERE a = 1") {
            #expect(row.columnCount == 3)
            #expect(row.description == "[1, NULL, 'x']" || row.description.contains("NULL"))
            let c0 = row.columns[2]
            #expect(c0.description == "{ index: 2 name: \"c\", type: \"text\", value: x }")
            #expect(row.columns[1].dataType == .null)
            let v: Any? = row.value(at: 0)
            #expect(v as? Int64 == 1)
            let t: String? = row.value(forColumnName: "c")
            #expect(t == "x")
            let ti: Int? = row.value(at: 0)
            #expect(ti == 1)
            #expect(row.values.count == 3)
            var n = 0
            for _ in row { n += 1 }
            #expect(n == 3)
        } else {
            Issue.record("no row")
        }
    }

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
