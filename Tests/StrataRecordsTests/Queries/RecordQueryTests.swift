import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct RecordQueryTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try Player.createTable(db)
        let rows: [(String, Int, String?)] = [("Ann", 12, nil), ("Bob", 7, "red"), ("Abe", 30, "red"), ("Cy", 10, nil), ("Al", 1, "blue")]
        for (name, score, team) in rows {
            var player = Player(id: nil, name: name, score: score, team: team)
            try player.insert(db)
        }
        return db
    }

    func names(_ query: RecordQuery<Player>, _ db: Connection) throws -> [String] {
        try query.fetchAll(db).map(\.name)
    }

    @Test func apiExample() throws {
        let db = try makeDatabase()
        let query = Player.where { $0.score > 10 && $0.team == nil }.order(by: \.score, .descending).limit(10, offset: 0)
        // Columns are qualified by the table: a column the table lacks is an error, never a string.
        #expect(
            query.sql
                == #"SELECT "player"."id", "player"."name", "player"."score_total", "player"."team" FROM "player" WHERE ("player"."score_total" > ?) AND ("player"."team" IS NULL) ORDER BY "player"."score_total" DESC LIMIT ?"#
        )
        #expect(query.arguments == [.integer(10), .integer(10)])
        #expect(try names(query, db) == ["Ann"])
        #expect(try Player.order(by: \.name).fetchAll(db).map(\.name) == ["Abe", "Al", "Ann", "Bob", "Cy"])
    }

    @Test(arguments: [
        ("==", #""player"."name" = ?"#, ["Bob"]),
        ("!=", #""player"."name" <> ?"#, ["Abe", "Al", "Ann", "Cy"]),
        ("<", #""player"."score_total" < ?"#, ["Al", "Bob"]),
        ("<=", #""player"."score_total" <= ?"#, ["Al", "Bob", "Cy"]),
        (">", #""player"."score_total" > ?"#, ["Abe", "Ann"]),
        (">=", #""player"."score_total" >= ?"#, ["Abe", "Ann", "Cy"]),
        ("&&", #"("player"."team" = ?) AND ("player"."score_total" > ?)"#, ["Abe"]),
        ("||", #"("player"."team" IS NULL) OR ("player"."score_total" < ?)"#, ["Al", "Ann", "Cy"]),
        ("!", #"NOT ("player"."team" IS NULL)"#, ["Abe", "Al", "Bob"]),
        ("isNull", #""player"."team" IS NULL"#, ["Ann", "Cy"]),
        ("== nil", #""player"."team" IS NULL"#, ["Ann", "Cy"]),
        ("!= nil", #""player"."team" IS NOT NULL"#, ["Abe", "Al", "Bob"]),
        ("like", #""player"."name" LIKE ?"#, ["Abe", "Al", "Ann"]),
        ("in", #""player"."id" IN (?, ?)"#, ["Ann", "Bob"]),
        ("in []", "0", []),
        ("between", #""player"."score_total" BETWEEN ? AND ?"#, ["Ann", "Cy", "Bob"].sorted())
    ])
    func operatorsProduceTheirSQLAndRows(name: String, where expected: String, rows: [String]) throws {
        let db = try makeDatabase()
        let query: RecordQuery<Player>
        switch name {
        case "==": query = Player.where { $0.name == "Bob" }
        case "!=": query = Player.where { $0.name != "Bob" }
        case "<": query = Player.where { $0.score < 10 }
        case "<=": query = Player.where { $0.score <= 10 }
        case ">": query = Player.where { $0.score > 10 }
        case ">=": query = Player.where { $0.score >= 10 }
        case "&&": query = Player.where { $0.team == "red" && $0.score > 10 }
        case "||": query = Player.where { $0.team == nil || $0.score < 5 }
        case "!": query = Player.where { !$0.team.isNull }
        case "isNull": query = Player.where { $0.team.isNull }
        case "== nil": query = Player.where { $0.team == nil }
        case "!= nil": query = Player.where { $0.team != nil }
        case "like": query = Player.where { $0.name.like("A%") }
        case "in": query = Player.where { $0.id.in([1, 2]) }
        case "in []": query = Player.where { $0.id.in([]) }
        default: query = Player.where { $0.score.between(7, 12) }
        }
        #expect(query.sql.hasSuffix(" WHERE " + expected), "\(query.sql)")
        #expect(try names(query.order(by: \.name), db) == rows)
    }

    @Test func valuesAreBoundNeverSpliced() throws {
        let db = try makeDatabase()
        let hostile = "x'); DROP TABLE player; --"
        let query = Player.where { $0.name == hostile }
        #expect(!query.sql.contains("DROP"))
        #expect(try query.fetchAll(db).isEmpty)
        #expect(try Player.fetchCount(db) == 5)
    }

    @Test func terminalOperations() throws {
        let db = try makeDatabase()
        #expect(try Player.where { $0.team == "red" }.order(by: \.score).fetchOne(db)?.name == "Bob")
        #expect(try Player.where { $0.team == "red" }.fetchCount(db) == 2)
        #expect(try Player.limit(2, offset: 1).order(by: \.id).fetchAll(db).map(\.name) == ["Bob", "Abe"])
        #expect(try Player.where { $0.team == nil }.update(db, set: { [$0.team.set("free"), $0.score.set(0)] }) == 2)
        #expect(try Player.where { $0.team == "free" && $0.score == 0 }.fetchCount(db) == 2)
        #expect(try Player.where { $0.name == "Al" }.update(db, set: { $0.score.set(99) }) == 1)
        #expect(try Player.fetchOne(db, id: 5)?.score == 99)
        #expect(try Player.where { $0.score < 10 }.deleteAll(db) == 3)
        #expect(try Player.fetchCount(db) == 2)
        #expect(throws: RecordQueryError.self) { try Player.limit(1).deleteAll(db) }
    }
}
