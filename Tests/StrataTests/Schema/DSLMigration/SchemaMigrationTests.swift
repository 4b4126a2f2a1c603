import Foundation
import StrataSQift
import Testing
import Strata
import StrataTestSupport

/// A schema that uses every DSL step, with awkward names throughout.
let richSchema = Schema(identifier: "rich") { schema in
    schema.version(1) { v1 in
        v1.createTable(#"the "owners""#) { t in
            t.primaryKey("id", autoincrement: true)
            t.column("select", type: .Text, constraints: ["NOT NULL"])
            t.column("age", type: .Integer)
        }
        v1.createTable("pets") { t in
            t.primaryKey("id")
            t.column("owner id", type: .Integer, constraints: [#"REFERENCES "the ""owners"""("id") ON DELETE CASCADE"#])
            t.column("name", type: .Text)
        }
        v1.createIndex("pets by owner", on: "pets", columns: ["owner id"])
    }
    schema.version(2) { v2 in
        v2.alterTable(#"the "owners""#) { t in
            t.addColumn("nickname", type: .Text) // ALTER TABLE ADD COLUMN
        }
        v2.alterTable("pets") { t in
            t.alterColumn("name", renameTo: "pet name") // ALTER TABLE RENAME COLUMN
        }
    }
    schema.version(3) { v3 in
        v3.alterTable(#"the "owners""#) { t in
            t.addColumn("label", type: .Text, constraints: ["NOT NULL"], initialExpr: #""select" || '!'"#)
            t.alterColumn("age", changeTypeTo: .Real, setValue: #""age" * 1.0"#)
            t.dropColumn("nickname")
            t.addConstraint(#"CHECK ("age" >= 0)"#, named: "adult")
        }
        v3.createTable("order") { t in
            t.column("group", type: .Blob)
        }
        v3.createIndex("owner labels", on: #"the "owners""#, columns: ["label"], partialExpr: #""age" > 1"#, unique: true)
        v3.renameIndex("pets by owner", to: "pets of owner")
        v3.execute(
            { db in try db.execute(#"CREATE VIEW "pet names" AS SELECT "pet name" FROM pets"#) },
            down: { db in try db.execute(#"DROP VIEW "pet names""#) })
    }
    schema.version(4) { v4 in
        v4.dropTable("order")
        v4.renameTable("pets", to: "animals")
        v4.dropIndex("owner labels")
        v4.alterTable(#"the "owners""#) { t in t.dropConstraint(named: "adult") }
    }
}

func schemaText(_ db: Connection) throws -> [String] {
    try db.query("SELECT type || '|' || name || '|' || tbl_name || '|' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
}

@Suite struct SchemaMigrationTests {
    @Test func migratesUpToTheDeclaredShape() throws {
        let db = try Connection(storageLocation: .inMemory)
        #expect(try richSchema.migrate(db))
        #expect(try db.query("PRAGMA user_version") as Int? == 4)
        #expect(db.schema.tableNames.sorted() == ["animals", #"the "owners""#])
        #expect(try db.tableInfoForTableNamed(#"the "owners""#)?.columnNames == ["id", "select", "age", "label"])
        #expect(try db.tableInfoForTableNamed("animals")?.columnNames == ["id", "owner id", "pet name"])
        #expect(db.schema.namesOfIndexesOnTable("animals") == ["pets of owner"])
        #expect(richSchema.versions.last?.tableNamed("animals")?.columnNames == ["id", "owner id", "pet name"])
        #expect(richSchema.tableNamed("ANIMALS")?.name == "animals")
        #expect(richSchema.tables.map(\.name) == [#"the "owners""#, "animals"])
        #expect(richSchema.latestVersion == 4)
        #expect(richSchema.versionNumbered(2)?.tableNames == [#"the "owners""#, "pets"])
        #expect(richSchema.versionNumbered(3)?.indexes.map(\.name) == ["pets of owner", "owner labels"])
        #expect(
            richSchema.versionNumbered(3)?.tableNamed(#"the "owners""#)?.definitionSQL
                == #""id" INTEGER PRIMARY KEY AUTOINCREMENT, "select" TEXT NOT NULL, "age" REAL, "label" TEXT NOT NULL, CONSTRAINT "adult" CHECK ("age" >= 0)"#)
        #expect(try richSchema.migrate(db) == false)
        // The declared types and constraints are in force.
        #expect(try db.tableInfoForTableNamed(#"the "owners""#)?["age"]?.type == "REAL")
        #expect(try db.tableInfoForTableNamed(#"the "owners""#)?["label"]?.notNull == true)
    }

    @Test func upRebuildsKeepData() throws {
        let db = try Connection(storageLocation: .inMemory)
        try richSchema.migrate(db, toVersion: 2)
        try db.run(#"INSERT INTO "the ""owners""" ("select", "age", "nickname") VALUES (?, ?, ?)"#, "'); DROP TABLE pets; --", 30, "A")
        try db.run(#"INSERT INTO pets ("owner id", "pet name") VALUES (?, ?)"#, 1, "Rex")
        try richSchema.migrate(db)
        let owner: String? = try db.query(#"SELECT "select" || '/' || "age" || '/' || "label" FROM "the ""owners""""#)
        #expect(owner == "'); DROP TABLE pets; --/30.0/'); DROP TABLE pets; --!")
        let pet: String? = try db.query(#"SELECT "pet name" FROM animals WHERE "owner id" = 1"#)
        #expect(pet == "Rex")
    }

    @Test func downToZeroAndBackUpGivesTheSameSchema() throws {
        let db = try Connection(storageLocation: .inMemory)
        try richSchema.migrate(db)
        let latest = try schemaText(db)
        #expect(try richSchema.migrate(db, toVersion: 0))
        #expect(try db.query("PRAGMA user_version") as Int? == 0)
        #expect(db.schema.tableNames.isEmpty)
        try richSchema.migrate(db)
        #expect(try schemaText(db) == latest)
        // Every intermediate version too.
        for version in [3, 2, 1, 0] {
            var fresh = try Connection(storageLocation: .inMemory)
            try richSchema.migrate(fresh, toVersion: version)
            let declared = try schemaText(fresh)
            try richSchema.migrate(db, toVersion: version)
            #expect(db.schema.tableNames.sorted() == fresh.schema.tableNames.sorted(), "version \(version)")
            for table in fresh.schema.tableNames {
                #expect(try db.tableInfoForTableNamed(table)?.columns == fresh.tableInfoForTableNamed(table)?.columns)
            }
            #expect(db.schema.indexNames.sorted() == fresh.schema.indexNames.sorted())
            _ = declared
            fresh = try Connection(storageLocation: .inMemory)
        }
        try richSchema.migrate(db)
        #expect(try schemaText(db) == latest)
    }

    @Test func downKeepsRowsOfTablesPresentAtBothEnds() throws {
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        try richSchema.migrate(db)
        try db.run(#"INSERT INTO "the ""owners""" ("select", "age", "label") VALUES (?, ?, ?)"#, "Ann", 30, "a")
        try db.run(#"INSERT INTO "the ""owners""" ("select", "age", "label") VALUES (?, ?, ?)"#, "Bob", 40, "b")
        try db.run(#"INSERT INTO animals ("owner id", "pet name") VALUES (?, ?)"#, 2, "Rex")
        try richSchema.migrate(db, toVersion: 1)
        let owners: [String] = try db.query(#"SELECT id || "select" || "age" FROM "the ""owners""" ORDER BY id"#)
        #expect(owners == ["1Ann30", "2Bob40"])
        let pets: [String] = try db.query(#"SELECT "owner id" || "name" FROM pets"#)
        #expect(pets == ["2Rex"])
        #expect(try db.foreignKeysEnabled())
        try richSchema.migrate(db)
        let back: [String] = try db.query(#"SELECT "select" || coalesce("label", 'NULL') FROM "the ""owners""" ORDER BY id"#)
        #expect(back == ["Ann" + "Ann!", "Bob" + "Bob!"])
        // AUTOINCREMENT went on counting through the rebuilds.
        try db.run(#"INSERT INTO "the ""owners""" ("select", "label") VALUES (?, ?)"#, "Cy", "c")
        #expect(db.lastInsertRowID == 3)
    }

    @Test func badSQLLeavesVersionAndContentAsBefore() throws {
        let schema = Schema { schema in
            schema.version(1) { v1 in
                v1.createTable("t") { t in
                    t.column("a", type: .Text); t.column("b", type: .Integer)
                }
            }
            schema.version(2) { v2 in
                v2.alterTable("t") { t in t.dropColumn("b") }
                v2.createTable("u") { t in t.column("x", type: .Text) }
                v2.execute { db in try db.execute("INSERT INTO nowhere VALUES (1)") }
            }
        }
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        try schema.migrate(db, toVersion: 1)
        try db.run("INSERT INTO t VALUES (?, ?)", "a", 1)
        let before = try DatabaseSnapshot(db)
        #expect(throws: SQLiteError.self) { try schema.migrate(db) }
        #expect(try DatabaseSnapshot(db) == before)
        #expect(!db.isInTransaction)
    }

    @Test func failingDownStepLeavesVersionAndContentAsBefore() throws {
        let schema = Schema { schema in
            schema.version(1) { v1 in v1.createTable("t") { t in t.column("a", type: .Text) } }
            schema.version(2) { v2 in
                v2.alterTable("t") { t in t.addColumn("b", type: .Integer) }
                v2.execute({ _ in }, down: { db in try db.execute("DROP TABLE nowhere") })
            }
        }
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db)
        try db.run("INSERT INTO t VALUES (?, ?)", "a", 1)
        let before = try DatabaseSnapshot(db)
        #expect(throws: SQLiteError.self) { try schema.migrate(db, toVersion: 0) }
        #expect(try DatabaseSnapshot(db) == before)
    }

    @Test func foreignKeyViolationAfterARebuildRollsBack() throws {
        let schema = Schema { schema in
            schema.version(1) { v1 in
                v1.createTable("owners") { t in
                    t.primaryKey("id"); t.column("name", type: .Text)
                }
                v1.createTable("pets") { t in
                    t.primaryKey("id")
                    t.column("owner", type: .Integer, constraints: [#"REFERENCES "owners"("id")"#])
                }
            }
            schema.version(2) { v2 in
                v2.alterTable("owners") { t in t.alterColumn("id", setValue: #""id" + 100"#) }
            }
        }
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        try schema.migrate(db, toVersion: 1)
        try db.run("INSERT INTO owners VALUES (?, ?)", 1, "Ann")
        try db.run("INSERT INTO pets VALUES (?, ?)", 1, 1)
        let before = try DatabaseSnapshot(db)
        do {
            try schema.migrate(db)
            Issue.record("expected foreignKeysViolated")
        } catch SchemaMigrationError.foreignKeysViolated(let violations) {
            #expect(violations == [ForeignKeyViolation(table: "pets", rowID: 1, parentTable: "owners", foreignKeyIndex: 0)])
        }
        #expect(try DatabaseSnapshot(db) == before)
        #expect(try db.foreignKeysEnabled())
    }

    @Test func refusesANewerDatabase() throws {
        let db = try makeConnection(executing: "PRAGMA user_version = 9")
        #expect(throws: SchemaMigrationError.unknownDatabaseVersion(dbVersion: 9)) { try richSchema.migrate(db) }
        #expect(db.schema.schemaEntries.isEmpty)
    }

    @Test func unreachableVersionsAndResettingOldOnes() throws {
        let schema = Schema { schema in
            schema.version(3) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
            schema.version(5) { v in v.createTable("u") { t in t.column("a", type: .Text) } }
        }
        let db = try Connection(storageLocation: .inMemory)
        #expect(throws: SchemaMigrationError.unreachableDatabaseVersion(fromVersion: 0, toVersion: 4)) {
            try schema.migrate(db, toVersion: 4)
        }
        try db.execute("CREATE TABLE legacy (x); PRAGMA user_version = 2")
        #expect(throws: SchemaMigrationError.unreachableDatabaseVersion(fromVersion: 2, toVersion: 5)) { try schema.migrate(db) }
        #expect(db.schema.tableNames == ["legacy"])
        #expect(try schema.migrate(db, options: .ResetOldDatabaseVersions))
        #expect(db.schema.tableNames == ["t", "u"])
        #expect(try db.query("PRAGMA user_version") as Int? == 5)
        #expect(try schema.migrate(db, toVersion: 3))
        #expect(db.schema.tableNames == ["t"])
    }

    @Test func executeWithoutDownIsDataOnlyUnlessItChangedTheSchema() throws {
        let schema = Schema { schema in
            schema.version(1) { v1 in v1.createTable("t") { t in t.column("a", type: .Text) } }
            schema.version(2) { v2 in v2.execute { db in try db.run("DELETE FROM t WHERE a IS NULL") } }
            schema.version(3) { v3 in v3.execute { db in try db.execute("ALTER TABLE t ADD COLUMN sneaky TEXT") } }
        }
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db, toVersion: 1)
        try db.run("INSERT INTO t VALUES (?)", "kept")
        try db.run("INSERT INTO t VALUES (?)", nil)
        try schema.migrate(db, toVersion: 2)
        #expect(try schema.migrate(db, toVersion: 1)) // data-only block: skipped going down
        let rows: [String] = try db.query("SELECT a FROM t")
        #expect(rows == ["kept"])
        try schema.migrate(db)
        let before = try DatabaseSnapshot(db)
        #expect(throws: SchemaMigrationError.unreachableDatabaseVersion(fromVersion: 3, toVersion: 2)) {
            try schema.migrate(db, toVersion: 2)
        }
        #expect(try DatabaseSnapshot(db) == before)
    }

    @Test(arguments: [
        ("alter", Schema { s in s.version(1) { v in v.alterTable("ghost") { t in t.addColumn("a", type: .Text) } } }),
        (
            "dup",
            Schema { s in
                s.version(1) { v in
                    v.createTable("t") { t in t.column("a", type: .Text) }; v.createTable("T") { t in t.column("a", type: .Text) }
                }
            }
        ),
        (
            "order",
            Schema { s in
                s.version(2) { _ in }; s.version(1) { _ in }
            }
        ),
        (
            "column",
            Schema { s in
                s.version(1) { v in
                    v.createTable("t") { t in t.column("a", type: .Text) }
                    v.createIndex("i", on: "t", columns: ["nope"])
                }
            }
        )
    ])
    func invalidDeclarationsThrowBeforeChangingAnything(name: String, schema: Schema) throws {
        let db = try Connection(storageLocation: .inMemory)
        do {
            try schema.migrate(db)
            Issue.record("\(name): expected invalidSchema")
        } catch SchemaMigrationError.invalidSchema(let reason) {
            #expect(!reason.isEmpty)
        }
        #expect(db.schema.schemaEntries.isEmpty)
        #expect(try db.query("PRAGMA user_version") as Int? == 0)
    }

    @Test func droppingAnIndexedColumnDropsItsIndexesAndKeepsTheOthers() throws {
        let schema = Schema { s in
            s.version(1) { v in
                v.createTable("people") { t in
                    t.primaryKey("id")
                    t.column("name", type: .Text)
                    t.column("age", type: .Integer)
                }
                v.createIndex("people_age", on: "people", columns: ["age"])
                v.createIndex("people_name_age", on: "people", columns: ["name", "age"])
                v.createIndex("people_name", on: "people", columns: ["name"])
            }
            s.version(2) { v in v.alterTable("people") { t in t.dropColumn("age") } }
        }
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db, toVersion: 1)
        try db.execute("INSERT INTO people (name, age) VALUES ('Amelia', 31), ('Brian', 42)")

        try schema.migrate(db)
        #expect(db.schema.namesOfIndexesOnTable("people") == ["people_name"])
        #expect(try db.tableInfoForTableNamed("people")?.columnNames == ["id", "name"])
        #expect(try db.query("SELECT group_concat(name) FROM (SELECT name FROM people ORDER BY id)") as String? == "Amelia,Brian")

        // Down again: the column comes back (its values are gone) with both of its indexes.
        try schema.migrate(db, toVersion: 1)
        #expect(db.schema.namesOfIndexesOnTable("people").sorted() == ["people_age", "people_name", "people_name_age"])
        #expect(try db.tableInfoForTableNamed("people")?.columnNames == ["id", "name", "age"])
        #expect(try db.query("SELECT count(*) FROM people WHERE age IS NULL") as Int? == 2)
    }

    @Test func migratesInsideAnOpenTransaction() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.transaction {
            try richSchema.migrate(db)
            #expect(db.isInTransaction)
        }
        #expect(try db.query("PRAGMA user_version") as Int? == 4)
    }

    /// Inside the caller's transaction foreign keys cannot be turned off, so dropping a parent
    /// table would fire ON DELETE CASCADE and empty its child: the migration is refused instead,
    /// and everything (the caller's own work too) is as it was.
    @Test func dropThatWouldCascadeInsideACallersTransactionIsRefused() throws {
        let schema = Schema { schema in
            schema.version(1) { v1 in
                v1.createTable("parent") { t in t.primaryKey("id") }
                v1.createTable("child") { t in
                    t.primaryKey("id")
                    t.column("parent", type: .Integer, constraints: [#"REFERENCES "parent"("id") ON DELETE CASCADE"#])
                }
            }
            schema.version(2) { v2 in
                v2.dropTable("parent")
                v2.createTable("parent") { t in
                    t.primaryKey("id"); t.column("name", type: .Text)
                }
            }
        }
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        try schema.migrate(db, toVersion: 1)
        try db.execute("INSERT INTO parent VALUES (1), (2); INSERT INTO child VALUES (10, 1), (20, 2)")
        try db.transaction {
            try db.run("INSERT INTO child VALUES (?, ?)", 30, 1)
            let before = try DatabaseSnapshot(db)
            #expect(throws: SchemaMigrationError.foreignKeysEnabledInTransaction(table: "parent")) { try schema.migrate(db) }
            #expect(try DatabaseSnapshot(db) == before)
            #expect(db.isInTransaction)
        }
        #expect(try db.query("SELECT group_concat(id) FROM (SELECT id FROM child ORDER BY id)") as String? == "10,20,30")
        #expect(try db.query("PRAGMA user_version") as Int? == 1)
        #expect(SchemaMigrationError.foreignKeysEnabledInTransaction(table: "parent").description.contains("withForeignKeysDisabled"))

        // Down to 0 drops the child first, so no drop cascades: allowed inside the transaction.
        try db.transaction { try schema.migrate(db, toVersion: 0) }
        #expect(db.schema.tableNames.isEmpty)
    }

    @Test func addColumnWithANonConstantDefaultRebuilds() throws {
        let schema = Schema { s in
            s.version(1) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
            s.version(2) { v in
                v.alterTable("t") { t in t.addColumn("at", type: .Text, constraints: ["NOT NULL", "DEFAULT CURRENT_TIMESTAMP"]) }
            }
        }
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db, toVersion: 1)
        try db.run("INSERT INTO t VALUES (?)", "x")
        try schema.migrate(db)
        let stamped: Int? = try db.query("SELECT count(*) FROM t WHERE a = 'x' AND length(at) = 19")
        #expect(stamped == 1)
        try schema.migrate(db, toVersion: 1)
        #expect(try db.tableInfoForTableNamed("t")?.columnNames == ["a"])
        #expect(try db.query("SELECT a FROM t") as String? == "x")
    }

    @Test func tourExampleAddsANotNullColumnFromAnExpression() throws {
        let schema = Schema { s in
            s.version(1) { v in
                v.createTable("notes") { t in
                    t.primaryKey("id"); t.column("body", type: .Text)
                }
            }
            s.version(2) { v in v.alterTable("notes") { t in t.addColumn("stars", type: .Integer, constraints: ["NOT NULL"], initialExpr: "0") } }
        }
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db, toVersion: 1)
        try db.run("INSERT INTO notes (body) VALUES (?)", "hello")
        try schema.migrate(db)
        #expect(try db.tableInfoForTableNamed("notes")?.columnNames == ["id", "body", "stars"])
        #expect(try db.query("SELECT stars FROM notes") as Int? == 0)
        try schema.migrate(db, toVersion: 1)
        #expect(try db.tableInfoForTableNamed("notes")?.columnNames == ["id", "body"])
        #expect(try db.query("SELECT body FROM notes") as String? == "hello")
    }

    @Test func resetDropsEverything() throws {
        let db = try Connection(storageLocation: .inMemory)
        try richSchema.migrate(db)
        try db.execute("CREATE TABLE other (x); CREATE VIEW ov AS SELECT x FROM other")
        try richSchema.reset(db)
        #expect(db.schema.tableNames.isEmpty)
        #expect(db.schema.schemaEntries.filter { !$0.isTable }.isEmpty)
        #expect(try db.query("PRAGMA user_version") as Int? == 0)
        try richSchema.migrate(db)
        #expect(try db.query("PRAGMA user_version") as Int? == 4)
    }

    /// Down runs each step's inverse: a dropped table comes back with its indexes, a created
    /// index and a rename are undone, and every intermediate version matches a fresh migration.
    @Test func eachStepsInverseRestoresTheVersionBefore() throws {
        let schema = Schema(identifier: "inverse") { schema in
            schema.version(1) { v1 in
                v1.createTable("a b") { t in
                    t.primaryKey("id")
                    t.column("x", type: .Text)
                }
                v1.createIndex("a b by x", on: "a b", columns: ["x"], unique: true)
                v1.createIndex("a b by id", on: "a b", columns: ["id", "x"], partialExpr: "x IS NOT NULL")
            }
            schema.version(2) { v2 in
                v2.dropTable("a b")
                v2.createTable("c") { t in t.column("y", type: .Integer) }
                v2.createIndex("c by y", on: "c", columns: ["y"])
            }
            schema.version(3) { v3 in
                v3.renameTable("c", to: "d")
                v3.renameIndex("c by y", to: "d by y")
                v3.dropIndex("d by y")
            }
        }
        let db = try Connection(storageLocation: .inMemory)
        try schema.migrate(db)
        for version in [2, 1, 0] {
            let fresh = try Connection(storageLocation: .inMemory)
            try schema.migrate(fresh, toVersion: version)
            try schema.migrate(db, toVersion: version)
            #expect(try schemaText(db) == schemaText(fresh), "version \(version)")
        }
        #expect(try schema.migrate(db))
    }
}
