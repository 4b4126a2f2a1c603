import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataChangesets
#if canImport(SQLite3)
import SQLite3
#endif

/// Changesets over SQLite's session extension, against real databases.
@Suite struct ChangesetTests {
    static let schema = """
        CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER, photo BLOB);
        CREATE TABLE log(line TEXT);
        """

    func makeDatabase(_ location: StorageLocation = .inMemory) throws -> Connection {
        let db = try Connection(storageLocation: location)
        try db.execute(Self.schema)
        try db.execute("INSERT INTO players(id, name, score, photo) VALUES (1, 'Ann', 10, x'01'), (2, 'Bob', 20, NULL), (3, 'Cid', 30, x'0203')")
        return db
    }

    /// Every row of `players`, in key order, as values.
    func rows(_ db: Connection) throws -> [[BindingValue]] {
        try queryRows(db, "SELECT id, name, score, photo FROM players ORDER BY id")
    }

    @Test func undoAndRedoRestoreEveryRow() throws {
        let db = try makeDatabase()
        let before = try rows(db)
        let session = try db.recordChanges()
        #expect(session.isEmpty)
        try db.execute(
            """
            INSERT INTO players(id, name, score) VALUES (4, 'Dee', 40);
            UPDATE players SET score = score + 1, photo = x'FF' WHERE id = 1;
            DELETE FROM players WHERE id = 2;
            """)
        let after = try rows(db)
        let changeset = try session.changeset()
        #expect(!session.isEmpty && !changeset.isEmpty)
        let changes = try changeset.changes()
        #expect(changes.count == 3 && [.insert, .update, .delete].allSatisfy { operation in changes.contains { $0.operation == operation } })
        let update = try #require(changes.first { $0.operation == .update })
        #expect(update.table == "players" && update.primaryKeyColumns == [true, false, false, false])
        #expect(update.oldValues[2] == .integer(10) && update.newValues[2] == .integer(11))
        #expect(update.newValues[1] == nil) // unchanged columns are not carried
        #expect(update.primaryKey == [.integer(1)])
        session.close()

        try db.apply(try changeset.inverted()) { conflict in
            Issue.record("unexpected conflict \(conflict.kind)")
            return .abort
        }
        #expect(try rows(db) == before)
        try db.apply(changeset) { _ in .abort }
        #expect(try rows(db) == after)
        // Inverting while applying does the same as applying the inverse.
        try db.apply(changeset, options: .invert) { _ in .abort }
        #expect(try rows(db) == before)
    }

    @Test func replicasEditedApartConverge() throws {
        let directory = try TemporaryDirectory()
        let a = try makeDatabase(.onDisk(directory.path("a.db")))
        let b = try makeDatabase(.onDisk(directory.path("b.db")))
        let recordA = try a.recordChanges()
        let recordB = try b.recordChanges()
        try a.execute("UPDATE players SET score = 11 WHERE id = 1; INSERT INTO players(id, name) VALUES (10, 'Ava')")
        try b.execute("UPDATE players SET score = 12 WHERE id = 1; INSERT INTO players(id, name) VALUES (20, 'Ben'); DELETE FROM players WHERE id = 3")
        let fromA = try recordA.changeset()
        let fromB = try recordB.changeset()
        recordA.close()
        recordB.close()
        // Last writer wins on row 1: B's value, on both sides.
        var kinds: [ConflictKind] = []
        try a.apply(fromB) { conflict in
            kinds.append(conflict.kind); return .replace
        }
        try b.apply(fromA) { conflict in
            kinds.append(conflict.kind); return conflict.kind == .data ? .omit : .replace
        }
        #expect(kinds == [.data, .data])
        #expect(try rows(a) == rows(b))
        #expect(try a.query("SELECT score FROM players WHERE id = 1") as Int? == 12)
        #expect(try a.query("SELECT count(*) FROM players") as Int? == 4)
    }

