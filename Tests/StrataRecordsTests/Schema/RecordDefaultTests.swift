// `@Default`: the column's DEFAULT in `createTable`, and `RecordSchema` adding a new NOT NULL
// column over rows with `ALTER TABLE … ADD COLUMN … NOT NULL DEFAULT …` instead of a rebuild;
// without a default such a column is a named error, and a failed migration changes nothing.
import Foundation
import StrataSQift
import StrataTestSupport
import Testing
@testable import StrataRecords

enum DefaultShelf {
    /// Version 1 of `counter`.
    @Record(table: "counter") struct CounterV1: Equatable {
        @PrimaryKey var id: Int64?
        var name: String
    }
    /// Version 2: a non-optional column with a default.
    @Record(table: "counter") struct CounterV2: Equatable {
        @PrimaryKey var id: Int64?
        var name: String
        @Default(7) var x: Int
    }
    /// Version 2 without the default: nothing can fill `x` for the rows there.
    @Record(table: "counter") struct CounterV2NoDefault: Equatable {
        @PrimaryKey var id: Int64?
        var name: String
        var x: Int
    }
    /// Every literal kind, with `@Column` beside `@Default`.
    @Record(table: "settings") struct Settings: Equatable {
        @PrimaryKey var id: Int64?
        @Default(0) var score: Int
        @Default(-3) var offset: Int64
        @Default("it's") @Column("note_text") var note: String
        @Default(false) var done: Bool
        @Default(true) var shown: Bool
        @Default(2.5) var ratio: Double
        @Default(-1) var floor: Double
        @Default(nil) var tag: String?
        @Default("x") var label: String?
    }
    /// A text default with NUL, which SQLite reads only as an expression (CAST of a blob).
    @Record(table: "counter") struct CounterV2WithNUL: Equatable {
        @PrimaryKey var id: Int64?
        var name: String
        @Default("a\u{0}b") var code: String
    }
    /// `tally` with a UNIQUE column added: one default for two rows cannot be UNIQUE.
    @Record(table: "tally") struct TallyV1: Equatable { @PrimaryKey var id: Int64?; var n: Int }
    @Record(table: "tally") struct TallyV2: Equatable { @PrimaryKey var id: Int64?; var n: Int; @Unique @Default(0) var slot: Int }
}

