import Foundation
import Testing
import StrataRecords

@Record
struct Player: Equatable, Sendable {
    @PrimaryKey var id: Int64?
    var name: String
    @Column("score_total") var score: Int
    var team: String?
}

enum Position: String, Sendable {
    case keeper, defender, forward
}

struct Tag: Codable, Equatable, Sendable, CodableBinding {
    var label: String
}

@Record(table: "matches")
struct Match: Equatable, Sendable {
    @PrimaryKey var code: String
    var playedAt: Date
    var venue: URL?
    var payload: Data
    var position: Position
    var backup: Position?
    var tag: Tag
    var rating: Double?
    var isFinal: Bool
    var computed: String { code.uppercased() }
    static let unrelated = 5
}

@Record
struct HTTPRequest: Equatable {
    var path: String
}

@Record
struct LogLine: Equatable {
    var message: String
}

/// A binding whose bind reports SQLite's "bind or column index out of range", to check that a
/// failed bind is thrown as the connection's error.
struct Unbindable: Binding, Equatable, Sendable {
    typealias BindingType = Int64
    var bindingValue: BindingValue { .integer(0) }
    func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 { 25 } // SQLITE_RANGE
    static func fromBindingValue(_ value: Any) -> Unbindable? { Unbindable() }
}

@Record
struct Broken: Equatable {
    @PrimaryKey var id: Int64?
    var value: Unbindable
}

/// Names SQL would trip over: a space and a quote in the table, a quote and a keyword in columns.
@Record(table: "odd \"table\"")
struct Odd: Equatable, Sendable {
    @PrimaryKey @Column("key \"id\"") var id: Int64?
    @Column("select") var select: String
}

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
        try cal.save(db)                       // nil key: insert
        #expect(cal.id == 43)
        cal.score = 4
        try cal.save(db)                       // existing key: update
        var dee = Player(id: 100, name: "Dee", score: 1, team: nil)
        try dee.save(db)                       // key with no row: insert
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
        var match = Match(code: "F-1", playedAt: Date(timeIntervalSince1970: 1_700_000_000), venue: URL(string: "https://example.com/arena"),
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
            let _: [Player] = try db.query("SELECT id, name, team FROM player")
            Issue.record("a missing column must throw")
        } catch let error as RecordError {
            #expect(error.description.contains("Column 'score_total' of record Player is missing"))
        }
        do {
            let _: [Player] = try db.query("SELECT id, NULL AS name, score_total, team FROM player")
            Issue.record("NULL in a non-optional property must throw")
        } catch let error as RecordError {
            #expect(error == .nullInNonOptional(column: "name", record: "Player"))
            #expect(error.description.contains("Column 'name' of record Player holds NULL"))
        }
        do {
            let _: [Player] = try db.query("SELECT id, name, 'lots' AS score_total, team FROM player")
            Issue.record("a value that does not convert must throw")
        } catch let error as RecordError {
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
        #expect(query.sql == #"SELECT "odd ""table"""."key ""id""", "odd ""table"""."select" FROM "odd ""table""" WHERE ("odd ""table"""."select" = ?) AND ("odd ""table"""."key ""id""" IN (?)) ORDER BY "odd ""table"""."key ""id""" ASC"#)
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("records-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database(storageLocation: .onDisk(directory.appendingPathComponent("db.sqlite").path))
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
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if values.last == expected { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("timed out waiting for \(expected); delivered \(values)", sourceLocation: sourceLocation)
    }
}

@Suite struct RecordObservationTests {
    /// Record writes step their statement without a `Statement` object; observers must still hear
    /// of every one of them.
    @Test func observersSeeRecordWrites() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("records-observed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database(storageLocation: .onDisk(directory.appendingPathComponent("db.sqlite").path))
        try database.executeWrite { try Player.createTable($0) }
        let delivered = Delivered()
        let token = database.observe({ try Player.fetchCount($0) }, onChange: { result in
            if case .success(let count) = result { delivered.append(count) }
        })
        defer { token.cancel() }
        await delivered.waitForLast(0)
        try await database.write { db in
            var ann = Player(id: nil, name: "Ann", score: 12, team: nil)
            try ann.insert(db)
        }
        await delivered.waitForLast(1)
        try await database.write { db in
            var bob = Player(id: 7, name: "Bob", score: 3, team: nil)
            try bob.upsert(db)
        }
        await delivered.waitForLast(2)
        try await database.write { db in _ = try Player(id: 7, name: "Bob", score: 3, team: nil).delete(db) }
        await delivered.waitForLast(1)
        #expect(delivered.values == [0, 1, 2, 1])
    }
}

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
        #expect(query.sql == #"SELECT "player"."id", "player"."name", "player"."score_total", "player"."team" FROM "player" WHERE ("player"."score_total" > ?) AND ("player"."team" IS NULL) ORDER BY "player"."score_total" DESC LIMIT ?"#)
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
        ("between", #""player"."score_total" BETWEEN ? AND ?"#, ["Ann", "Cy", "Bob"].sorted()),
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
