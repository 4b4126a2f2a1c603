// The one table definition and the one type mapping, rendered and then run through SQLite, which
// reads every option back (sqlite_master, pragma table_xinfo, foreign_key_list); and the SQL the
// Strata-side callers (Swiftly, the schema DSL, Squeal's helpers, the migrator) produced before
// they became callers of it.
import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
import StrataSwiftly

private typealias Column = TableDefinition.Column

/// What `pragma table_xinfo` says of one column.
private struct ColumnInfoRow: Equatable {
    var name: String
    var type: String
    var notNull: Bool
    var defaultValue: String?
    var primaryKey: Int
    var hidden: Int
}

private func tableXInfo(_ db: Connection, _ table: String, schema: String = "main") throws -> [ColumnInfoRow] {
    try db.prepare("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, ?) ORDER BY cid", table, schema)
        .query { row in
            ColumnInfoRow(
                name: row[0] ?? "", type: row[1] ?? "", notNull: (row[2] as Int64? ?? 0) != 0,
                defaultValue: row[3], primaryKey: Int(row[4] as Int64? ?? 0), hidden: Int(row[5] as Int64? ?? 0))
        }
}

private func storedSQL(_ db: Connection, _ name: String, master: String = "sqlite_master") throws -> String? {
    try db.prepare("SELECT sql FROM \(master) WHERE name = ?", name).query()
}

/// A custom binding whose storage class is none of SQLite's four.
private struct Unusual: Binding, Equatable {
    typealias BindingType = Int32
    var bindingValue: BindingValue { .integer(0) }
    static func fromBindingValue(_ value: Any) -> Unusual? { Unusual() }
}

private struct Note: CodableBinding, Equatable {
    var text: String
}

@Suite struct TableDefinitionTests {
    // MARK: - Options

    @Test func plainTableRendersAndIsCreated() throws {
        let db = try Connection()
        let table = TableDefinition("t", columns: [Column("a", type: "INTEGER"), Column("b")])
        #expect(table.sql == #"CREATE TABLE "t" ("a" INTEGER, "b")"#)
        #expect(table.bodySQL == #""a" INTEGER, "b""#)
        try db.execute(table.sql)
        #expect(try storedSQL(db, "t") == table.sql)
        #expect(try tableXInfo(db, "t").map(\.type) == ["INTEGER", ""])
    }

    @Test func withoutRowIDAndStrictRenderAndSQLiteAcceptsThem() throws {
        let db = try Connection()
        let columns = [Column("k", type: "TEXT", [.primaryKey()]), Column("v", type: "INTEGER")]
        let withoutRowID = TableDefinition("w", columns: columns, options: .withoutRowID)
        #expect(withoutRowID.sql == #"CREATE TABLE "w" ("k" TEXT PRIMARY KEY, "v" INTEGER) WITHOUT ROWID"#)
        try db.execute(withoutRowID.sql)
        let withoutRowIDFlag: Int64? = try db.query("SELECT wr FROM pragma_table_list WHERE name = 'w'")
        #expect(withoutRowIDFlag == 1)

        try #require(TableDefinition.supportsStrict)
        let both = TableDefinition("s", columns: columns, options: [.withoutRowID, .strict])
        #expect(both.sql == #"CREATE TABLE "s" ("k" TEXT PRIMARY KEY, "v" INTEGER) WITHOUT ROWID, STRICT"#)
        try db.execute(both.sql)
        let flags: [Int64] = try db.query("SELECT wr || strict FROM pragma_table_list WHERE name = 's'").map { Int64($0 as String) ?? -1 }
        #expect(flags == [11])
        // STRICT is enforced: text that is not an integer is refused.
        #expect(throws: SQLiteError.self) { try db.run(#"INSERT INTO "s" VALUES ('x', 'not a number')"#) }

        let strict = TableDefinition("only_strict", columns: columns, options: .strict)
        #expect(strict.sql.hasSuffix(") STRICT"))
        try db.execute(strict.sql)
    }

