import Foundation
import StrataTestSupport
import Testing
import StrataSqueal

/// Squeal's statement extras: binding one parameter at a time, `next`, `reset`, `select`.
@Suite struct StatementSquealSteppingTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable("t", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "score REAL", "flag INTEGER", "data BLOB"])
        for (name, score) in [("a", 1.5), ("b", 2.5), ("c", 3.5)] {
            try db.insertInto("t", values: ["name": name, "score": score])
        }
        return db
    }

    @Test func nextResetKeepsBindings() throws {
        let db = try makeDatabase()
        let statement = try db.prepareStatement("SELECT name FROM t WHERE score > ? ORDER BY id", parameters: [2])
        #expect(statement.parameterCount == 1)
        #expect(try statement.next() && statement.stringValue("name") == "b")
        #expect(try statement.next() && statement.stringValue("name") == "c")
        #expect(try !statement.next())
        try statement.reset()
        #expect(try statement.selectNextString() == "b")
        #expect(try statement.select { $0.stringValue("name") } == ["b", "c"])
        #expect(try statement.select([3]) { $0.stringValue("name") } == ["c"])
        #expect(try statement.selectRows().count == 1)
        #expect(try statement.selectRows([0]).count == 3)
        #expect(try statement.selectNextRow([2.6])?["name"] as? String == "c")
        #expect(try statement.select(nil) { $0.stringValue("name") } == ["c"])
        try statement.reset()
        #expect(try statement.selectNextRow()?["name"] as? String == "c")
        #expect(try statement.selectNext { $0.stringValue("name") } == nil)
    }

    @Test func bareNamesFindTheFirstOfColonAtDollar() throws {
        let db = try Connection(storageLocation: .inMemory)
        let select = try db.prepareStatement("SELECT $v, @v, :v, @w, $x, ?6, :\u{E9}, :e\u{301}")
        #expect(select.indexOfParameterNamed("v") == 3)
        #expect(select.indexOfParameterNamed("w") == 4)
        #expect(select.indexOfParameterNamed("x") == 5)
        #expect(select.indexOfParameterNamed("$v") == 1)
        #expect(select.indexOfParameterNamed("?6") == 6)
        #expect(select.indexOfParameterNamed("6") == nil)
        // Names are bytes to SQLite: precomposed and decomposed are two parameters.
        #expect(select.indexOfParameterNamed("\u{E9}") == 7)
        #expect(select.indexOfParameterNamed("e\u{301}") == 8)
        #expect(select.indexOfParameterNamed(":e\u{301}") == 8)
        #expect(select.indexOfParameterNamed("v\0w") == nil)
        for round in 0..<50 {
            try select.bind(namedParameters: ["v": round, "@v": round + 1, "$v": round + 2, "w": nil, "x": "x\(round)"])
            #expect(
                try select.selectNext { row in (0..<5).map { row.stringValueAtIndex($0) ?? "-" } } == [
                    "\(round + 2)", "\(round + 1)", "\(round)", "-", "x\(round)"
                ])
            try select.reset()
        }
        let unknown = sqliteError { try select.bind(namedParameters: ["nope": 1]) }
        #expect(unknown?.message == "Bind could not find index for key: 'nope'")
    }

    @Test func bindingByIndexAndName() throws {
        let db = try makeDatabase()
        let insert = try db.prepareStatement("INSERT INTO t(name, score, flag, data) VALUES (:name, @score, $flag, ?4)")
        #expect(insert.indexOfParameterNamed(":name") == 1)
        #expect(insert.indexOfParameterNamed("name") == 1)
        #expect(insert.indexOfParameterNamed("score") == 2)
        #expect(insert.indexOfParameterNamed("flag") == 3)
        #expect(insert.indexOfParameterNamed("missing") == nil)
        #expect(insert.indexOfParameterNamed(":score") == nil)

        try insert.bindStringValue("d", named: "name")
        try insert.bindDoubleValue(4.5, named: "@score")
        try insert.bindBoolValue(true, named: "flag")
        try insert.bindBlobValue(Data([9]), atIndex: 4)
        try insert.execute()
        // Bindings stay after execute; change one and run again.
        try insert.reset()
        try insert.bindStringValue("e", atIndex: 1)
        try insert.execute()
        try insert.bind(namedParameters: ["name": "f", "score": nil, "$flag": false])
        try insert.bindNullParameter(atIndex: 4)
        try insert.execute()
        try insert.bindParameter("name", value: "g")
        try insert.bindNullParameter(named: "flag")
        try insert.bindIntValue(6, atIndex: 2)
        try insert.bindInt64Value(1, named: "flag")
        try insert.execute()
        insert.clearParameters()
        try insert.bindStringValue("h", named: "name")
        try insert.execute()
        try insert.execute(["i", 7, 0, nil])

        let rows = try db.selectAll("SELECT name, score, flag, data FROM t WHERE id > 3 ORDER BY id") { row in
            "\(row.stringValue("name") ?? "-") \(row.doubleValue("score").map { "\($0)" } ?? "-") \(row.intValue("flag").map { "\($0)" } ?? "-") \(row.blobValue("data")?.count ?? -1)"
        }
        #expect(rows == ["d 4.5 1 1", "e 4.5 1 1", "f - 0 -1", "g 6.0 1 -1", "h - - -1", "i 7.0 0 -1"])

        #expect(throws: SQLiteError.self) { try insert.bindParameter("nope", value: 1) }
        #expect(throws: SQLiteError.self) { try insert.bindIntValue(1, atIndex: 5) }
        #expect(throws: SQLiteError.self) { try insert.bindIntValue(1, atIndex: 0) }
        #expect(throws: SQLiteError.self) { try insert.execute([1]) }
    }

    @Test func bindingWhileSteppingThrowsInsteadOfCorrupting() throws {
        let db = try makeDatabase()
        let statement = try db.prepareStatement("SELECT name FROM t WHERE score > ?", parameters: [0])
        #expect(try statement.next())
        #expect(throws: SQLiteError.self) { try statement.bindIntValue(1, atIndex: 1) }
        try statement.reset()
        try statement.bindIntValue(3, atIndex: 1)
        #expect(try statement.selectNextString() == "c")
    }
}
