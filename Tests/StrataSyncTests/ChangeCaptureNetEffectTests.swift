import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// The hook capture's net effect against SQLite's session on the writes that undo or redo their
/// own changes inside one transaction: a savepoint rolled back, a row changed twice, a row
/// inserted then deleted, a statement that fails after the hook saw its rows. Each case runs
/// once per path on the same starting rows; the two changesets must list the same changes.
@Suite struct ChangeCaptureNetEffectTests {
    static let schema = """
        CREATE TABLE item(id TEXT PRIMARY KEY, v, label TEXT);
        CREATE TABLE other(id INTEGER PRIMARY KEY, note);
        CREATE TRIGGER fail_on_boom AFTER INSERT ON other WHEN NEW.note = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END;
        INSERT INTO item VALUES ('kept', 1, 'a'), ('gone', 2, 'b');
        """

    /// The changeset of `statements` run in one transaction along `path`; a statement that
    /// fails (undone alone by SQLite) is skipped, as a caller catching it would.
    static func capture(_ statements: [String], path: ChangeCapture.Path) throws -> Changeset {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute(schema)
        try connection.execute("BEGIN IMMEDIATE")
        let capture = try connection.captureChanges(tables: ["item", "other"], path: path, atTransactionStart: true)
        defer { capture.close() }
        for statement in statements { try? connection.execute(statement) }
        let changeset = try capture.changeset()
        try connection.execute("COMMIT")
        return changeset
    }

    /// Each change as text, sorted: the two paths may list a table's rows in another order.
    static func listed(_ changeset: Changeset) throws -> [String] {
        try changeset.changes().map { "\($0.table) \($0.operation) \($0.isIndirect) \($0.oldValues) \($0.newValues)" }.sorted()
    }

    static let cases: [(String, [String])] = [
        (
            "a savepoint rolled back",
            [
                "INSERT INTO item VALUES ('new', 3, 'c')", "SAVEPOINT s", "UPDATE item SET v = 9 WHERE id = 'kept'",
                "DELETE FROM item WHERE id = 'gone'", "INSERT INTO item VALUES ('later', 4, 'd')", "ROLLBACK TO s", "RELEASE s"
            ]
        ),
        (
            "nested savepoints, the inner one rolled back",
            [
                "SAVEPOINT a", "UPDATE item SET v = 5 WHERE id = 'kept'", "SAVEPOINT b",
                "UPDATE item SET v = 6 WHERE id = 'kept'", "ROLLBACK TO b", "RELEASE a"
            ]
        ),
        (
            "a savepoint rolled back, then the row changed again",
            [
                "SAVEPOINT s", "DELETE FROM item WHERE id = 'kept'", "ROLLBACK TO s",
                "UPDATE item SET label = 'z' WHERE id = 'kept'", "RELEASE s"
            ]
        ),
        ("a row changed twice", ["UPDATE item SET v = 10 WHERE id = 'kept'", "UPDATE item SET v = 11, label = 'x' WHERE id = 'kept'"]),
        ("a row changed and changed back", ["UPDATE item SET v = 10 WHERE id = 'kept'", "UPDATE item SET v = 1 WHERE id = 'kept'"]),
        ("a row inserted then deleted", ["INSERT INTO item VALUES ('brief', 5, 'e')", "DELETE FROM item WHERE id = 'brief'"]),
        ("a row deleted then inserted again", ["DELETE FROM item WHERE id = 'gone'", "INSERT INTO item VALUES ('gone', 2.5, 'f')"]),
        (
            "a statement that fails after its first row",
            [
                "INSERT INTO other(note) VALUES ('fine')",
                "INSERT INTO other(note) VALUES ('ok'), ('boom')", "UPDATE item SET v = -0.0 WHERE id = 'kept'"
            ]
        ),
        ("a key changed twice", ["UPDATE item SET id = 'k2' WHERE id = 'kept'", "UPDATE item SET id = 'k3' WHERE id = 'k2'"]),
        ("a REPLACE over a row", ["INSERT OR REPLACE INTO item VALUES ('gone', x'00ff', CAST(x'610062' AS TEXT))"]),
        ("the limits of INTEGER", ["UPDATE item SET v = 9223372036854775807 WHERE id = 'kept'", "INSERT INTO item VALUES ('min', -9223372036854775808, '')"]),
        ("the whole write undone", ["SAVEPOINT s", "INSERT INTO item VALUES ('new', 3, 'c')", "DELETE FROM item", "ROLLBACK TO s", "RELEASE s"])
    ]