    @Test func ifNotExistsTemporaryAndSchema() throws {
        let db = try Connection()
        let table = TableDefinition("t", columns: [Column("a")], ifNotExists: true)
        #expect(table.sql == #"CREATE TABLE IF NOT EXISTS "t" ("a")"#)
        try db.execute(table.sql)
        try db.execute(table.sql) // a second time is a no-op
        // SQLite stores the statement without IF NOT EXISTS.
        #expect(try storedSQL(db, "t") == #"CREATE TABLE "t" ("a")"#)

        let temporary = TableDefinition("scratch", columns: [Column("x", type: "TEXT")], isTemporary: true)
        #expect(temporary.sql == #"CREATE TEMP TABLE "scratch" ("x" TEXT)"#)
        try db.execute(temporary.sql)
        #expect(try storedSQL(db, "scratch", master: "sqlite_temp_master") == #"CREATE TABLE "scratch" ("x" TEXT)"#)
        #expect(try storedSQL(db, "scratch") == nil)

        let qualified = TableDefinition("q", schema: "temp", columns: [Column("x")])
        #expect(qualified.sql == #"CREATE TABLE "temp"."q" ("x")"#)
        try db.execute(qualified.sql)
        #expect(try tableXInfo(db, "q", schema: "temp").map(\.name) == ["x"])
    }

    // MARK: - Column constraints

    @Test func everyColumnConstraintRendersAndSQLiteReadsItBack() throws {
        let db = try makeConnection(executing: "PRAGMA foreign_keys = ON")
        try db.execute(TableDefinition("parent", columns: [Column("id", type: "INTEGER", [.primaryKey()]), Column("code", type: "TEXT", [.unique()])]).sql)
        let child = TableDefinition(
            "child",
            columns: [
                Column("id", type: "INTEGER", [.primaryKey(order: .asc, onConflict: .replace, autoincrement: true)]),
                Column("name", type: "TEXT", [.notNull(onConflict: .fail), .collate("NOCASE"), .unique(onConflict: .ignore)]),
                Column("maybe", type: "TEXT", [.null]),
                Column("score", type: "INTEGER", [.notNull(), .defaultValue(.integer(7)), .check("score >= 0")]),
                Column("label", type: "TEXT", [.defaultValue(.text("it's"))]),
                Column("stamp", type: "REAL", [.defaultExpression("julianday('now')")]),
                Column(
                    "parent_id", type: "INTEGER",
                    [.references(.init(table: "parent", columns: ["id"], onDelete: .cascade, onUpdate: .setNull, isDeferred: true))]),
                Column("parent_code", type: "TEXT", [.named("to parent", .references(.init(table: "parent", columns: ["code"])))]),
                Column("double", type: "INTEGER", [.generated("score * 2", stored: true)]),
                Column("half", [.generated("score / 2", stored: false)]),
                Column("raw", type: "TEXT", [.raw("NOT NULL"), .raw("DEFAULT ''")])
            ])
        #expect(
            child.sql == """
                CREATE TABLE "child" ("id" INTEGER PRIMARY KEY ASC ON CONFLICT REPLACE AUTOINCREMENT, \
                "name" TEXT NOT NULL ON CONFLICT FAIL COLLATE "NOCASE" UNIQUE ON CONFLICT IGNORE, "maybe" TEXT NULL, \
                "score" INTEGER NOT NULL DEFAULT 7 CHECK (score >= 0), "label" TEXT DEFAULT 'it''s', \
                "stamp" REAL DEFAULT (julianday('now')), \
                "parent_id" INTEGER REFERENCES "parent" ("id") ON DELETE CASCADE ON UPDATE SET NULL DEFERRABLE INITIALLY DEFERRED, \
                "parent_code" TEXT CONSTRAINT "to parent" REFERENCES "parent" ("code"), \
                "double" INTEGER GENERATED ALWAYS AS (score * 2) STORED, "half" GENERATED ALWAYS AS (score / 2) VIRTUAL, \
                "raw" TEXT NOT NULL DEFAULT '')
                """)
        try db.execute(child.sql)
        #expect(try storedSQL(db, "child") == child.sql)
        let info = try tableXInfo(db, "child")
        #expect(info.map(\.name) == ["id", "name", "maybe", "score", "label", "stamp", "parent_id", "parent_code", "double", "half", "raw"])
        #expect(info.map(\.notNull) == [false, true, false, true, false, false, false, false, false, false, true])
        #expect(info.map(\.defaultValue) == [nil, nil, nil, "7", "'it''s'", "julianday('now')", nil, nil, nil, nil, "''"])
        #expect(info.map(\.primaryKey) == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(info.map(\.hidden) == [0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 0]) // 3 stored, 2 virtual generated

        let foreignKeys: [String] = try db.query(
            "SELECT \"from\" || '>' || \"to\" || ' ' || on_update || ' ' || on_delete FROM pragma_foreign_key_list('child') ORDER BY \"from\"")
        #expect(foreignKeys == ["parent_code>code NO ACTION NO ACTION", "parent_id>id SET NULL CASCADE"])

