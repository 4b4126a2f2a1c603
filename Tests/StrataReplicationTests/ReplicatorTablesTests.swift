import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Litestream keeps `_litestream_seq` and `_litestream_lock` in the database it replicates:
/// Strata treats them as not its own, and refuses checkpoints that would reset the WAL under it.
@Suite struct ReplicatorTablesTests {
    static let litestreamTables = """
        CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
        CREATE TABLE _litestream_lock (id INTEGER);
        """

    @Test func truncateAndRestartCheckpointsWaitForForce() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(storageLocation: .onDisk(directory.path("db.sqlite")))
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        #expect(try db.checkpoint(mode: .truncate).logFrames >= 0)
        try db.execute(Self.litestreamTables)
        #expect(throws: ReplicationError.checkpointWouldResetWAL(mode: "TRUNCATE")) { try db.checkpoint() }
        #expect(throws: ReplicationError.checkpointWouldResetWAL(mode: "RESTART")) { try db.checkpoint(mode: .restart) }
        #expect(try db.checkpoint(mode: .passive).logFrames >= 0)
        #expect(try db.checkpoint(mode: .truncate, force: true).logFrames >= 0)
        // An attached database is asked about its own tables.
        try db.attachDatabase(from: .onDisk(directory.path("other.sqlite")), withName: "other")
        try db.execute("CREATE TABLE other._litestream_lock (id INTEGER)")
        #expect(throws: ReplicationError.self) { try db.checkpoint(attachedDatabaseName: "other", mode: .truncate) }
    }

    /// SQLite matches table names with ASCII case folded, and so does the guard, in `main` and in
    /// an attached database, as introspection leaves such tables out whatever their case.
    @Test(arguments: ["main", "other"])
    func theLockTableIsFoundWhateverTheCaseOfItsName(schema: String) throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(storageLocation: .onDisk(directory.path("db.sqlite")))
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        try db.attachDatabase(from: .onDisk(directory.path("other.sqlite")), withName: "other")
        try db.execute("PRAGMA other.journal_mode = WAL")
        try db.execute("CREATE TABLE \(quoteIdentifier(schema))._LiteStream_LOCK (id INTEGER)")
        #expect(throws: ReplicationError.checkpointWouldResetWAL(mode: "TRUNCATE")) {
            try db.checkpoint(attachedDatabaseName: schema, mode: .truncate)
        }
        #expect(try db.checkpoint(attachedDatabaseName: schema, mode: .passive).logFrames >= 0)
    }

    @Test func introspectionAndTheSchemaDSLLeaveLitestreamsTablesAlone() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(Self.litestreamTables)
        try db.execute("INSERT INTO _litestream_seq VALUES (1, 42)")
        let schema = Schema { s in
            s.version(1) { v in
                v.createTable("notes") { t in
                    t.primaryKey("id"); t.column("body", type: .Text)
                }
            }
        }
        try schema.migrate(db)
        #expect(db.schema.tableNames == ["notes"])
        #expect(try db.schemaReader.userTableNames() == ["notes"])
        // A reset (a database at a version the schema no longer knows) drops the schema's own
        // tables and leaves the replicator's.
        let newer = Schema { s in
            s.version(2) { v in
                v.createTable("memos") { t in
                    t.primaryKey("id"); t.column("body", type: .Text)
                }
            }
        }
        try newer.migrate(db, options: [.ResetOldDatabaseVersions])
        #expect(try db.query("SELECT seq FROM _litestream_seq") as Int? == 42)
        #expect(db.schema.tableNames == ["memos"])
        #expect(try db.schemaReader.table(named: "_litestream_lock") != nil)
    }
}
