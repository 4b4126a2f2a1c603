import Foundation
import StrataSQift
import Testing
import StrataRecords

@Suite struct RecordTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try Player.createTable(db)
        return db
    }

    @Test func namesKeysAndColumns() {
        #expect(Player.tableName == "player")
        #expect(Match.tableName == "matches")
        #expect(HTTPRequest.tableName == "httpRequest")
        #expect(Player.recordColumns.map(\.name) == ["id", "name", "score_total", "team"])
        #expect(Player.primaryKeyIndex == 0)
        #expect(Player.columns.score.name == "score_total")
        #expect(Match.recordColumns.map(\.name) == ["code", "playedAt", "venue", "payload", "position", "backup", "tag", "rating", "isFinal"])
    }

    @Test func createTableFollowsTheDeclaration() throws {
        let db = try makeDatabase()
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'player'")
        #expect(sql == #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "score_total" INTEGER NOT NULL, "team" TEXT)"#)
        #expect(throws: SQLiteError.self) { try Player.createTable(db) }
        try Player.createTable(db, ifNotExists: true)
        try Match.createTable(db)
        let matchSQL: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'matches'")
        #expect(matchSQL?.contains(#""code" TEXT PRIMARY KEY NOT NULL"#) == true)
        #expect(matchSQL?.contains(#""rating" REAL,"#) == true)
        #expect(matchSQL?.contains(#""payload" BLOB NOT NULL"#) == true)
    }

    @Test func insertAssignsTheKeyAndFetchesReadItBack() throws {
        let db = try makeDatabase()
        var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        try ann.insert(db)
        #expect(ann.id == 1)
        var bob = Player(id: nil, name: "Bob", score: 7, team: "red")
        try bob.insert(db)
        #expect(bob.id == 2)
        #expect(try Player.fetchAll(db) == [ann, bob])
        #expect(try Player.fetchOne(db, id: 2) == bob)
        #expect(try Player.fetchOne(db, id: 99) == nil)
        #expect(try Player.fetchCount(db) == 2)
        let viaQuery: [Player] = try db.query("SELECT * FROM player ORDER BY id")
        #expect(viaQuery == [ann, bob])
        // Columns in another order, and extra columns, map by name.
        let reordered: [Player] = try db.query("SELECT team, 1 AS extra, score_total, name, id FROM player ORDER BY id DESC")
        #expect(reordered == [bob, ann])
    }

    @Test func updateUpsertSaveAndDelete() throws {
        let db = try makeDatabase()
        var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        try ann.insert(db)
        ann.score = 20
        try ann.update(db)
        #expect(try Player.fetchOne(db, id: 1)?.score == 20)

        var ghost = Player(id: 42, name: "Ghost", score: 0, team: nil)
        #expect(throws: RecordError.notFound(record: "Player")) { try ghost.update(db) }
        try ghost.upsert(db)
        #expect(try Player.fetchOne(db, id: 42) == ghost)
        ghost.team = "blue"
        try ghost.upsert(db)
        #expect(try Player.fetchOne(db, id: 42)?.team == "blue")

        var cal = Player(id: nil, name: "Cal", score: 3, team: nil)
        try cal.save(db) // nil key: insert
        #expect(cal.id == 43)
        cal.score = 4
        try cal.save(db) // existing key: update
        var dee = Player(id: 100, name: "Dee", score: 1, team: nil)
        try dee.save(db) // key with no row: insert
        #expect(try Player.fetchCount(db) == 4)
        #expect(try Player.fetchOne(db, id: 43)?.score == 4)

        #expect(try dee.delete(db) == true)
        #expect(try dee.delete(db) == false)
        #expect(try Player.deleteAll(db) == 3)
        #expect(try Player.fetchCount(db) == 0)
    }

    @Test func everyPropertyKindRoundTrips() throws {
        let db = try Connection(storageLocation: .inMemory)
        try Match.createTable(db)
        var match = Match(
            code: "F-1", playedAt: Date(timeIntervalSince1970: 1_700_000_000), venue: URL(string: "https://example.com/arena"),
            payload: Data([0, 1, 2, 255]), position: .forward, backup: nil, tag: Tag(label: "cup"), rating: 4.5, isFinal: true)
        try match.insert(db)
        #expect(try Match.fetchOne(db, id: "F-1") == match)
        match.backup = .keeper
        match.venue = nil
        try match.update(db)
        #expect(try Match.fetchOne(db, id: "F-1") == match)
        let stored: String? = try db.query("SELECT position || '/' || backup FROM matches")
        #expect(stored == "forward/keeper")
        #expect(try Match.where { $0.position == .forward && $0.backup != nil }.fetchCount(db) == 1)
        #expect(try Match.where { $0.backup == Position.defender }.fetchCount(db) == 0)
    }

    @Test func recordsWithoutAKey() throws {
        let db = try Connection(storageLocation: .inMemory)
        try LogLine.createTable(db)
        var line = LogLine(message: "hello")
        try line.insert(db)
        #expect(try LogLine.fetchAll(db) == [line])
        #expect(throws: RecordError.noPrimaryKey(record: "LogLine")) { try line.delete(db) }
        #expect(throws: RecordError.noPrimaryKey(record: "LogLine")) { try LogLine.fetchOne(db, id: 1) }
    }

    @Test func errorsNameTheColumnAndTheRecord() throws {
        let db = try makeDatabase()
        try db.execute("INSERT INTO player VALUES (1, 'Ann', 5, NULL)")
        do {
            let error = try #require(throws: RecordError.self, "a missing column must throw") {
                let _: [Player] = try db.query("SELECT id, name, team FROM player")
            }
            #expect(error.description.contains("Column 'score_total' of record Player is missing"))
        }
        do {
            let error = try #require(throws: RecordError.self, "NULL in a non-optional property must throw") {
                let _: [Player] = try db.query("SELECT id, NULL AS name, score_total, team FROM player")
            }
            #expect(error == .nullInNonOptional(column: "name", record: "Player"))
            #expect(error.description.contains("Column 'name' of record Player holds NULL"))
        }
        do {
            let error = try #require(throws: RecordError.self, "a value that does not convert must throw") {
                let _: [Player] = try db.query("SELECT id, name, 'lots' AS score_total, team FROM player")
            }
            #expect(error.description.contains("Column 'score_total' of record Player holds TEXT"))
        }
    }

    @Test func schemaChangesUnderneathAreFollowed() throws {
        let db = try makeDatabase()
        var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        try ann.insert(db)
        #expect(try Player.fetchAll(db) == [ann])
        // Another connection's change would re-prepare the same way: SQLite re-prepares, and the
        // cached column indexes are resolved again.
        try db.execute("ALTER TABLE player ADD COLUMN nickname TEXT")
        let all: [Player] = try db.query("SELECT nickname, * FROM player")
        #expect(all == [ann])
        #expect(try Player.fetchAll(db) == [ann])
    }

    @Test func identifiersAreQuotedEverywhere() throws {
        let db = try Connection(storageLocation: .inMemory)
        #expect(Odd.tableName == #"odd "table""#)
        #expect(Odd.recordColumns.map(\.name) == [#"key "id""#, "select"])
        try Odd.createTable(db)
        var odd = Odd(id: nil, select: "from")
        try odd.insert(db)
        #expect(odd.id == 1)
        odd.select = "where"
        try odd.update(db)
        try odd.upsert(db)
        #expect(try Odd.fetchOne(db, id: 1) == odd)
        let query = Odd.where { $0.select == "where" && $0.id.in([1]) }.order(by: \.id)
        #expect(
            query.sql
                == #"SELECT "odd ""table"""."key ""id""", "odd ""table"""."select" FROM "odd ""table""" WHERE ("odd ""table"""."select" = ?) AND ("odd ""table"""."key ""id""" IN (?)) ORDER BY "odd ""table"""."key ""id""" ASC"#
        )
        #expect(try query.fetchAll(db) == [odd])
        #expect(try Odd.where { $0.select == "where" }.update(db, set: { $0.select.set("group") }) == 1)
        #expect(try odd.delete(db) == true)
        #expect(try Odd.fetchCount(db) == 0)
    }

    @Test func writeErrorsAreThrownAndLeaveTheConnectionUsable() throws {
        let db = try makeDatabase()
        var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
        try ann.insert(db)
        var twin = ann
        #expect { try twin.insert(db) } throws: { error in
            "\(error)".contains("UNIQUE constraint failed: player.id")
        }
        // The cached INSERT was reset after the failure: the next insert runs.
        var bob = Player(id: nil, name: "Bob", score: 3, team: nil)
        try bob.insert(db)
        #expect(bob.id == 2)
        try db.execute(#"CREATE TABLE "broken" ("id" INTEGER PRIMARY KEY, "value" INTEGER NOT NULL)"#)
        var broken = Broken(id: nil, value: Unbindable())
        #expect { try broken.insert(db) } throws: { error in
            "\(error)".contains("Could not bind parameter 2")
        }
        #expect { try Broken.fetchOne(db, id: Unbindable()) } throws: { error in
            "\(error)".contains("Could not bind parameter 1")
        }
        #expect(try Broken.fetchCount(db) == 0)
    }

    @Test func aSendableRecordStaysSendable() async throws {
        let ann = Player(id: 1, name: "Ann", score: 12, team: nil)
        // Each of these crosses into another task: they compile only if the types are Sendable.
        let copy = await Task.detached { ann }.value
        let query = Player.where { $0.name == "Ann" }
        let columns = await Task.detached { (query, Player.columns) }.value
        #expect(copy == ann)
        #expect(columns.0.sql == query.sql)
        #expect(columns.1.name.name == "name")
    }

    @Test func recordsWorkThroughDatabaseAndAsync() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try database.executeWrite { db in
            try Player.createTable(db)
            var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
            try ann.insert(db)
        }
        let query = Player.where { $0.score > 10 }
        let found = try await database.read { try query.fetchAll($0) }
        #expect(found.map(\.name) == ["Ann"])
        let count = try database.executeRead { try Player.fetchCount($0) }
        #expect(count == 1)
        let bob = try await database.write { db -> Player in
            var bob = Player(id: nil, name: "Bob", score: 30, team: "red")
            try bob.insert(db)
            return bob
        }
        #expect(bob.id == 2)
        let changed = try await database.write { try Player.where { $0.team == "red" }.update($0, set: { $0.score.set(31) }) }
        #expect(changed == 1)
        #expect(try await database.read { try Player.fetchOne($0, id: 2)?.score } == 31)
        #expect(try await database.read { try Player.where { $0.score > 20 }.fetchOne($0)?.name } == "Bob")
    }
}

/// Values an observation delivered, collected from its callback.
final class Delivered: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var storage: [Int] = []
    func append(_ value: Int) { lock.lock(); storage.append(value); lock.unlock() }
    var values: [Int] { lock.lock(); defer { lock.unlock() }; return storage }

    /// Waits until the last value delivered is `expected`, or records an issue after 30 s (a
    /// bound for "never", generous because suites share two cores).
    func waitForLast(_ expected: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if values.last == expected { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        // A last look: on a starved pool the loop can wake past the deadline with the value
        // delivered long before, as the full suite showed ("timed out waiting for 0; delivered [0]").
        if values.last == expected { return }
        Issue.record("timed out waiting for \(expected); delivered \(values)", sourceLocation: sourceLocation)
    }
}