        // The constraints act: CHECK refuses, COLLATE compares without case, the defaults fill in.
        #expect(throws: SQLiteError.self) { try db.run(#"INSERT INTO "child" ("name", "score") VALUES ('x', -1)"#) }
        try db.run(#"INSERT INTO "child" ("name") VALUES ('Ann')"#)
        let found: [String] = try db.query(#"SELECT "label" || ' ' || "score" || ' ' || "double" || ' ' || "half" FROM "child" WHERE "name" = 'ANN'"#)
        #expect(found == ["it's 7 14 3"])
        let autoincrement: Int64? = try db.query("SELECT count(*) FROM sqlite_sequence WHERE name = 'child'")
        #expect(autoincrement == 1)
    }

    @Test func tableConstraintsRenderAndSQLiteReadsThemBack() throws {
        let db = try Connection()
        try db.execute(
            TableDefinition(
                "p", columns: [Column("a", type: "INTEGER"), Column("b", type: "INTEGER")],
                constraints: [.primaryKey(["a", "b"])]
            ).sql)
        let table = TableDefinition(
            "c", columns: [Column("x", type: "INTEGER"), Column("y", type: "INTEGER"), Column("z", type: "TEXT")],
            constraints: [
                .primaryKey(["x", "y"], onConflict: .abort),
                .unique(["z"], onConflict: .rollback),
                .check("x <> y"),
                .foreignKey(["x", "y"], .init(table: "p", columns: ["a", "b"], onDelete: .restrict)),
                .named("z is short", .check("length(z) < 10")),
                .raw("UNIQUE (y, z)")
            ])
        #expect(
            table.sql == """
                CREATE TABLE "c" ("x" INTEGER, "y" INTEGER, "z" TEXT, PRIMARY KEY ("x", "y") ON CONFLICT ABORT, \
                UNIQUE ("z") ON CONFLICT ROLLBACK, CHECK (x <> y), FOREIGN KEY ("x", "y") REFERENCES "p" ("a", "b") ON DELETE RESTRICT, \
                CONSTRAINT "z is short" CHECK (length(z) < 10), UNIQUE (y, z))
                """)
        try db.execute(table.sql)
        #expect(try tableXInfo(db, "c").map(\.primaryKey) == [1, 2, 0])
        let indexes: Int64? = try db.query("SELECT count(*) FROM pragma_index_list('c') WHERE origin = 'u'")
        #expect(indexes == 2)
        let references: [String] = try db.query("SELECT \"table\" || ' ' || on_delete FROM pragma_foreign_key_list('c') WHERE seq = 0")
        #expect(references == ["p RESTRICT"])
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO c VALUES (1, 2, '0123456789')") }
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO c VALUES (1, 1, 'a')") }
    }

