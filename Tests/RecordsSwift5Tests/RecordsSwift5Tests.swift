import Foundation
import StrataSQift
import StrataRecords
import Testing

// Records as Swift 5 client code writes them: the documented spellings, verbatim where they can be.
@Record
struct Player: Equatable {
    @PrimaryKey var id: Int64? // nil on insert: assigned and written back
    var name: String
    @Column("score_total") var score: Int
    var team: String?
}

@Suite struct RecordsSwift5Tests {
    @Test func apiSpellings() throws {
        let db = try Connection()
        try Player.createTable(db) // ifNotExists: Bool = false
        var p = Player(id: nil, name: "Ann", score: 12, team: nil)
        try p.insert(db); try p.update(db); try p.upsert(db); try p.save(db)
        #expect(p.id == 1)
        #expect(Player.tableName == "player")
        #expect(try Player.fetchAll(db) == [p])
        #expect(try Player.fetchOne(db, id: 1) == p)
        #expect(try Player.fetchCount(db) == 1)
        let top = try Player.where { $0.score > 10 && $0.team == nil }
            .order(by: \.score, .descending)
            .limit(10, offset: 0)
            .fetchAll(db)
        #expect(top == [p])
        #expect(try Player.order(by: \.name).fetchOne(db) == p)
        #expect(try Player.where { $0.team.isNull || $0.name.like("A%") }.fetchCount(db) == 1)
        #expect(try Player.where { $0.id.in([1, 2]) && $0.score.between(1, 20) && $0.team != nil }.fetchCount(db) == 0)
        let players: [Player] = try db.query("SELECT * FROM player") // a Record is an ExpressibleByRow
        #expect(players == [p])
        #expect(try p.delete(db) == true)
        try p.delete(db) // @discardableResult
        #expect(try Player.deleteAll(db) == 0)
        try Player.where { $0.score > 100 }.deleteAll(db)
    }
}

// Non-mutating writes for @Sendable closures, in Swift 5 mode.
@Suite struct RecordsSendableWriteSwift5Tests {
    @Test func insertedSavedUpserted() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try database.executeWrite { try Player.createTable($0) }

        let bob = Player(id: nil, name: "Bob", score: 30, team: nil)
        let saved: Player = try await database.write { try bob.inserted($0) } // also saved($0), upserted($0)
        #expect(saved.id == 1)
        let ann = Player(id: nil, name: "Ann", score: 12, team: "red")
        let savedAnn: Player = try await database.write { try ann.saved($0) }
        #expect(savedAnn.id == 2)
        let upserted: Player = try await database.write { try ann.upserted($0) }
        #expect(upserted.id == 3)
        let all: [Player] = try await database.read { try Player.fetchAll($0) }
        #expect(all == [saved, savedAnn, upserted])
    }
}
