import Foundation
import StrataSQift
import Testing
import StrataRecords

/// Records' operators through the core's one expression layer: any two expressions compare
/// (columns, aggregates, JSON paths), optional against non-optional, never unrelated types.
@Suite struct ExpressionOperatorTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try Player.createTable(db)
        let rows: [(String, Int, String?)] = [("Ann", 12, "Ann"), ("Bob", 7, "red"), ("Abe", 30, "red"), ("Cy", 10, nil), ("Al", 1, "red")]
        for (name, score, team) in rows {
            var player = Player(id: nil, name: name, score: score, team: team)
            try player.insert(db)
        }
        return db
    }

    @Test func columnAgainstOptionalColumnOfTheSameType() throws {
        let db = try makeDatabase()
        let same = Player.where { $0.name == $0.team }
        #expect(same.sql.hasSuffix(#"WHERE "player"."name" = "player"."team""#))
        #expect(try same.fetchAll(db).map(\.name) == ["Ann"])
        let reversed = Player.where { $0.team != $0.name }.order(by: \.name)
        #expect(try reversed.fetchAll(db).map(\.name) == ["Abe", "Al", "Bob"])
    }

    @Test func aggregateAgainstAggregateInHaving() throws {
        let db = try makeDatabase()
        let teams: [String?] = try Player.group(by: \.team)
            .having { $0.score.max() > $0.score.min() }
            .select { $0.team }
            .fetchAll(db)
        #expect(teams == ["red"])
    }
}