    @Test(arguments: cases.indices)
    func theHookCaptureHasTheSessionsNetEffect(_ index: Int) throws {
        let (name, statements) = Self.cases[index]
        let hooked = try Self.capture(statements, path: .hook)
        let recorded = try Self.capture(statements, path: .session)
        #expect(try Self.listed(hooked) == Self.listed(recorded), "\(name)")
        // One change or none: the order cannot differ, so the bytes are the session's.
        if try recorded.changes().count <= 1 {
            #expect(hooked.data == recorded.data, "\(name)")
        }
    }

    /// Captures in turn on one connection (the hook's recorder kept from one to the next), with
    /// the schema changed between two of them: each has its own transaction's changes, read
    /// in the table's shape of the moment.
    @Test func capturesInTurnOnOneConnectionEachHaveTheirOwnChanges() throws {
        let hookConnection = try Connection(storageLocation: .inMemory)
        let sessionConnection = try Connection(storageLocation: .inMemory)
        for connection in [hookConnection, sessionConnection] { try connection.execute(Self.schema) }
        for (index, (name, statements)) in Self.cases.enumerated() {
            if index == 4 {
                for connection in [hookConnection, sessionConnection] { try connection.execute("ALTER TABLE item ADD COLUMN extra DEFAULT 7") }
            }
            var changesets: [Changeset] = []
            for (connection, path) in [(hookConnection, ChangeCapture.Path.hook), (sessionConnection, .session)] {
                try connection.execute("BEGIN IMMEDIATE")
                let capture = try connection.captureChanges(tables: ["item", "other"], path: path, atTransactionStart: true)
                for statement in statements { try? connection.execute(statement) }
                changesets.append(try capture.changeset())
                capture.close()
                try connection.execute("COMMIT")
            }
            #expect(try Self.listed(changesets[0]) == Self.listed(changesets[1]), "\(name)")
        }
    }

    /// A recorder kept for the next capture serves only the same tables by their bytes: `é` and
    /// `e` + U+0301 are two tables to SQLite, though Swift's `==` takes them for one name.
    @Test func aKeptRecorderIsNotReusedForTablesNamedAlikeInSwiftOnly() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE \"\(composed)\"(id INTEGER PRIMARY KEY, v); CREATE TABLE \"\(decomposed)\"(id INTEGER PRIMARY KEY, v)")
        var names: [[UInt8]] = []
        for table in [composed, decomposed] {
            try connection.execute("BEGIN IMMEDIATE")
            let capture = try connection.captureChanges(tables: [table], path: .hook, atTransactionStart: true)
            try connection.execute("INSERT INTO \"\(table)\" VALUES (1, 'x')")
            let changes = try capture.changeset().changes()
            capture.close()
            try connection.execute("COMMIT")
            names += changes.map { Array($0.table.utf8) }
        }
        #expect(names == [Array(composed.utf8), Array(decomposed.utf8)])
    }

    /// The outbox row a replica stores is the capture's changeset, byte for byte.
    @Test func theOutboxStoresTheCapturedBytes() async throws {
        let folder = try SyncFolder()
        let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
        let schema = "CREATE TABLE m(id TEXT PRIMARY KEY NOT NULL, r)"
        try hub.createSpace("s") { try $0.execute(schema) }
        try Connection(storageLocation: .onDisk(folder.path("r.sqlite"))).execute(schema)
        let replica = try SyncReplica(
            database: try Database(path: folder.path("r.sqlite")), replicaID: "r", space: "s", tables: ["m"], transport: InProcessSyncTransport(hub: hub))
        try await replica.write { try $0.run("INSERT INTO m VALUES ('a', ?)", Int64.min) }
        try await replica.write { try $0.run("INSERT INTO m VALUES ('b', ?)", "x\u{0}y") }
        let pending = try await replica.pendingChanges
        #expect(pending.count == 2)

        let expected = try Connection(storageLocation: .inMemory)
        try expected.execute(schema)
        var changesets: [Data] = []
        for (key, value) in [("a", Int64.min as Bindable), ("b", "x\u{0}y" as Bindable)] {
            try expected.execute("BEGIN IMMEDIATE")
            let capture = try expected.captureChanges(tables: ["m"], path: .session, atTransactionStart: true)
            try expected.run("INSERT INTO m VALUES (?, ?)", key, value)
            changesets.append(try capture.changeset().data)
            capture.close()
            try expected.execute("COMMIT")
        }
        #expect(pending.map(\.changeset.data) == changesets)
        #expect(pending.map(\.sequence) == [1, 2])
    }
}
