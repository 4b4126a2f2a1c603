import Foundation
import StrataSQift
import Testing
import StrataTestSupport
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema

/// Issue 39: generated columns, TEMP triggers, rowid aliases and expression indexes through the
/// table rebuild and the schema DSL.
@Suite struct RebuildEdgeCaseTests {
    /// v1: a table with a virtual and a stored generated column; v2 drops a column (a rebuild).
    let generatedSchema = Schema(identifier: "generated") { schema in
        schema.version(1) { v1 in
            v1.createTable("items") { t in
                t.primaryKey("id")
                t.column("price", type: .Integer)
                t.column("note", type: .Text)
                t.column("double", type: .Integer, constraints: [#"GENERATED ALWAYS AS ("price" * 2) VIRTUAL"#])
                t.column("label", type: .Text, constraints: [#"AS ('#' || "id") STORED"#])
            }
        }
        schema.version(2) { v2 in
            v2.alterTable("items") { t in t.dropColumn("note") }
        }
    }

    func rows(_ db: Connection, _ sql: String) throws -> [String] {
        try db.query(sql) { (row: Row) -> String in row.values.map { "\($0 ?? "NULL")" }.joined(separator: "|") }
    }

    /// The rows `reading` returns after table `t`, made by `create` and filled by `insert`, is rebuilt
    /// to `definition` copying `copying`, on a new in-memory database.
    func rowsAfterRebuilding(
        _ create: String, filledBy insert: String, to definition: String, copying: [(String, String)], reading: String
    ) throws -> [String] {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(create)
        try db.run(insert)
        try db.rebuildTable(named: "t", definition: definition, copying: copying)
        return try rows(db, reading)
    }

    // MARK: 3. generated columns are never copied

    @Test func theDSLRebuildsATableWithGeneratedColumns() throws {
        let db = try Connection(storageLocation: .inMemory)
        try generatedSchema.migrate(db, toVersion: 1)
        try db.run(#"INSERT INTO items (id, price, note) VALUES (1, 10, 'a'), (2, 21, 'b')"#)
        try generatedSchema.migrate(db, toVersion: 2)
        #expect(try rows(db, #"SELECT id, price, "double", label FROM items ORDER BY id"#) == ["1|10|20|#1", "2|21|42|#2"])
        let hidden: [Int] = try db.query("SELECT hidden FROM pragma_table_xinfo('items') ORDER BY cid")
        #expect(hidden == [0, 0, 2, 3])
    }

    @Test func rebuildTableSkipsGeneratedColumnsInTheCopyList() throws {
        let rebuilt = try rowsAfterRebuilding(
            #"CREATE TABLE t (a INTEGER, b INTEGER GENERATED ALWAYS AS (a + 1) STORED, c TEXT)"#,
            filledBy: "INSERT INTO t (a, c) VALUES (1, 'x'), (5, 'y')",
            to: #""a" INTEGER, "b" INTEGER AS ("a" * 10) VIRTUAL"#, copying: [("a", #""a""#), ("b", #""b""#)],
            reading: "SELECT a, b FROM t ORDER BY a")
        #expect(rebuilt == ["1|10", "5|50"])
    }

    // MARK: 4. migrating down over a generated column

    @Test func migratingDownOverAGeneratedColumnSucceeds() throws {
        let db = try Connection(storageLocation: .inMemory)
        try generatedSchema.migrate(db, toVersion: 2)
        try db.run("INSERT INTO items (id, price) VALUES (7, 3)")
        try generatedSchema.migrate(db, toVersion: 1)
        #expect(try db.query("PRAGMA user_version") as Int? == 1)
        #expect(try rows(db, #"SELECT id, price, note, "double", label FROM items"#) == ["7|3|NULL|6|#7"])
        try generatedSchema.migrate(db, toVersion: 0)
        #expect(db.schema.tableNames.isEmpty)
    }

    // MARK: 5. TEMP triggers

    func databaseWithTemporaryTriggers() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            #"""
            CREATE TABLE "the t" (id INTEGER PRIMARY KEY, name TEXT, gone TEXT);
            CREATE TEMP TABLE log (msg TEXT);
            CREATE TEMP TRIGGER "on ""insert""" AFTER INSERT ON main."the t" BEGIN INSERT INTO log VALUES ('i ' || NEW.name); END;
            CREATE TRIGGER temp.on_delete AFTER DELETE ON "the t" BEGIN INSERT INTO log VALUES ('d ' || OLD.name); END;
            CREATE TRIGGER main_trigger AFTER UPDATE ON "the t" BEGIN SELECT 1; END;
            INSERT INTO "the t" (name, gone) VALUES ('Ann', 'x');
            """#)
        return db
    }

    func temporaryTriggers(_ db: Connection) throws -> [String] {
        try db.query("SELECT name || ' ' || tbl_name FROM sqlite_temp_master WHERE type = 'trigger' ORDER BY name")
    }

    @Test func rebuildTableKeepsTemporaryTriggers() throws {
        let db = try databaseWithTemporaryTriggers()
        let before = try temporaryTriggers(db)
        try db.rebuildTable(
            named: "the t", definition: #""id" INTEGER PRIMARY KEY, "name" TEXT"#,
            copying: [("id", #""id""#), ("name", #""name""#)])
        #expect(try temporaryTriggers(db) == before)
        #expect(before.count == 2)
        // Still TEMP (not made persistent in main), and they fire.
        let mainTriggers: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        #expect(mainTriggers == ["main_trigger"])
        try db.run(#"INSERT INTO "the t" (name) VALUES ('Bob')"#)
        try db.run(#"DELETE FROM "the t" WHERE name = 'Ann'"#)
        let log: [String] = try db.query("SELECT msg FROM temp.log")
        #expect(log == ["i Ann", "i Bob", "d Ann"])
    }

    @Test func aTemporaryTriggerOnATemporaryTableOfTheSameNameIsLeftAlone() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE t (a INTEGER, b INTEGER);
            CREATE TEMP TABLE t (a INTEGER);
            CREATE TEMP TRIGGER on_temp AFTER INSERT ON t BEGIN SELECT 1; END;
            CREATE TEMP TRIGGER on_main AFTER INSERT ON main.t BEGIN SELECT 2; END;
            """)
        try db.rebuildTable(named: "t", definition: #""a" INTEGER"#, copying: [("a", #""a""#)])
        let triggers: [String] = try db.query("SELECT sql FROM sqlite_temp_master WHERE type = 'trigger' ORDER BY name")
        #expect(
            triggers == [
                "CREATE TRIGGER on_main AFTER INSERT ON main.t BEGIN SELECT 2; END",
                "CREATE TRIGGER on_temp AFTER INSERT ON t BEGIN SELECT 1; END"
            ])
    }

    @Test func theDSLKeepsTemporaryTriggers() throws {
        let schema = Schema { schema in
            schema.version(1) { v1 in
                v1.createTable("the t") { t in
                    t.primaryKey("id")
                    t.column("name", type: .Text)
                    t.column("gone", type: .Text)
                }
            }
            schema.version(2) { v2 in v2.alterTable("the t") { t in t.dropColumn("gone") } }
        }
        let db = try databaseWithTemporaryTriggers()
        try db.execute("PRAGMA user_version = 1")
        let before = try temporaryTriggers(db)
        try schema.migrate(db, toVersion: 2)
        #expect(try temporaryTriggers(db) == before)
        try schema.migrate(db, toVersion: 1)
        #expect(try temporaryTriggers(db) == before)
    }

    @Test func temporaryTriggerStatementIsMadeTemporaryAgain() {
        #expect(
            Connection.temporaryTriggerSQL("CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END")
                == "CREATE TEMP TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END")
        #expect(
            Connection.temporaryTriggerSQL("create trigger \"é\" BEFORE DELETE ON t BEGIN SELECT 1; END")
                == "CREATE TEMP TRIGGER \"é\" BEFORE DELETE ON t BEGIN SELECT 1; END")
    }

    // MARK: a failed rebuild leaves everything, TEMP triggers included, as it was

    @Test func anIndexOnAnExpressionOverADroppedColumnIsReportedAndRolledBack() throws {
        let db = try databaseWithTemporaryTriggers()
        try db.execute(#"CREATE INDEX "by gone" ON "the t" (lower(gone))"#)
        let before = try DatabaseSnapshot(db)
        let triggers = try temporaryTriggers(db)
        #expect(throws: TableRebuildError.indexDoesNotFit(index: "by gone", table: "the t")) {
            try db.rebuildTable(
                named: "the t", definition: #""id" INTEGER PRIMARY KEY, "name" TEXT"#,
                copying: [("id", #""id""#), ("name", #""name""#)])
        }
        #expect(try DatabaseSnapshot(db) == before)
        #expect(try temporaryTriggers(db) == triggers)
    }

    // MARK: 2. rowid aliases, as SQLite decides them

    @Test func aDescendingIntegerKeyKeepsItsRowids() throws {
        let rebuilt = try rowsAfterRebuilding(
            "CREATE TABLE t (id INTEGER PRIMARY KEY DESC, x TEXT)",
            filledBy: "INSERT INTO t (rowid, id, x) VALUES (5, 50, 'a'), (9, 90, 'b')",
            to: #""id" INTEGER PRIMARY KEY DESC, "x" TEXT, "y" TEXT"#, copying: [("id", #""id""#), ("x", #""x""#)],
            reading: "SELECT rowid, id, x FROM t ORDER BY rowid")
        #expect(rebuilt == ["5|50|a", "9|90|b"])
    }

    @Test func rowIDAliasRuleMatchesSQLite() throws {
        // Each shape against SQLite itself: an insert without the key stores the rowid in an alias,
        // NULL otherwise (a WITHOUT ROWID key refuses NULL).
        try PropertyCheck.run("rowid alias rule", cases: 40) { random in
            let db = try Connection(storageLocation: .inMemory)
            let type = random.oneIn(2) ? Gen.mixedCase("INTEGER", &random) : Gen.declaredType(&random)
            let descending = random.oneIn(2)
            let asTableConstraint = random.oneIn(3)
            let withoutRowID = random.oneIn(4)
            let composite = random.oneIn(5)
            let name = Gen.identifier(&random)
            let key = quoteIdentifier(name)
            let other = quoteIdentifier(name + "_other")
            var body: String
            if composite {
                body = "\(key) \(type), \(other) INTEGER, PRIMARY KEY (\(key)\(descending ? " DESC" : ""), \(other))"
            } else if asTableConstraint {
                body = "\(key) \(type), \(other) INTEGER, PRIMARY KEY (\(key)\(descending ? " DESC" : ""))"
            } else {
                body = "\(key) \(type) PRIMARY KEY\(descending ? " DESC" : ""), \(other) INTEGER"
            }
            try db.execute("CREATE TABLE t (\(body))\(withoutRowID ? " WITHOUT ROWID" : "")")
            let expected = isRowIDAlias(
                declaredType: type, isSolePrimaryKey: !composite,
                descendingColumnConstraint: descending && !asTableConstraint && !composite,
                withoutRowID: withoutRowID)
            let found = try db.schemaReader.rowIDAliasColumn(ofTable: "t")
            try require((found != nil) == expected, "reader says \(found as Any), rule \(expected) for \(body)")
            if !withoutRowID {
                try db.run("INSERT INTO t (\(other)) VALUES (1)")
                let stored: Int64? = try db.query("SELECT \(key) FROM t")
                try require((stored == 1) == expected, "SQLite stored \(stored as Any) for \(body); rule says alias: \(expected)")
            }
        }
    }

    // MARK: property: generated tables through the DSL and the rebuild

    @Test func generatedTablesSurviveDSLRebuildsAndMigratingDown() throws {
        try PropertyCheck.run("DSL rebuild of generated tables", cases: 20) { random in
            let count = random.int(2...5)
            let names = Gen.distinctIdentifiers(&random, count: count + 2, prefix: "c")
            let table = Gen.identifier(&random) + "_t"
            let types = (0..<count).map { _ in random.pick(SchemaColumnType.allCases) }
            let generatedName = names[count]
            let keyName = names[count + 1]
            let source = names[0]
            let stored = random.oneIn(2)
            let dropped = names[random.int(1...(count - 1))]
            let schema = Schema { schema in
                schema.version(1) { v1 in
                    v1.createTable(table) { t in
                        t.primaryKey(keyName)
                        for (name, type) in zip(names.prefix(count), types) { t.column(name, type: type) }
                        t.column(
                            generatedName, type: .Text,
                            constraints: ["GENERATED ALWAYS AS (typeof(\(quoteIdentifier(source)))) \(stored ? "STORED" : "VIRTUAL")"])
                    }
                }
                schema.version(2) { v2 in v2.alterTable(table) { t in t.dropColumn(dropped) } }
            }
            let db = try Connection(storageLocation: .inMemory)
            try schema.migrate(db, toVersion: 1)
            let quotedTable = quoteIdentifier(table)
            let columnList = names.prefix(count).map(quoteIdentifier).joined(separator: ", ")
            for _ in 0..<random.int(0...6) {
                try db.run(
                    "INSERT INTO \(quotedTable) (\(columnList)) VALUES (\(Array(repeating: "?", count: count).joined(separator: ", ")))",
                    (0..<count).map { _ in Gen.value(&random).bindable })
            }
            let kept = ([keyName] + names.prefix(count).filter { $0 != dropped } + [generatedName])
                .map { "quote(\(quoteIdentifier($0)))" }.joined(separator: ", ")
            let rowsBefore = try rows(db, "SELECT \(kept) FROM \(quotedTable) ORDER BY rowid")
            try schema.migrate(db, toVersion: 2)
            try require(try rows(db, "SELECT \(kept) FROM \(quotedTable) ORDER BY rowid") == rowsBefore, "rows changed going up")
            try schema.migrate(db, toVersion: 1)
            try require(try rows(db, "SELECT \(kept) FROM \(quotedTable) ORDER BY rowid") == rowsBefore, "rows changed going down")
            let columns = try db.schemaReader.columns(ofTable: table).map(\.name)
            try require(columns == [keyName] + names.prefix(count) + [generatedName], "columns are \(columns)")
            try require(try db.query("PRAGMA integrity_check") as String? == "ok", "integrity")
        }
    }
}