    @Test func hostileIdentifiersAreQuoted() throws {
        let db = try Connection()
        let name = #"x"); DROP TABLE "victim"; --"#
        try db.execute("CREATE TABLE victim (a)")
        let table = TableDefinition(
            name,
            columns: [
                Column(#"col "quoted""#, type: "TEXT", [.collate(#"NO"CASE"#)]),
                Column("order", type: "INTEGER", [.references(.init(table: #"a"b"#, columns: [#"c"d"#]))]),
                Column("select")
            ], constraints: [.named(#"n"m"#, .unique(["order", "select"]))])
        #expect(
            table.sql == #"""
                CREATE TABLE "x""); DROP TABLE ""victim""; --" ("col ""quoted""" TEXT COLLATE "NO""CASE", \#
                "order" INTEGER REFERENCES "a""b" ("c""d"), "select", CONSTRAINT "n""m" UNIQUE ("order", "select"))
                """#)
        // The collation does not exist, so SQLite refuses it: by its quoted name, whole.
        #expect(throws: SQLiteError.self) { try db.execute(table.sql) }
        var usable = table
        usable.columns[0].constraints = [.collate("BINARY")]
        try db.execute(usable.sql)
        let names: [String] = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(names == ["victim", name])
        #expect(try tableXInfo(db, name).map(\.name) == [#"col "quoted""#, "order", "select"])
        let schema = TableDefinition("t", schema: #"ma"in"#, columns: [Column("a")])
        #expect(schema.sql == #"CREATE TABLE "ma""in"."t" ("a")"#)
    }

    // MARK: - Virtual tables

    @Test func fts5VirtualTableRendersAndSearches() throws {
        let db = try Connection()
        let table = TableDefinition.virtual(
            #"my "docs""#, using: "fts5",
            columns: [Column("title"), Column("body text"), Column("id", ["UNINDEXED"].map { .raw($0) })],
            arguments: ["tokenize = 'porter'"])
        #expect(table.sql == #"CREATE VIRTUAL TABLE "my ""docs""" USING "fts5"("title", "body text", "id" UNINDEXED, tokenize = 'porter')"#)
        try db.execute(table.sql)
        #expect(try storedSQL(db, #"my "docs""#) == table.sql)
        try db.run(#"INSERT INTO "my ""docs""" VALUES (?, ?, ?)"#, "Running", "She runs every morning", "7")
        try db.run(#"INSERT INTO "my ""docs""" VALUES (?, ?, ?)"#, "Resting", "A quiet afternoon", "8")
        let hits: [String] = try db.query(#"SELECT "id" FROM "my ""docs""" WHERE "my ""docs""" MATCH 'run'"#)
        #expect(hits == ["7"]) // porter: "runs" and "Running" match "run"
        // UNINDEXED: the id column is stored, not searchable.
        let byID: [String] = try db.query(#"SELECT "id" FROM "my ""docs""" WHERE "my ""docs""" MATCH 'id:7'"#)
        #expect(byID.isEmpty)

        let again = TableDefinition.virtual("docs2", using: "fts5", columns: [Column("a")], ifNotExists: true, isTemporary: true)
        #expect(again.sql == #"CREATE VIRTUAL TABLE IF NOT EXISTS "temp"."docs2" USING "fts5"("a")"#)
        try db.execute(again.sql)
        try db.execute(again.sql)
        #expect(try storedSQL(db, "docs2", master: "sqlite_temp_master") != nil)

        // A module without arguments renders no parentheses.
        #expect(TableDefinition.virtual("stats", using: "dbstat").sql == #"CREATE VIRTUAL TABLE "stats" USING "dbstat""#)
    }

    // MARK: - ADD COLUMN

    @Test func addColumnRendersTheColumnAsCreateTableDoes() throws {
        let db = try Connection()
        try db.execute(TableDefinition("t", columns: [Column("a")]).sql)
        let column = Column("b c", type: "TEXT", [.notNull(), .defaultValue(.text("x"))])
        #expect(TableDefinition.addColumnSQL(table: #"t"#, column: column) == #"ALTER TABLE "t" ADD COLUMN "b c" TEXT NOT NULL DEFAULT 'x'"#)
        try db.execute(TableDefinition.addColumnSQL(table: "t", column: column))
        #expect(try tableXInfo(db, "t").last == ColumnInfoRow(name: "b c", type: "TEXT", notNull: true, defaultValue: "'x'", primaryKey: 0, hidden: 0))
        #expect(TableDefinition.addColumnSQL(table: #"a"b"#, definition: "c INTEGER") == #"ALTER TABLE "a""b" ADD COLUMN c INTEGER"#)
    }

    // MARK: - The type mapping

    @Test func typeMappingForEachSwiftType() throws {
        func both<T: Extractable>(_ type: T.Type) -> [String] {
            [sqlDeclaredType(of: type, unmapped: .blob), sqlDeclaredType(of: type, unmapped: .none)]
        }
        let integers: [[String]] = [
            both(Int.self), both(Int8.self), both(Int16.self), both(Int32.self), both(Int64.self),
            both(UInt.self), both(UInt8.self), both(UInt16.self), both(UInt32.self), both(UInt64.self), both(Bool.self)
        ]
        #expect(integers.allSatisfy { $0 == ["INTEGER", "INTEGER"] })
        #expect(both(Double.self) == ["REAL", "REAL"])
        #expect(both(Float.self) == ["REAL", "REAL"])
        #expect(both(String.self) == ["TEXT", "TEXT"])
        #expect(both(Date.self) == ["TEXT", "TEXT"])
        #expect(both(URL.self) == ["TEXT", "TEXT"])
        #expect(both(Data.self) == ["BLOB", "BLOB"])
        #expect(both(Note.self) == ["BLOB", "BLOB"]) // Codable bindings store JSON as a blob
        // The one place the libraries differ: the ORM declares BLOB, records declare no type.
        #expect(both(Unusual.self) == ["BLOB", ""])

        // What SQLite makes of the declared types: the affinity each storage class expects.
        let db = try Connection()
        let columns =
            [Int.self, Double.self, String.self, Data.self].enumerated().map { index, type -> Column in
                switch index {
                case 0: return Column("c0", type: sqlDeclaredType(of: Int.self, unmapped: .none))
                case 1: return Column("c1", type: sqlDeclaredType(of: Double.self, unmapped: .none))
                case 2: return Column("c2", type: sqlDeclaredType(of: String.self, unmapped: .none))
                default: return Column("c3", type: sqlDeclaredType(of: Data.self, unmapped: .none))
                }
            } + [Column("c4", type: sqlDeclaredType(of: Unusual.self, unmapped: .none))]
        try db.execute(TableDefinition("typed", columns: columns).sql)
        #expect(try tableXInfo(db, "typed").map(\.type) == ["INTEGER", "REAL", "TEXT", "BLOB", ""])
        try db.run("INSERT INTO typed VALUES ('1', '1.5', 2, x'00', '3')")
        let classes: [String] = try db.query("SELECT typeof(c0) || typeof(c1) || typeof(c2) || typeof(c3) || typeof(c4) FROM typed")
        #expect(classes == ["integerrealtextblobtext"])
    }

    // MARK: - The callers keep their SQL (strings captured from main before the refactor)

    @Test func swiftlyDescriptionKeepsItsSQL() throws {
        let description = TableDescription(
            name: #"t"x"#,
            columns: [
                ColumnDescription(name: "b", type: .bool, nullable: true),
                ColumnDescription(name: "a b", type: .int(size: 4), nullable: false),
                ColumnDescription(name: "c", type: .char(size: 255), nullable: false)
            ])
        #expect(description.createTableSQL == #"CREATE TABLE "t""x"("b" BOOL NULL, "a b" INT(4) NOT NULL, "c" CHAR(255) NOT NULL)"#)
        #expect(description.columns[1].sqlRepresentation == #""a b" INT(4) NOT NULL"#)
        let db = try Connection()
        try db.createTable(describedBy: description)
        #expect(try storedSQL(db, #"t"x"#) == description.createTableSQL)
    }

    @Test func schemaDSLTableKeepsItsSQL() throws {
        let table = SchemaTable(
            name: #"peo"ple"#,
            columns: [
                SchemaColumn(name: "id", type: .Integer, constraints: ["PRIMARY KEY"]),
                SchemaColumn(name: "e mail", type: .Text, constraints: ["NOT NULL", "DEFAULT ''"]),
                SchemaColumn(name: "r", type: .Real),
                SchemaColumn(name: "b", type: .Blob)
            ], constraints: [SchemaTableConstraint(#"UNIQUE ("e mail")"#, named: #"u"q"#), SchemaTableConstraint("CHECK (id > 0)")])
        #expect(
            table.createSQL == #"""
                CREATE TABLE "peo""ple" ("id" INTEGER PRIMARY KEY, "e mail" TEXT NOT NULL DEFAULT '', "r" REAL, "b" BLOB, \#
                CONSTRAINT "u""q" UNIQUE ("e mail"), CHECK (id > 0))
                """#)
        #expect(
            table.definitionSQL == #"""
                "id" INTEGER PRIMARY KEY, "e mail" TEXT NOT NULL DEFAULT '', "r" REAL, "b" BLOB, CONSTRAINT "u""q" UNIQUE ("e mail"), CHECK (id > 0)
                """#)
        #expect(table.columns[1].sqlRepresentation == #""e mail" TEXT NOT NULL DEFAULT ''"#)
        #expect(table.constraints[0].sqlRepresentation == #"CONSTRAINT "u""q" UNIQUE ("e mail")"#)
        let db = try Connection()
        try db.execute(table.createSQL)
        #expect(try storedSQL(db, #"peo"ple"#) == table.createSQL)
    }

    @Test func migratorBookkeepingTableQuotesItsNames() throws {
        let db = try Connection()
        let migrator = Migrator(connection: db, desiredSchemaVersion: 1)
        try migrator.runMigrationsIfNecessary(migrationSQLForSchemaVersion: { _ in "CREATE TABLE cars(id INTEGER PRIMARY KEY)" })
        // Same columns and constraints as SQift's unquoted statement; only the quoting is new.
        #expect(
            try storedSQL(db, "schema_migrations")
                == #"CREATE TABLE "schema_migrations" ("version" INTEGER UNIQUE NOT NULL, "migration_timestamp" TEXT NOT NULL)"#)
        #expect(try tableXInfo(db, "schema_migrations").map(\.notNull) == [true, true])
    }
}
