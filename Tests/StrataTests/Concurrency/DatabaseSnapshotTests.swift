import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// WAL snapshots, on whichever SQLite the run loaded: taken and read where the library has
/// them (SQLITE_ENABLE_SNAPSHOT, CI's second pass), refused by name where it does not (Debian's).
@Suite struct DatabaseSnapshotTests {
    private func makeDatabase(in directory: TemporaryDirectory) async throws -> Database {
        let database = try Database(path: directory.path("app.sqlite"))
        try await database.write { db in
            try db.execute("CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")
            for index in 0..<10 { try db.run("INSERT INTO book(title) VALUES(?)", "Book \(index)") }
        }
        return database
    }

    @Test func withoutSnapshotsInTheLibraryTheyAreRefusedByName() async throws {
        guard !SQLiteLibrary.supportsSnapshots else { return }
        let directory = try TemporaryDirectory()
        let database = try await makeDatabase(in: directory)
        await #expect(throws: SQLiteLibraryError.snapshotsUnavailable) { _ = try await database.readSnapshot() }
        try database.executeWrite { db in
            try db.transaction(transactionType: .deferred) {
                #expect(throws: SQLiteLibraryError.snapshotsUnavailable) { _ = try db.takeSnapshot() }
            }
        }
        // The refusal left the database usable.
        #expect(try await database.read { try $0.query("SELECT count(*) FROM book") as Int? } == 10)
        try await database.close()
    }

    @Test func readsOfOneSnapshotSeeTheSameDataWhileWritesGoOn() async throws {
        guard SQLiteLibrary.supportsSnapshots else { return }
        let directory = try TemporaryDirectory()
        let database = try await makeDatabase(in: directory)
        let snapshot = try await database.readSnapshot()

        for round in 0..<5 {
            try await database.write { db in
                try db.run("INSERT INTO book(title) VALUES(?)", "Later \(round)")
                try db.execute("UPDATE book SET title = title || '!' WHERE id = 1")
            }
            // Checkpoints copy the WAL into the file; the snapshot's own open read keeps it.
            try database.executeWrite { db in _ = try db.query("PRAGMA wal_checkpoint(PASSIVE)") as Int? }
            let seen = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await snapshot.read { db in try db.query("SELECT title FROM book ORDER BY id") as [String] } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(seen.allSatisfy { $0 == (0..<10).map { "Book \($0)" } })
        }
        // A plain read sees every write.
        #expect(try await database.read { try $0.query("SELECT count(*) FROM book") as Int? } == 15)
        #expect(try await database.read { try $0.query("SELECT title FROM book WHERE id = 1") as String? } == "Book 0!!!!!")

        // A later snapshot sees the writes, and sorts after the first.
        let later = try await database.readSnapshot()
        #expect(try await later.read { try $0.query("SELECT count(*) FROM book") as Int? } == 15)
        #expect(snapshot.walSnapshot < later.walSnapshot)
        #expect(snapshot.walSnapshot != later.walSnapshot)
        try await database.close()
    }

    @Test func theConnectionLevelCallsTakeAndOpenASnapshot() throws {
        guard SQLiteLibrary.supportsSnapshots else { return }
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let writer = try makeConnection(.onDisk(path), executing: "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1)")
        let reader = try Connection(storageLocation: .onDisk(path))
        let snapshot = try reader.transaction(transactionType: .deferred) {
            _ = try reader.query("SELECT count(*) FROM t") as Int?
            return try reader.takeSnapshot()
        }
        // Pinned by a third connection's open read, as DatabaseSnapshot does.
        let pin = try makeConnection(.onDisk(path), executing: "BEGIN")
        _ = try pin.query("SELECT count(*) FROM t") as Int?
        try writer.execute("INSERT INTO t VALUES(2)")
        let count = try reader.transaction(transactionType: .deferred) {
            try reader.openSnapshot(snapshot)
            return try reader.query("SELECT count(*) FROM t") as Int?
        }
        #expect(count == 1)
        #expect(try reader.query("SELECT count(*) FROM t") as Int? == 2)
        // Outside WAL mode SQLite itself refuses.
        let rollback = try makeConnection(.onDisk(directory.path("rollback.sqlite")), executing: "CREATE TABLE t(x)")
        let error = try rollback.transaction(transactionType: .deferred) { () -> SQLiteError? in
            _ = try rollback.query("SELECT count(*) FROM t") as Int?
            return sqliteError { _ = try rollback.takeSnapshot() }
        }
        #expect(error != nil)
        try pin.execute("ROLLBACK")
    }
}
