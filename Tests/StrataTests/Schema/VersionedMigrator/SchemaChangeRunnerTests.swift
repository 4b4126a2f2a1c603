// The one runner every schema front-end uses: atomic, foreign keys off around the transaction,
// and only the violations a change added refused.
import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

@Suite struct SchemaChangeRunnerTests {
    struct Refused: Error { let violations: [ForeignKeyViolation] }
    struct Failed: Error {}

    private func database() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) ON DELETE CASCADE);
            INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1, 1), (2, 1);
            """)
        return db
    }

    private func change(_ check: SchemaChange.ForeignKeyCheck) -> SchemaChange {
        SchemaChange(
            savepointName: "test_change", foreignKeyCheck: check, violationError: { Refused(violations: $0) },
            keyActionsInTransactionError: { Failed() })
    }

    @Test func aFailingChangeLeavesEverythingAsItWas() throws {
        let db = try database()
        #expect(throws: Failed.self) {
            try change(.whenEnforced).run(on: db) {
                try db.execute("ALTER TABLE child ADD COLUMN note TEXT")
                try db.execute("DELETE FROM parent")
                throw Failed()
            }
        }
        #expect(try db.query("SELECT count(*) FROM child") as Int? == 2)
        #expect(try db.schemaReader.columns(ofTable: "child").map(\.name) == ["id", "parent"])
        #expect(try db.foreignKeysEnabled())
        #expect(!db.isInTransaction) // sqlite3_get_autocommit: the rollback ended it
        // The statement cache holds nothing still running after the throw.
        #expect(try db.query("SELECT count(*) FROM parent") as Int? == 1)
    }

    /// Enforcement is off while the change runs, so dropping a parent cascades nothing; the
    /// violation it leaves is the change's, refused by the front-end's error, and rolled back.
    @Test func violationsTheChangeAddsAreRefusedAndRolledBack() throws {
        let db = try database()
        #expect(throws: Refused.self) {
            try change(.whenEnforced).run(on: db) { try db.execute("DELETE FROM parent") }
        }
        #expect(try db.query("SELECT count(*) FROM parent") as Int? == 1)
        #expect(try db.query("SELECT count(*) FROM child") as Int? == 2)
    }

    /// A violation that was there before is not the change's, even when a rebuild renumbers it.
    @Test func olderViolationsAreNotTheChanges() throws {
        let db = try database()
        try db.withForeignKeysDisabled { try db.execute("INSERT INTO child VALUES (3, 99)") }
        let ran = try change(.always).run(on: db) { () throws -> Bool in
            try db.execute("CREATE TABLE child2(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) ON DELETE CASCADE)")
            try db.execute("INSERT INTO child2(parent) SELECT parent FROM child ORDER BY id DESC")
            try db.execute("DROP TABLE child")
            try db.execute("ALTER TABLE child2 RENAME TO child")
            return true
        }
        #expect(ran)
        #expect(try db.foreignKeyViolations().count == 1)
    }

    /// `.whenEnforced` checks nothing on a connection that does not enforce keys; `.always` does.
    @Test func checksFollowTheConnectionsEnforcement() throws {
        let db = try database()
        try db.execute("PRAGMA foreign_keys = OFF")
        try change(.whenEnforced).run(on: db) { try db.execute("DELETE FROM parent") }
        #expect(try db.query("SELECT count(*) FROM child") as Int? == 2)
        try db.execute("INSERT INTO parent VALUES (1)")
        #expect(throws: Refused.self) {
            try change(.always).run(on: db) { try db.execute("DELETE FROM parent") }
        }
    }

    /// Inside the caller's transaction SQLite keeps enforcement on: a change that may rebuild is
    /// refused over keys that act on delete, and otherwise runs as a savepoint.
    @Test func insideATransactionItIsASavepoint() throws {
        let db = try database()
        try db.execute("BEGIN")
        #expect(throws: Failed.self) { try change(.whenEnforced).run(on: db) { try db.execute("CREATE TABLE x(a)") } }
        var plain = change(.whenEnforced)
        plain.keyActionsInTransactionError = nil
        #expect(throws: Failed.self) {
            try plain.run(on: db) {
                try db.execute("CREATE TABLE x(a)"); throw Failed()
            }
        }
        #expect(db.isInTransaction)
        #expect(try db.schemaReader.table(named: "x") == nil)
        try plain.run(on: db) { try db.execute("CREATE TABLE x(a)") }
        try db.execute("COMMIT")
        #expect(try db.schemaReader.table(named: "x") != nil)
    }
}
