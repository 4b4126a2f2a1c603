import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

@Suite struct TableRebuildTests {
    /// A parent table with awkward names, an index, a trigger, a view, and a child table pointing at it.
    func makeAwkwardDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE "my ""odd"" table" ("select" INTEGER PRIMARY KEY, "first name" TEXT, "age" INTEGER, "order" TEXT);
            CREATE INDEX "idx on name" ON "my ""odd"" table" ("first name");
            CREATE TABLE "log" (msg TEXT);
            CREATE TRIGGER "log insert" AFTER INSERT ON "my ""odd"" table" BEGIN INSERT INTO "log" VALUES (NEW."first name"); END;
            CREATE VIEW "names" AS SELECT "first name" FROM "my ""odd"" table";
            CREATE TABLE "child" (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES "my ""odd"" table"("select") ON DELETE CASCADE);
            """)
        try db.run(#"INSERT INTO "my ""odd"" table" VALUES (?, ?, ?, ?)"#, 1, "Ann", 30, "'); DROP TABLE x; --")
        try db.run(#"INSERT INTO "my ""odd"" table" VALUES (?, ?, ?, ?)"#, 2, "Bob", 40, nil)
        try db.run("INSERT INTO child VALUES (?, ?)", 10, 1)
        try db.run("INSERT INTO child VALUES (?, ?)", 11, 2)
        try db.execute("PRAGMA user_version = 7")
        return db
    }

    let awkward = #"my "odd" table"#

    @Test func dropsAColumnKeepingDataIndexesTriggersViewsAndChildren() throws {
        let db = try makeAwkwardDatabase()
        try db.rebuildTable(
            named: awkward,
            definition: #""select" INTEGER PRIMARY KEY, "first name" TEXT NOT NULL, "order" TEXT"#,
            copying: [("select", #""select""#), ("first name", #""first name""#), ("order", #""order""#)])

        let columns: [String] = try db.query(#"SELECT name FROM pragma_table_info('my "odd" table')"#)
        #expect(columns == ["select", "first name", "order"])
        let names: [String] = try db.query(#"SELECT "first name" FROM "my ""odd"" table" ORDER BY "select""#)
        #expect(names == ["Ann", "Bob"])
        let order: String? = try db.query(#"SELECT "order" FROM "my ""odd"" table" WHERE "select" = 1"#)
        #expect(order == "'); DROP TABLE x; --")
        let objects: [String] = try db.query("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') ORDER BY name")
        #expect(objects == ["idx on name", "log insert", "names"])
        let viewed: [String] = try db.query(#"SELECT "first name" FROM names ORDER BY 1"#)
        #expect(viewed == ["Ann", "Bob"])
        try db.run(#"INSERT INTO "my ""odd"" table" ("first name") VALUES (?)"#, "Cy")
        let logged: [String] = try db.query("SELECT msg FROM log")
        #expect(logged == ["Ann", "Bob", "Cy"])
        // ON DELETE CASCADE did not fire while the old table was dropped.
        let children: Int? = try db.query("SELECT count(*) FROM child")
        #expect(children == 2)
        #expect(try db.foreignKeysEnabled())
        #expect(try db.query("PRAGMA user_version") as Int? == 7)
        #expect(!db.isInTransaction)
        // The new constraint is in force.
        #expect(sqliteError { try db.run(#"INSERT INTO "my ""odd"" table" ("first name") VALUES (NULL)"#) } != nil)
    }

    @Test func fillsAColumnFromAnExpression() throws {
        let db = try makeAwkwardDatabase()
        try db.rebuildTable(
            named: awkward,
            definition: #""select" INTEGER PRIMARY KEY, "first name" TEXT, "age" INTEGER, "order" TEXT, "label" TEXT"#,
            copying: [
                ("select", #""select""#), ("first name", #""first name""#), ("age", #""age" + 1"#),
                ("order", #""order""#), ("label", #""first name" || '!'"#)
            ])
        let rows: [String] = try db.query(#"SELECT "label" || "age" FROM "my ""odd"" table" ORDER BY 1"#)
        #expect(rows == ["Ann!31", "Bob!41"])
    }

    @Test func foreignKeyViolationRollsBackEverything() throws {
        let db = try makeAwkwardDatabase()
        let before = try DatabaseSnapshot(db)
        #expect(throws: TableRebuildError.self) {
            // Copy only Ann: Bob's child row loses its parent.
            try db.rebuildTable(
                named: awkward,
                definition: #""select" INTEGER PRIMARY KEY, "first name" TEXT"#,
                copying: [("select", #"CASE WHEN "select" = 1 THEN "select" ELSE "select" + 100 END"#), ("first name", #""first name""#)])
        }
        do {
            try db.rebuildTable(
                named: awkward, definition: #""select" INTEGER PRIMARY KEY, "first name" TEXT"#,
                copying: [("select", "\"select\" + 100"), ("first name", #""first name""#)])
            Issue.record("expected a foreign key violation")
        } catch let TableRebuildError.foreignKeysViolated(table, violations) {
            #expect(table == awkward)
            #expect(violations.map(\.table) == ["child", "child"])
            #expect(violations.allSatisfy { $0.parentTable == awkward })
        }
        #expect(try DatabaseSnapshot(db) == before)
        #expect(!db.isInTransaction)
    }

    @Test(arguments: [
        #""select" INTEGER PRIMARY KEY, "first name" TEXT, nonsense("#, // bad definition
        #""select" INTEGER PRIMARY KEY, "nickname" TEXT"#, // the index needs "first name"
        #""select" INTEGER PRIMARY KEY, "first name" TEXT NOT NULL CHECK ("first name" = 'Ann')"# // Bob fails the check
    ])
    func failureLeavesDatabaseExactlyAsBefore(definition: String) throws {
        let db = try makeAwkwardDatabase()
        let before = try DatabaseSnapshot(db)
        let copying: [(column: String, expression: String)] =
            definition.contains("nickname")
            ? [("select", #""select""#), ("nickname", #""first name""#)]
            : [("select", #""select""#), ("first name", #""first name""#)]
        #expect(throws: (any Error).self) {
            try db.rebuildTable(named: awkward, definition: definition, copying: copying)
        }
        #expect(try DatabaseSnapshot(db) == before)
        #expect(!db.isInTransaction)
    }

    @Test func viewOnADroppedColumnFailsTheRebuild() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(#"CREATE TABLE t (a TEXT, "b c" TEXT); CREATE VIEW "v" AS SELECT "b c" FROM t; CREATE VIEW "all" AS SELECT * FROM t"#)
        try db.run("INSERT INTO t VALUES (?, ?)", "x", "y")
        let before = try DatabaseSnapshot(db)
        #expect(throws: TableRebuildError.viewDoesNotFit(view: "v", table: "t")) {
            try db.rebuildTable(named: "t", definition: #""a" TEXT"#, copying: [("a", "a")])
        }
        #expect(try DatabaseSnapshot(db) == before)
        // A view that still fits, including SELECT *, comes back.
        try db.execute(#"DROP VIEW "v""#)
        try db.rebuildTable(named: "t", definition: #""a" TEXT"#, copying: [("a", "a")])
        let all: [String] = try db.query(#"SELECT * FROM "all""#)
        #expect(all == ["x"])
    }

    @Test func triggersOnViewsOfTheTableComeBack() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE t (a TEXT, junk TEXT);
            CREATE VIEW v AS SELECT a FROM t;
            CREATE TRIGGER "v insert" INSTEAD OF INSERT ON v BEGIN INSERT INTO t (a) VALUES (upper(NEW.a)); END;
            """)
        try db.rebuildTable(named: "t", definition: #""a" TEXT"#, copying: [("a", "a")])
        try db.run("INSERT INTO v VALUES (?)", "x")
        let values: [String] = try db.query("SELECT a FROM t")
        #expect(values == ["X"])
    }

    @Test func badCopyExpressionLeavesDatabaseAsBefore() throws {
        let db = try makeAwkwardDatabase()
        let before = try DatabaseSnapshot(db)
        #expect(
            sqliteError {
                try db.rebuildTable(named: awkward, definition: #""select" INTEGER PRIMARY KEY"#, copying: [("select", "no_such_column")])
            } != nil)
        #expect(try DatabaseSnapshot(db) == before)
    }

    @Test func missingTableIsANamedError() throws {
        let db = try Connection(storageLocation: .inMemory)
        #expect(throws: TableRebuildError.noSuchTable("nope")) {
            try db.rebuildTable(named: "nope", definition: "x", copying: [])
        }
    }

    @Test func keepsWithoutRowIDAndStrictOptions() throws {
        let db = try makeConnection(executing: "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER, extra TEXT) WITHOUT ROWID, STRICT")
        try db.run("INSERT INTO kv VALUES (?, ?, ?)", "a", 1, "x")
        try db.rebuildTable(named: "kv", definition: #""k" TEXT PRIMARY KEY, "v" INTEGER"#, copying: [("k", "k"), ("v", "v")])
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'kv'")
        #expect(sql == #"CREATE TABLE "kv" ("k" TEXT PRIMARY KEY, "v" INTEGER) WITHOUT ROWID, STRICT"#)
        let v: Int? = try db.query("SELECT v FROM kv WHERE k = 'a'")
        #expect(v == 1)
        // The table option can also be changed.
        try db.rebuildTable(named: "kv", definition: #""k" TEXT PRIMARY KEY, "v" INTEGER"#, copying: [("k", "k"), ("v", "v")], tableOptions: "")
        let rowid: Int? = try db.query("SELECT rowid FROM kv")
        #expect(rowid == 1)
    }

    @Test func keepsAutoincrementCounter() throws {
        let db = try makeConnection(executing: "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, junk TEXT)")
        for name in ["a", "b", "c"] { try db.run("INSERT INTO t (name) VALUES (?)", name) }
        try db.execute("DELETE FROM t WHERE id = 3")
        try db.rebuildTable(
            named: "t", definition: #""id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT"#,
            copying: [("id", "id"), ("name", "name")])
        let seq: Int? = try db.query("SELECT seq FROM sqlite_sequence WHERE name = 't'")
        #expect(seq == 3)
        try db.run("INSERT INTO t (name) VALUES (?)", "d")
        #expect(db.lastInsertRowID == 4)
    }

    @Test func keepsTheStoredNameCase() throws {
        let db = try makeConnection(executing: "CREATE TABLE Contacts (a TEXT, b TEXT)")
        try db.rebuildTable(named: "CONTACTS", definition: #""a" TEXT"#, copying: [("a", "a")])
        let names: [String] = try db.query("SELECT name FROM sqlite_master")
        #expect(names == ["Contacts"])
    }

    @Test func keepsImplicitRowIDs() throws {
        let db = try makeConnection(executing: "CREATE TABLE t (name TEXT, junk TEXT)")
        for name in ["a", "b", "c"] { try db.run("INSERT INTO t (name) VALUES (?)", name) }
        try db.execute("DELETE FROM t WHERE name = 'a'")
        try db.rebuildTable(named: "t", definition: #""name" TEXT"#, copying: [("name", "name")])
        let rows: [String] = try db.query("SELECT rowid || name FROM t ORDER BY rowid")
        #expect(rows == ["2b", "3c"])
    }

    @Test func insideATransactionUsesASavepointAndNeedsForeignKeysOff() throws {
        let db = try makeAwkwardDatabase()
        let before = try DatabaseSnapshot(db)
        try db.execute("BEGIN")
        #expect(throws: TableRebuildError.foreignKeysEnabledInTransaction(table: awkward)) {
            try db.rebuildTable(named: awkward, definition: #""select" INTEGER PRIMARY KEY"#, copying: [("select", #""select""#)])
        }
        #expect(db.isInTransaction)
        try db.execute("ROLLBACK")

        var innerFailure: (any Error)?
        var columnsInside: [Int?] = []
        do {
            try db.withForeignKeysDisabled {
                try db.transaction {
                    #expect(try !db.foreignKeysEnabled())
                    try db.rebuildTable(
                        named: awkward, definition: #""select" INTEGER PRIMARY KEY, "first name" TEXT"#,
                        copying: [("select", #""select""#), ("first name", #""first name""#)])
                    #expect(db.isInTransaction)
                    columnsInside.append(try db.query(#"SELECT count(*) FROM pragma_table_info('my "odd" table')"#))
                    // A failing rebuild inside the transaction undoes only itself.
                    do {
                        try db.rebuildTable(named: awkward, definition: #""select" INTEGER PRIMARY KEY"#, copying: [("select", "\"select\" + 9")])
                    } catch { innerFailure = error }
                    columnsInside.append(try db.query(#"SELECT count(*) FROM pragma_table_info('my "odd" table')"#))
                    throw CancellationError()
                }
            }
            Issue.record("the transaction should have thrown")
        } catch is CancellationError {}
        #expect(innerFailure is TableRebuildError)
        #expect(columnsInside == [2, 2])
        #expect(try DatabaseSnapshot(db) == before)
        #expect(try db.foreignKeysEnabled())
    }
}
