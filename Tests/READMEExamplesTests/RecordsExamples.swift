// The README's examples for `import StrataRecords`. `@Record` types live at file scope (a macro
// that adds conformances cannot expand on a local type); the rest runs in the functions below.
import Foundation
import StrataRecords
import Testing

// README:begin 14
@Record                       // table "player"; @Record(table: "players") overrides it
struct Player: Equatable {
    @PrimaryKey var id: Int64?         // nil on insert: assigned and written back
    var name: String
    @Column("score_total") var score: Int
    var team: String?
}
// README:end

extension READMEExamples {
    func recordsExample14() throws {
        // README:begin 14
        let db = try Connection()                  // in memory
        try Player.createTable(db)                 // column types, NOT NULL and the key from the declaration
        var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        try ann.insert(db)                         // ann.id == 1; also update, upsert, save, delete
        let top = try Player.where { $0.score > 10 && $0.team == nil }
            .order(by: \.score, .descending)
            .limit(10, offset: 0)
            .fetchAll(db)                          // also fetchOne, fetchCount, deleteAll, update(db, set:)
        let mine: [Player] = try db.query("SELECT * FROM player")   // a Record is an ExpressibleByRow
        print(ann.id ?? 0, top.map(\.name), mine == top)            // 1 ["Ann"] true
        // README:end
    }

    func recordsExample15() async throws -> Database {
        // README:begin 15
        let database = try Database(storageLocation: .onDisk("players.sqlite"))
        try await database.write { try Player.createTable($0) }
        let bob = Player(id: nil, name: "Bob", score: 7, team: "red")
        let saved = try await database.write { try bob.inserted($0) }   // also saved($0), upserted($0)
        print(saved.id ?? 0)                                            // 1
        // README:end
        return database
    }

    func recordsExample16(database: Database) async throws {
        // README:begin 16
        // The current count, then a new one after each commit that touches `player`.
        for try await count in database.observe({ try Player.fetchCount($0) }) {
            print("players:", count)               // players: 1, then players: 2
            if count == 2 { break }                // leaving the loop ends the observation
            _ = try await database.write { try Player(id: nil, name: "Cy", score: 15, team: nil).inserted($0) }
        }

        // Not async: keep the token, or the observation ends with it. Also sees other processes' commits.
        var observations = Set<ObservationToken>()
        database.observe(externalChanges: .milliseconds(250), {
            try $0.query("SELECT name FROM player ORDER BY score_total DESC LIMIT 3") as [String]
        }) { result in
            if case .success(let names) = result { print(names) }   // ["Cy", "Bob"]
        }.store(in: &observations)
        // README:end
        // What a reader's program would do next: let the observation deliver, then end it.
        #expect(await printed.waitFor(#"["Cy", "Bob"]"#))
        observations.removeAll()
    }
}
