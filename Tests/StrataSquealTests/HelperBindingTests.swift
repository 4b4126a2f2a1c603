import Foundation
import StrataTestSupport
import Testing
import StrataSqueal

/// Values are always bound; `whereExpr`, `orderBy` and `setExpr` are fragments whose
/// `parameters` are bound; prepared statements are reused.
@Suite struct HelperBindingTests {
    static let injection = "'); DROP TABLE x; --"

    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable("x", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "score INTEGER"])
        return db
    }

    @Test func hostileValuesAreStoredVerbatimByEveryWritingHelper() throws {
        let db = try makeDatabase()
        let id = try db.insertInto("x", values: ["name": Self.injection, "score": 1])
        try db.insertInto("x", columns: ["name"], values: [Self.injection])
        try db.update("x", set: ["name": Self.injection + "!"], whereExpr: "id = ?", parameters: [id])
        try db.update("x", rowIds: [2], values: ["name": Self.injection + "?"])
        #expect(try db.selectString("SELECT name FROM x WHERE id = ?", parameters: [1]) == Self.injection + "!")
        #expect(try db.selectString("SELECT name FROM x WHERE id = ?", parameters: [2]) == Self.injection + "?")
        #expect(try db.countFrom("x", whereExpr: "name LIKE ?", parameters: ["%DROP TABLE%"]) == 2)
        #expect(try db.deleteFrom("x", whereExpr: "name = ?", parameters: [Self.injection + "!"]) == 1)
        #expect(try db.selectInt("SELECT count(*) FROM sqlite_master WHERE name = 'x'") == 1)
    }

    @Test func fragmentParametersAreBoundInOrder() throws {
        let db = try makeDatabase()
        for (name, score) in [("a", 10), ("b", 20), ("c", 30), ("d", 40)] {
            try db.insertInto("x", values: ["name": name, "score": score])
        }
        // whereExpr and orderBy parameters, then limit and offset.
        let nearest = try db.selectFrom(
            "x", columns: ["name"], whereExpr: "score > ?", orderBy: "abs(score - ?)",
            limit: 2, offset: 0, parameters: [10, 33]
        ) { $0.stringValue("name") }
        #expect(nearest == ["c", "d"])
        #expect(try db.selectFrom("x", orderBy: "score", offset: 3) { $0.stringValue("name") } == ["d"])
        // setExpr parameters come before whereExpr's.
        #expect(try db.update("x", setExpr: "score = score + ?", whereExpr: "name IN (?, ?)", parameters: [5, "a", "b"]) == 2)
        #expect(try db.selectAll("SELECT score FROM x ORDER BY id") { $0.intValueAtIndex(0) } == [15, 25, 30, 40])
        // Column values come before whereExpr's parameters.
        #expect(try db.update("x", columns: ["name"], values: ["z"], whereExpr: "score < ?", parameters: [20]) == 1)
        #expect(try db.selectIdsFrom("x", whereExpr: "name = ?", parameters: ["z"]) == [1])
        #expect(try db.countFrom("x", columns: ["DISTINCT score / 20"]) == 3)
    }

    @Test func parameterCountMismatchesThrow() throws {
        let db = try makeDatabase()
        #expect(throws: SQLiteError.self) { try db.insertInto("x", columns: ["name", "score"], values: ["a"]) }
        #expect(throws: SQLiteError.self) { try db.update("x", columns: ["name", "score"], values: ["a"]) }
        #expect(throws: SQLiteError.self) { try db.deleteFrom("x", whereExpr: "id = ?", parameters: [1, 2]) }
        #expect(throws: SQLiteError.self) { try db.insertInto("x", values: ["nope": 1]) }
        #expect(throws: SQLiteError.self) { try db.update("x", set: [:]) }
        #expect(throws: SQLiteError.self) { try db.update("x", rowIds: [1], values: [:]) }
        #expect(throws: SQLiteError.self) { try db.selectFrom("x", whereExpr: "nope = 1") { _ in 0 } }
        #expect(try db.countFrom("x") == 0)
    }

    @Test func insertsWithTheSameColumnsShareOneStatement() throws {
        let db = try makeDatabase()
        let before = db.cachedStatementCount
        for index in 0..<200 {
            // Dictionaries built in different orders and sizes iterate in different orders.
            var values: [String: Bindable?] = index % 2 == 0 ? ["name": "n", "score": index] : ["score": index, "name": "n"]
            values.reserveCapacity(index % 7)
            try db.insertInto("x", values: values)
        }
        #expect(db.cachedStatementCount == before + 1)
        _ = try db.selectFrom("x") { $0.intValue("score") }
        let scores = try db.selectFrom("x") { $0.intValue("score") ?? 0 }
        #expect(db.cachedStatementCount == before + 2)
        #expect(scores.reduce(0, +) == (0..<200).reduce(0, +))
    }

    @Test func insertsAlternatingKeysTablesAndFailuresStayCorrect() throws {
        let db = try makeDatabase()
        try db.execute("CREATE TABLE y(a INTEGER NOT NULL, b TEXT)")
        for index in 0..<30 {
            switch index % 5 {
            case 0: try db.insertInto("x", values: ["name": "n\(index)", "score": index])
            case 1: try db.insertInto("x", values: ["name": "only\(index)"])
            case 2: try db.insertInto("y", values: ["a": index, "b": "y\(index)"])
            case 3: try db.insertInto("x", values: ["score": index, "id": 1_000 + index])
            default:
                // A failing row (NOT NULL) between good ones leaves the remembered statement usable.
                #expect(throws: SQLiteError.self) { try db.insertInto("y", values: ["a": nil, "b": "bad"]) }
                try db.insertInto("y", values: ["b": "y\(index)", "a": index])
            }
        }
        #expect(try db.countFrom("x") == 18)
        #expect(try db.countFrom("y") == 12)
        #expect(try db.selectInt("SELECT sum(score) FROM x") == [0, 5, 10, 15, 20, 25].reduce(0, +) + [3, 8, 13, 18, 23, 28].reduce(0, +))
        #expect(try db.selectInt("SELECT count(*) FROM x WHERE name LIKE 'only%' AND score IS NULL") == 6)
        #expect(try db.selectInt("SELECT sum(a) FROM y") == [2, 7, 12, 17, 22, 27, 4, 9, 14, 19, 24, 29].reduce(0, +))
        // An insert inside another insert's statement use (through a nested helper) prepares its own.
        let ids = try db.selectFrom("y", orderBy: "rowid", limit: 2) { row in
            try db.insertInto("y", values: ["a": (row.intValue("a") ?? 0) + 100, "b": "nested"])
        }
        #expect(ids.count == 2)
        #expect(try db.countFrom("y", whereExpr: "b = ?", parameters: ["nested"]) == 2)
    }

    @Test func nilAndNullValuesInsertNull() throws {
        let db = try makeDatabase()
        let missing: String? = nil
        try db.insertInto("x", values: ["name": missing, "score": NSNull()])
        #expect(try db.countFrom("x", whereExpr: "name IS NULL AND score IS NULL") == 1)
    }

    @Test func nestedHelpersOnTheSameSQLDoNotDisturbEachOther() throws {
        let db = try makeDatabase()
        for index in 1...3 { try db.insertInto("x", values: ["score": index]) }
        let pairs = try db.selectFrom("x", orderBy: "id") { outer in
            try db.selectFrom("x", orderBy: "id") { inner in (outer.intValue("score") ?? 0) * 10 + (inner.intValue("score") ?? 0) }
        }
        #expect(pairs.flatMap { $0 } == [11, 12, 13, 21, 22, 23, 31, 32, 33])
    }

    @Test func manyRowIdsAreChunked() throws {
        let db = try makeDatabase()
        try db.transaction {
            for index in 0..<1_200 { try db.insertInto("x", values: ["score": index]) }
        }
        let ids = try db.selectIdsFrom("x")
        #expect(try db.update("x", rowIds: ids, values: ["name": "all"]) == 1_200)
        #expect(try db.deleteFrom("x", rowIds: Array(ids.dropLast())) == 1_199)
        #expect(try db.deleteFrom("x", rowIds: []) == 0)
        #expect(try db.countFrom("x") == 1)
    }
}
