import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata

@Suite struct ForeignKeysTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE "the child" (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id));
            INSERT INTO parent VALUES (1);
            INSERT INTO "the child" VALUES (10, 1), (11, 2);
            """)
        return db
    }

    @Test func listsViolations() throws {
        let db = try makeDatabase()
        let expected = [ForeignKeyViolation(table: "the child", rowID: 11, parentTable: "parent", foreignKeyIndex: 0)]
        #expect(try db.foreignKeyViolations() == expected)
        #expect(try db.foreignKeyViolations(inTable: "the child") == expected)
        #expect(try db.foreignKeyViolations(inTable: "parent").isEmpty)
        #expect(expected[0].description == #""the child" row 11 has no parent in "parent" (foreign key 0)"#)
        #expect(sqliteError { _ = try db.foreignKeyViolations(inTable: "nope") } != nil)
    }

    /// The same check on every kind of `Database`, whose foreign keys are on: the orphan was
    /// written with them off, as a bulk import would.
    @Test(arguments: DatabaseKind.allCases) func listsViolationsOnEveryKindOfDatabase(kind: DatabaseKind) throws {
        let temporary = try TemporaryDatabase(kind)
        try temporary.database.writeWithoutTransaction { db in
            try db.execute("PRAGMA foreign_keys = OFF")
            defer { try? db.execute("PRAGMA foreign_keys = ON") }
            try db.execute(
                """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE "the child" (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id));
                INSERT INTO parent VALUES (1);
                INSERT INTO "the child" VALUES (10, 1), (11, 2);
                """)
        }
        let violations = try temporary.database.read { try $0.foreignKeyViolations() }
        #expect(violations == [ForeignKeyViolation(table: "the child", rowID: 11, parentTable: "parent", foreignKeyIndex: 0)])
        #expect(try temporary.database.read { try $0.foreignKeysEnabled() })
    }

    @Test func disablingRestoresTheSetting() throws {
        let db = try makeDatabase()
        #expect(try !db.foreignKeysEnabled())
        #expect(try db.withForeignKeysDisabled { try db.foreignKeysEnabled() } == false)
        #expect(try !db.foreignKeysEnabled())

        try db.execute("PRAGMA foreign_keys = ON")
        let inside = try db.withForeignKeysDisabled { try db.foreignKeysEnabled() }
        #expect(inside == false)
        #expect(try db.foreignKeysEnabled())
        #expect(throws: CancellationError.self) {
            try db.withForeignKeysDisabled { throw CancellationError() }
        }
        #expect(try db.foreignKeysEnabled())
    }

    @Test func cannotDisableInsideATransaction() throws {
        let db = try makeDatabase()
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("BEGIN")
        #expect(throws: TableRebuildError.foreignKeysEnabledInTransaction(table: "")) {
            try db.withForeignKeysDisabled {}
        }
        try db.execute("ROLLBACK")
        #expect(TableRebuildError.foreignKeysEnabledInTransaction(table: "").description.hasPrefix("Cannot turn foreign keys off inside a transaction"))
    }
}