/// The schema's text and every row of every table, quoted.
private func snapshot(_ db: Connection) throws -> [String] {
    let schema: [String] = try db.query("SELECT type || '|' || name || '|' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
    return schema + (try quotedRowsOfEveryTable(db))
}

/// `CounterV1`'s table with two rows, on `db` or on a new in-memory connection, which it returns.
@discardableResult private func counterWithRows(_ db: Connection? = nil) throws -> Connection {
    let db = try db ?? Connection()
    try DefaultShelf.CounterV1.createTable(db)
    _ = try DefaultShelf.CounterV1(id: nil, name: "a").inserted(db)
    _ = try DefaultShelf.CounterV1(id: nil, name: "b").inserted(db)
    return db
}

@Suite struct RecordDefaultTests {
    @Test func createTableWritesEachDefaultAsALiteral() throws {
        let db = try Connection()
        try DefaultShelf.Settings.createTable(db)
        let sql: String? = try db.query("SELECT sql FROM sqlite_master WHERE name = 'settings'")
        #expect(
            sql == #"CREATE TABLE "settings" ("id" INTEGER PRIMARY KEY, "score" INTEGER NOT NULL DEFAULT 0, "offset" INTEGER NOT NULL DEFAULT -3, "#
                + #""note_text" TEXT NOT NULL DEFAULT 'it''s', "done" INTEGER NOT NULL DEFAULT 0, "shown" INTEGER NOT NULL DEFAULT 1, "#
                + #""ratio" REAL NOT NULL DEFAULT 2.5, "floor" REAL NOT NULL DEFAULT -1.0, "tag" TEXT DEFAULT NULL, "label" TEXT DEFAULT 'x')"#)
        // The defaults fill a row inserted without the record; the record reads them back.
        try db.execute("INSERT INTO settings DEFAULT VALUES")
        let read = try DefaultShelf.Settings.fetchAll(db)
        #expect(
            read == [
                DefaultShelf.Settings(
                    id: 1, score: 0, offset: -3, note: "it's", done: false, shown: true, ratio: 2.5, floor: -1,
                    tag: nil, label: "x")
            ])
        // A record always writes its own values: the default matters only to the schema.
        let written = try DefaultShelf.Settings(
            id: nil, score: 5, offset: 1, note: "n", done: true, shown: false, ratio: 0, floor: 0,
            tag: "t", label: nil
        ).inserted(db)
        #expect(try DefaultShelf.Settings.fetchOne(db, id: written.id ?? 0) == written)
        try DefaultShelf.Settings.checkSchema(db)
        #expect(try RecordSchema(DefaultShelf.Settings.self).plan(for: db).isEmpty)
    }

    @Test func aNewColumnWithADefaultIsAddedWithoutARebuild() throws {
        let db = try counterWithRows()
        let schema = RecordSchema(DefaultShelf.CounterV2.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.addColumn])
        #expect(plan.sql == [#"ALTER TABLE "counter" ADD COLUMN "x" INTEGER NOT NULL DEFAULT 7"#])
        #expect(!plan.losesData)
        #expect(plan.frozenMigration("v2").contains(#"ALTER TABLE "counter" ADD COLUMN "x" INTEGER NOT NULL DEFAULT 7;"#))
        let rootPage: Int? = try db.query("SELECT rootpage FROM sqlite_master WHERE name = 'counter'")
        try schema.migrate(db)
        // Not rebuilt: the table is still at its page, and the existing rows got the default.
        #expect(try db.query("SELECT rootpage FROM sqlite_master WHERE name = 'counter'") as Int? == rootPage)
        #expect(
            try DefaultShelf.CounterV2.fetchAll(db) == [
                DefaultShelf.CounterV2(id: 1, name: "a", x: 7), DefaultShelf.CounterV2(id: 2, name: "b", x: 7)
            ])
        let notNull: Int? = try db.query(#"SELECT "notnull" FROM pragma_table_info('counter') WHERE name = 'x'"#)
        #expect(notNull == 1)
        try DefaultShelf.CounterV2.checkSchema(db)
        #expect(try schema.plan(for: db).isEmpty)
        // The migration frozen from the plan does the same to a copy of version 1.
        let copy = try Connection()
        try counterWithRows(copy)
        for sql in plan.sql { try copy.execute(sql) }
        #expect(try snapshot(copy) == snapshot(db))
    }

    @Test func aNewColumnWithoutADefaultOverRowsIsANamedError() throws {
        let db = try counterWithRows()
        let before = try snapshot(db)
        let schema = RecordSchema(DefaultShelf.CounterV2NoDefault.self)
        // The plan says what is wrong; `migrate` refuses it before anything runs.
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        #expect(plan.steps[0].summary.contains(#"column "x" of table "counter" is added, but needs a @Default"#))
        do {
            try schema.migrate(db)
            Issue.record("migrate added a NOT NULL column without a value for the existing rows")
        } catch let error as RecordSchemaError {
            #expect(error == .newColumnNeedsDefault(table: "counter", column: "x"))
            #expect(error.description.contains(#"Column "x" of table "counter""#))
            #expect(error.description.contains("@Default"))
        }
        #expect(try snapshot(db) == before)
        #expect(!db.isInTransaction)
    }

    @Test func aNewColumnWithoutADefaultOverAnEmptyTableStillMigrates() throws {
        let db = try Connection()
        try DefaultShelf.CounterV1.createTable(db)
        let schema = RecordSchema(DefaultShelf.CounterV2NoDefault.self)
        let plan = try schema.plan(for: db)
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        try schema.migrate(db)
        try DefaultShelf.CounterV2NoDefault.checkSchema(db)
        #expect(try schema.plan(for: db).isEmpty)
    }

    @Test func aDefaultThatIsNoPlainLiteralRebuildsAndStillFillsTheRows() throws {
        let db = try counterWithRows()
        let schema = RecordSchema(DefaultShelf.CounterV2WithNUL.self)
        let plan = try schema.plan(for: db)
        // `ADD COLUMN` refuses a parenthesized default; the rebuild's CREATE TABLE takes it.
        #expect(plan.steps.map(\.kind) == [.rebuildTable])
        try schema.migrate(db)
        #expect(try DefaultShelf.CounterV2WithNUL.fetchAll(db).map(\.code) == ["a\u{0}b", "a\u{0}b"])
        #expect(try schema.plan(for: db).isEmpty)
    }

    @Test func checkSchemaAndThePlanIgnoreADifferentDefault() throws {
        let db = try Connection()
        try db.execute(#"CREATE TABLE counter (id INTEGER PRIMARY KEY, name TEXT NOT NULL, x INTEGER NOT NULL DEFAULT 3)"#)
        try DefaultShelf.CounterV2.checkSchema(db)
        #expect(try RecordSchema(DefaultShelf.CounterV2.self).plan(for: db).isEmpty)
        // And a default the table has that the record does not declare.
        try DefaultShelf.CounterV2NoDefault.checkSchema(db)
        #expect(try RecordSchema(DefaultShelf.CounterV2NoDefault.self).plan(for: db).isEmpty)
    }

    @Test func aFailedMigrationLeavesTheDatabaseUnchanged() throws {
        let db = try counterWithRows()
        try DefaultShelf.TallyV1.createTable(db)
        _ = try DefaultShelf.TallyV1(id: nil, n: 1).inserted(db)
        _ = try DefaultShelf.TallyV1(id: nil, n: 2).inserted(db)
        let schema = RecordSchema(DefaultShelf.CounterV2.self, DefaultShelf.TallyV2.self)
        let plan = try schema.plan(for: db)
        // `counter` gains its column first; then `tally`'s UNIQUE column with one default for two rows fails.
        #expect(plan.steps.map(\.kind) == [.addColumn, .rebuildTable])
        let before = try snapshot(db)
        #expect(throws: SQLiteError.self) { try schema.migrate(db) }
        #expect(try snapshot(db) == before)
        #expect(!db.isInTransaction)
        #expect(try schema.plan(for: db) == plan)
    }
}