    @Test func eachConflictKindIsRaisedAndEachResolutionDoesWhatSQLiteDocuments() throws {
        let source = try makeDatabase()
        let session = try source.recordChanges(tables: ["players"])
        try source.execute(
            """
            UPDATE players SET score = 11 WHERE id = 1;
            UPDATE players SET score = 21 WHERE id = 2;
            INSERT INTO players(id, name, score) VALUES (5, 'Eve', 50);
            INSERT INTO players(id, name, score) VALUES (6, 'Fay', 60);
            """)
        let changeset = try session.changeset()

        func target() throws -> Connection {
            let db = try makeDatabase()
            try db.execute(
                """
                UPDATE players SET score = 99 WHERE id = 1;   -- data: old value differs
                DELETE FROM players WHERE id = 2;              -- notFound
                INSERT INTO players(id, name, score) VALUES (5, 'Other', 0);  -- conflict: key exists
                INSERT INTO players(id, name, score) VALUES (7, 'Fay', 0);    -- constraint: UNIQUE name
                """)
            return db
        }
        func apply(_ resolve: @escaping (ConflictKind) -> ConflictResolution) throws -> (Connection, [ConflictKind]) {
            let db = try target()
            var seen: [ConflictKind] = []
            try db.apply(changeset) { conflict in
                seen.append(conflict.kind)
                if conflict.kind == .data { #expect(conflict.currentValues?[2] == .integer(99)) }
                return resolve(conflict.kind)
            }
            return (db, seen)
        }

        let (omitted, kinds) = try apply { _ in .omit }
        #expect(Set(kinds) == [.data, .notFound, .conflict, .constraint])
        #expect(try omitted.query("SELECT score FROM players WHERE id = 1") as Int? == 99)
        #expect(try omitted.query("SELECT name FROM players WHERE id = 5") as String? == "Other")
        #expect(try omitted.query("SELECT count(*) FROM players WHERE id = 6") as Int? == 0)

        let (replaced, _) = try apply { kind in kind == .data || kind == .conflict ? .replace : .omit }
        #expect(try replaced.query("SELECT score FROM players WHERE id = 1") as Int? == 11)
        #expect(try replaced.query("SELECT name FROM players WHERE id = 5") as String? == "Eve")

        let aborted = try target()
        let before = try rows(aborted)
        let error = sqliteError { try aborted.apply(changeset) { _ in .abort } }
        #expect(error?.code == SQLITE_ABORT)
        #expect(try rows(aborted) == before)
    }

    @Test func foreignKeyViolationsAreOneConflictAtTheEnd() throws {
        let schema = "CREATE TABLE owners(id INTEGER PRIMARY KEY); CREATE TABLE pets(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES owners(id))"
        let source = try Connection(storageLocation: .inMemory)
        try source.execute(schema)
        let session = try source.recordChanges()
        try source.execute("INSERT INTO owners VALUES (1); INSERT INTO pets VALUES (1, 1)")
        let changeset = try session.changeset()
        let target = try Connection(storageLocation: .inMemory)
        try target.execute("PRAGMA foreign_keys = ON; " + schema)
        var violations = 0
        // Only the pet, not its owner: the end state violates the foreign key.
        let error = sqliteError {
            try target.apply(changeset, filter: { $0 == "pets" }) { conflict in
                #expect(conflict.kind == .foreignKey)
                violations = conflict.foreignKeyViolations
                return .abort
            }
        }
        // SQLite reports an abort at the foreign key check as the constraint failure it is.
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(violations == 1)
        #expect(try target.query("SELECT count(*) FROM pets") as Int? == 0)
        try target.apply(changeset) { _ in .abort }
        #expect(try target.query("SELECT count(*) FROM pets") as Int? == 1)
    }

    @Test func anErrorThrownByTheHandlerLeavesTheTargetAsItWas() throws {
        struct Refused: Error {}
        let source = try makeDatabase()
        let session = try source.recordChanges()
        try source.execute("INSERT INTO players(id, name) VALUES (8, 'Gus'); UPDATE players SET score = 0 WHERE id = 3")
        let target = try makeDatabase()
        try target.execute("UPDATE players SET score = 1 WHERE id = 3")
        let before = try rows(target)
        #expect(throws: Refused.self) { try target.apply(try session.changeset()) { _ in throw Refused() } }
        #expect(try rows(target) == before)
        #expect(!target.isInTransaction)
    }

    @Test func theRebaserCarriesConflictResolutionsToLocalChanges() throws {
        // Local and remote both set row 1's score; local applies remote's change, keeping remote's value.
        let local = try makeDatabase()
        let remote = try makeDatabase()
        let localChanges = try recordedChangeset(of: "UPDATE players SET score = 100 WHERE id = 1", on: local)
        let remoteSession = try remote.recordChanges()
        try remote.execute("UPDATE players SET score = 200 WHERE id = 1")
        let remoteChanges = try remoteSession.changeset()

        let rebase = try local.apply(remoteChanges) { conflict in
            #expect(conflict.kind == .data)
            return .replace
        }
        #expect(!rebase.data.isEmpty)
        // Rebased, the local change no longer overwrites what local chose (remote's 200).
        let rebased = try Rebaser(rebase).rebase(localChanges)
        #expect(rebased != localChanges)
        try remote.apply(rebased) { _ in .omit }
        #expect(try remote.query("SELECT score FROM players WHERE id = 1") as Int? == 200)
        #expect(try local.query("SELECT score FROM players WHERE id = 1") as Int? == 200)
    }

    @Test func tablesWithoutAPrimaryKeyAreReportedNotSilentlyDropped() throws {
        let db = try makeDatabase()
        let session = try db.recordChanges()
        #expect(try session.untrackedTables() == ["log"])
        try db.execute("INSERT INTO log VALUES ('hello')")
        #expect(session.isEmpty)
        let named = try db.recordChanges(tables: ["players", "log"])
        #expect(try named.untrackedTables() == ["log"])
    }

    @Test func damagedChangesetsThrowAndApplyNothing() throws {
        let source = try makeDatabase()
        let session = try source.recordChanges()
        try source.execute("INSERT INTO players(id, name, score) VALUES (9, 'Hal', 90), (10, 'Ida', 100); DELETE FROM players WHERE id = 1")
        let good = try session.changeset().data
        let target = try makeDatabase()
        let before = try rows(target)
        let truncated = Changeset(data: good.prefix(good.count - 3))
        var corrupted = good
        corrupted[1] = 0xFF
        let random = Changeset(data: Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        for changeset in [truncated, Changeset(data: corrupted), random] {
            #expect(throws: (any Error).self) { try target.apply(changeset) { _ in .omit } }
            #expect(throws: (any Error).self) { try changeset.changes() }
            #expect(try rows(target) == before)
        }
    }

    @Test func tenThousandMutatedChangesetsNeverCrash() throws {
        let source = try makeDatabase()
        let session = try source.recordChanges()
        try source.execute(
            """
            INSERT INTO players(id, name, score, photo) VALUES (11, 'Jo', 1, x'00ff'), (12, 'Kai', NULL, NULL);
            UPDATE players SET name = 'Anna' WHERE id = 1;
            DELETE FROM players WHERE id = 2;
            """)
        let good = try session.changeset().data
        let target = try makeDatabase()
        var generator = SeededRandom(seed: 0x5EED) // SplitMix64: the fuzz run is the same every time
        var applied = 0
        for _ in 0..<10_000 {
            var bytes = [UInt8](good)
            switch generator.next() % 4 {
            case 0: bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            case 1: bytes.removeLast(Int(generator.next() % UInt64(bytes.count)))
            case 2: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: Int(generator.next() % UInt64(bytes.count)))
            default:
                for _ in 0..<3 { bytes[Int(generator.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: generator.next() | 1) }
            }
            let contentSQL = "SELECT group_concat(quote(id) || quote(name) || quote(score) || quote(photo), ';') FROM (SELECT * FROM players ORDER BY id)"
            let before: String? = try target.query(contentSQL)
            do {
                try target.execute("SAVEPOINT fuzz")
                try target.apply(Changeset(data: Data(bytes))) { _ in .omit }
                applied += 1
            } catch {
                // Nothing of a refused changeset may have been written.
                #expect(try target.query(contentSQL) as String? == before)
            }
            try target.execute("ROLLBACK TO fuzz; RELEASE fuzz")
        }
        #expect(applied < 10_000)
    }

    @Test func groupsConcatenationPatchsetsAndFiles() throws {
        let db = try makeDatabase()
        let monday = try recordedChangeset(of: "UPDATE players SET score = 1 WHERE id = 1", on: db)
        let second = try db.recordChanges()
        try db.execute("UPDATE players SET score = 2 WHERE id = 1; INSERT INTO players(id, name) VALUES (13, 'Lu')")
        let tuesday = try second.changeset()
        let patch = try second.patchset()
        #expect(patch.data.count < tuesday.data.count)
        #expect(throws: SQLiteError.self) { try patch.inverted() }

        let group = try ChangeGroup()
        try group.add(monday)
        try group.add(tuesday)
        let both = try group.output()
        #expect(try both.changes() == monday.concatenated(with: tuesday).changes())
        let rowOne = try #require(try both.changes().first { $0.operation == .update })
        #expect(rowOne.oldValues[2] == .integer(10) && rowOne.newValues[2] == .integer(2))

        let directory = try TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.path("tuesday.changeset"))
        try second.writeChangeset(to: url)
        #expect(try Data(contentsOf: url) == tuesday.data)
        var streamed: [Change] = []
        try Changeset.forEachChange(inFileAt: url) { streamed.append($0) }
        #expect(try streamed == tuesday.changes())
        let target = try makeDatabase()
        try target.apply(contentsOf: url) { _ in .replace }
        #expect(try target.query("SELECT score FROM players WHERE id = 1") as Int? == 2)
        #expect(Array(tuesday).count == 2)
    }

    @Test func sessionSwitchesFiltersAndNoOpUpdates() throws {
        let db = try makeDatabase()
        let session = try db.recordChanges()
        session.isEnabled = false
        try db.execute("UPDATE players SET score = 0 WHERE id = 1")
        #expect(session.isEmpty && !session.isEnabled)
        session.isEnabled = true
        session.isIndirect = true
        try db.execute("UPDATE players SET score = 5 WHERE id = 2")
        #expect(try session.changeset().changes().map(\.isIndirect) == [true])
        #expect(session.memoryUsed > 0)

        // A target that already holds the new value: a no-op update is skipped when asked.
        let target = try makeDatabase()
        try target.execute("UPDATE players SET score = 5 WHERE id = 2")
        var conflicts = 0
        try target.apply(try session.changeset(), options: .ignoreNoOpUpdates) { _ in
            conflicts += 1; return .abort
        }
        #expect(conflicts == 0)
        // The filter keeps other tables out.
        try target.apply(try session.changeset(), filter: { $0 != "players" }) { _ in .abort }
        session.close()
        #expect(throws: ChangesetError.sessionClosed) { try session.changeset() }
    }

    @Test func diffFindsWhatTurnsOneDatabaseIntoAnother() throws {
        let directory = try TemporaryDirectory()
        let old = try makeDatabase(.onDisk(directory.path("old.db")))
        let new = try makeDatabase(.onDisk(directory.path("new.db")))
        try new.execute("UPDATE players SET score = 0 WHERE id = 3; DELETE FROM players WHERE id = 1")
        try new.attachDatabase(from: .onDisk(directory.path("old.db")), withName: "old")
        let session = try new.recordChanges(tables: [])
        try session.diff(from: "old", table: "players")
        let changes = try session.changeset().changes()
        #expect(changes.map(\.operation) == [.delete, .update] || changes.map(\.operation) == [.update, .delete])
        try old.apply(try session.changeset()) { _ in .abort }
        #expect(try rows(old) == rows(new))
    }
}

/// The changeset of running `sql` on `db`, recorded for every table by a session closed after.
func recordedChangeset(of sql: String, on db: Connection) throws -> Changeset {
    let session = try db.recordChanges()
    defer { session.close() }
    try db.execute(sql)
    return try session.changeset()
}
