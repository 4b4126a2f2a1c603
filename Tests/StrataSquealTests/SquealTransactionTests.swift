import Foundation
import StrataTestSupport
import Testing
import StrataSqueal

/// Squeal's transaction and savepoint spellings, beside SQift's.
@Suite struct SquealTransactionTests {
    struct Boom: Error {}

    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable("t", definitions: ["v TEXT"])
        return db
    }

    func values(_ db: Connection) throws -> [String] {
        try db.selectFrom("t", orderBy: "rowid") { $0.stringValue("v") ?? "" }
    }

    @Test func explicitTransactions() throws {
        let db = try makeDatabase()
        try db.beginTransaction()
        #expect(db.isInTransaction)
        try db.insertInto("t", values: ["v": "a"])
        try db.commit()
        #expect(!db.isInTransaction)
        try db.beginTransaction()
        try db.insertInto("t", values: ["v": "b"])
        try db.rollback()
        #expect(try values(db) == ["a"])
        #expect(throws: SQLiteError.self) { try db.commit() }
        #expect(throws: SQLiteError.self) { try db.rollback() }
    }

    @Test func transactionBlockCommitsRollsBackAndRethrows() throws {
        let db = try makeDatabase()
        #expect(
            try db.transaction { db in
                try db.insertInto("t", values: ["v": "commit"]); return .Commit
            } == .Commit)
        #expect(
            try db.transaction { db in
                try db.insertInto("t", values: ["v": "rollback"]); return .Rollback
            } == .Rollback)
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.insertInto("t", values: ["v": "thrown"])
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try values(db) == ["commit"])
    }

    @Test func failedCommitRollsBack() throws {
        let db = try makeDatabase()
        try db.execute("PRAGMA foreign_keys = ON; CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(p REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)")
        #expect(throws: SQLiteError.self) {
            try db.transaction { db in
                try db.insertInto("c", values: ["p": 1])
                return .Commit
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.countFrom("c") == 0)
    }

    @Test func savepointsNestAndRollBack() throws {
        let db = try makeDatabase()
        try db.transaction { db in
            try db.insertInto("t", values: ["v": "outer"])
            try db.savepoint(#"a "quoted" name"#) { db in
                try db.insertInto("t", values: ["v": "released"])
                try db.savepoint("inner") { db in
                    try db.insertInto("t", values: ["v": "rolled back"])
                    return .Rollback
                }
                return .Release
            }
            #expect(throws: Boom.self) {
                try db.savepoint("thrown") { db in
                    try db.insertInto("t", values: ["v": "thrown"])
                    throw Boom()
                }
            }
            #expect(db.isInTransaction)
            return .Commit
        }
        #expect(try values(db) == ["outer", "released"])
    }

    @Test func failedTopLevelSavepointEndsItsTransaction() throws {
        let db = try makeDatabase()
        #expect(throws: Boom.self) {
            try db.savepoint("top") { db in
                try db.insertInto("t", values: ["v": "x"])
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        try db.beginSavepoint("manual")
        try db.insertInto("t", values: ["v": "kept"])
        try db.rollbackSavepoint("manual")
        try db.insertInto("t", values: ["v": "after"])
        try db.releaseSavepoint("manual")
        #expect(!db.isInTransaction)
        #expect(try values(db) == ["after"])
        #expect(throws: SQLiteError.self) { try db.releaseSavepoint("manual") }
    }

    @Test func sqiftSpellingsStillResolve() throws {
        let db = try makeDatabase()
        try db.transaction { try db.insertInto("t", values: ["v": "sqift"]) }
        try db.transaction(transactionType: .immediate) { try db.insertInto("t", values: ["v": "immediate"]) }
        try db.savepoint(named: "s") { try db.insertInto("t", values: ["v": "savepoint"]) }
        #expect(try values(db) == ["sqift", "immediate", "savepoint"])
    }

    /// SQLite refuses the COMMIT a top-level savepoint's RELEASE stands for while another
    /// connection reads (rollback journal, no busy handler): both Squeal forms roll back whole.
    @Test(arguments: [SavepointResult.Release, .Rollback])
    func refusedTopLevelReleaseEndsItsTransaction(result: SavepointResult) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let db = try Connection(storageLocation: .onDisk(path))
        try db.createTable("t", definitions: ["v TEXT"])
        try db.insertInto("t", values: ["v": "a"])
        let reader = try Connection(storageLocation: .onDisk(path))
        let reading = try reader.prepare("SELECT v FROM t")
        #expect(try reading.step())
        let error = sqliteError {
            try db.savepoint("top") { db in
                try db.insertInto("t", values: ["v": "b"])
                return result
            }
        }
        #expect(error?.message == "database is locked")
        #expect(!db.isInTransaction)
        let newcomer = try Connection(storageLocation: .onDisk(path))
        #expect(try newcomer.query("SELECT count(*) FROM t") as Int? == 1)
        try reading.run()
        try db.transaction { try db.insertInto("t", values: ["v": "c"]) }
        #expect(try values(db) == ["a", "c"])
    }

    @Test func refusedTopLevelReleaseOfTheClosureFormEndsItsTransaction() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let db = try Connection(storageLocation: .onDisk(path))
        try db.createTable("t", definitions: ["v TEXT"])
        let reader = try Connection(storageLocation: .onDisk(path))
        let reading = try reader.prepare("SELECT count(*) FROM t")
        #expect(try reading.step())
        let error = sqliteError {
            try db.savepoint("top") { try db.insertInto("t", values: ["v": "b"]) }
        }
        #expect(error?.message == "database is locked")
        #expect(!db.isInTransaction)
        try reading.run()
        try db.transaction { try db.insertInto("t", values: ["v": "c"]) }
        #expect(try values(db) == ["c"])
    }
}
