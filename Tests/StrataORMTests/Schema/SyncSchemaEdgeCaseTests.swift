// Issue 39: syncSchema's type comparison, INTEGER PRIMARY KEY DESC, TEMP triggers and indexes
// on removed columns, and generated schemas through syncSchema.
import Foundation
import Testing
import StrataORM
import StrataTestSupport

/// A custom type whose SQL type name is written in lower case.
private struct LowerText: Bindable, ConstructableFromSQLiteValue, Equatable {
    var text: String
    init(_ text: String) { self.text = text }
    init(sqliteValue: SQLiteValue) { text = sqliteValue.text }
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: text) }
    static func sqliteTypeName() -> String { "text" }
}

private struct Note: Initializable, Equatable {
    var id = 0
    var body = LowerText("")
    var extra: String?
}

private func noteTable(extra: Bool = false) -> Table<Note> {
    extra
        ? Table<Note>(
            name: "notes",
            Column(name: "id", keyPath: \Note.id, constraints: primaryKey()),
            Column(name: "body", keyPath: \Note.body, constraints: notNull()),
            Column(name: "extra", keyPath: \Note.extra))
        : Table<Note>(
            name: "notes",
            Column(name: "id", keyPath: \Note.id, constraints: primaryKey()),
            Column(name: "body", keyPath: \Note.body, constraints: notNull()))
}

private struct Ranked: Initializable, Equatable {
    var id = 0
    var name = ""
}

private func rankedTable(desc: Bool = true) -> Table<Ranked> {
    Table<Ranked>(
        name: "ranked",
        Column(name: "id", keyPath: \Ranked.id, constraints: desc ? primaryKey().desc() : primaryKey()),
        Column(name: "name", keyPath: \Ranked.name, constraints: notNull()))
}

@Suite struct SyncSchemaEdgeCaseTests {
    // MARK: 1. type names compared as SQLite does

    @Test(arguments: [false, true])
    func aLowerCaseTypeNameKeepsTheRowsAtEveryOpen(preserve: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        let first = try Storage(filename: path, noteTable())
        #expect(try first.syncSchema(preserve: preserve) == ["notes": .newTableCreated])
        try first.insert(Note(id: 0, body: LowerText("kept")))
        let before = try snapshot(first.connection)
        for _ in 0..<2 {
            let reopened = try Storage(filename: path, noteTable())
            #expect(try reopened.syncSchema(preserve: preserve) == ["notes": .alredyInSync])
            #expect(try snapshot(reopened.connection) == before)
        }
        // Adding a column still only adds it.
        let grown = try Storage(filename: path, noteTable(extra: true))
        #expect(try grown.syncSchema(preserve: preserve) == ["notes": .newColumnsAdded])
        let notes: [Note] = try grown.getAll()
        #expect(notes == [Note(id: 1, body: LowerText("kept"), extra: nil)])
    }

    @Test func aChangeOfAffinityIsStillAChange() throws {
        let storage = try Storage(filename: ":memory:", noteTable())
        try storage.connection.execute(#"CREATE TABLE notes ("id" INTEGER PRIMARY KEY, "body" BLOB NOT NULL)"#)
        try storage.connection.execute("INSERT INTO notes (body) VALUES ('x')")
        #expect(try storage.syncSchema(preserve: true) == ["notes": .droppedAndRecreated])
        let type: String? = try storage.connection.query("SELECT type FROM pragma_table_info('notes') WHERE name = 'body'")
        #expect(type?.uppercased() == "TEXT")
        #expect(try storage.count(all: Note.self) == 1)
    }

    // MARK: 2. INTEGER PRIMARY KEY DESC is not the rowid

    @Test func aDescendingIntegerKeyStoresTheObjectsIds() throws {
        let storage = try Storage(filename: ":memory:", rankedTable())
        try storage.syncSchema(preserve: true)
        try storage.insert(Ranked(id: 20, name: "b"))
        try storage.insert(Ranked(id: 10, name: "a"))
        let nulls: Int? = try storage.connection.query("SELECT count(*) FROM ranked WHERE id IS NULL")
        #expect(nulls == 0)
        let found: Ranked? = try storage.get(id: 10)
        #expect(found == Ranked(id: 10, name: "a"))
        let all: [Ranked] = try storage.getAll(orderBy(\Ranked.id))
        #expect(all == [Ranked(id: 10, name: "a"), Ranked(id: 20, name: "b")])
        #expect(throws: SQLiteError.self) { try storage.insert(Ranked(id: 10, name: "again")) }
    }

    @Test func anAscendingIntegerKeyIsStillAssignedBySQLite() throws {
        let storage = try Storage(filename: ":memory:", rankedTable(desc: false))
        try storage.syncSchema(preserve: true)
        #expect(try storage.insert(Ranked(id: 0, name: "a")) == 1)
        #expect(try storage.insert(Ranked(id: 0, name: "b")) == 2)
    }

    @Test func addingDescToAKeyRebuildsTheTable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ranked.sqlite")
        let plain = try Storage(filename: path, rankedTable(desc: false))
        try plain.syncSchema(preserve: true)
        try plain.insert(Ranked(id: 0, name: "a"))
        let descending = try Storage(filename: path, rankedTable(desc: true))
        #expect(try descending.syncSchema(preserve: true) == ["ranked": .droppedAndRecreated])
        #expect(try descending.syncSchema(preserve: true) == ["ranked": .alredyInSync])
        let all: [Ranked] = try descending.getAll()
        #expect(all == [Ranked(id: 1, name: "a")])
        try descending.insert(Ranked(id: 7, name: "b"))
        let seven: Ranked? = try descending.get(id: 7)
        #expect(seven?.name == "b")
    }

    // MARK: 5. TEMP triggers survive a preserving sync

    @Test func aPreservingSyncKeepsTemporaryTriggers() throws {
        let directory = try TemporaryDirectory()
        let path = try v1Database(in: directory)
        let storage = try Storage(filename: path, personTable())
        try storage.connection.execute(
            """
            CREATE TEMP TABLE log (msg TEXT);
            CREATE TEMP TRIGGER people_insert AFTER INSERT ON main.people BEGIN INSERT INTO log VALUES (NEW.name); END;
            """)
        #expect(try storage.syncSchema(preserve: true) == ["people": .newColumnsAddedAndOldColumnsRemoved])
        let triggers: [String] = try storage.connection.query("SELECT name FROM sqlite_temp_master WHERE type = 'trigger'")
        #expect(triggers == ["people_insert"])
        try storage.insert(Person(id: 0, name: "Cy", nickname: nil, age: 3))
        let log: [String] = try storage.connection.query("SELECT msg FROM temp.log")
        #expect(log == ["Cy"])
    }

    // MARK: 7. hand-made indexes on a removed column

    @Test func removingAColumnDropsItsHandMadeIndexesAndKeepsTheOthers() throws {
        let directory = try TemporaryDirectory()
        let path = try v1Database(in: directory)
        let setup = try Storage(filename: path, v1Table())
        try setup.connection.execute(
            """
            CREATE INDEX people_by_legacy ON people (legacy);
            CREATE INDEX people_by_name_legacy ON people (name, legacy);
            CREATE INDEX people_by_name ON people (name);
            """)
        let storage = try Storage(filename: path, personTable())
        #expect(try storage.syncSchema(preserve: true) == ["people": .newColumnsAddedAndOldColumnsRemoved])
        let indexes: [String] = try storage.connection.query("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
        #expect(indexes == ["people_by_name"])
        #expect(try storage.count(all: Person.self) == 2)
        #expect(try storage.syncSchema(preserve: true) == ["people": .alredyInSync])
    }

    @Test func anExpressionIndexOnARemovedColumnIsReportedAndNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let path = try v1Database(in: directory)
        let storage = try Storage(filename: path, personTable())
        try storage.connection.execute(
            """
            CREATE INDEX people_by_legacy ON people (lower(legacy));
            CREATE TEMP TRIGGER people_insert AFTER INSERT ON main.people BEGIN SELECT 1; END;
            """)
        let before = try snapshot(storage.connection)
        let temporary: [String] = try storage.connection.query("SELECT sql FROM sqlite_temp_master")
        #expect(throws: TableRebuildError.indexDoesNotFit(index: "people_by_legacy", table: "people")) {
            try storage.syncSchema(preserve: true)
        }
        #expect(try snapshot(storage.connection) == before)
        #expect(try storage.connection.query("SELECT sql FROM sqlite_temp_master") == temporary)
    }
}

// MARK: - generated schemas through syncSchema

/// A custom type whose SQL type name each property case sets (one test uses it, sequentially).
private struct GeneratedType: Bindable, ConstructableFromSQLiteValue, Equatable {
    nonisolated(unsafe) static var typeName = "text"
    var text: String
    init(_ text: String) { self.text = text }
    init(sqliteValue: SQLiteValue) { text = sqliteValue.text }
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: text) }
    static func sqliteTypeName() -> String { typeName }
}

private struct Wide: Initializable {
    var id = 0
    var integer: Int64 = 0
    var text = ""
    var real = 0.0
    var blob = Data()
    var custom = GeneratedType("")
}

@Suite struct SyncSchemaPropertyTests {
    /// Declared types SQLite reads with each column's affinity, as another tool may write them.
    static let spellings: [String: [String]] = [
        "integer": ["INTEGER", "INT", "BIGINT", "UNSIGNED BIG INT", "INT8"],
        "text": ["TEXT", "VARCHAR(20)", "CLOB", "CHARACTER(4)", "NVARCHAR(100)"],
        "real": ["REAL", "DOUBLE", "FLOAT", "DOUBLE PRECISION"],
        "blob": ["BLOB", ""]
    ]

    /// Every value of every row, exactly (storage class and bytes), in rowid order.
    func rows(_ connection: Connection, _ table: String, _ columns: [String]) throws -> [String] {
        let list = columns.map { "typeof(\(quoteIdentifier($0))) || ':' || hex(\(quoteIdentifier($0)))" }.joined(separator: " || '|' || ")
        return try connection.query("SELECT \(list) FROM \(quoteIdentifier(table)) ORDER BY rowid")
    }

    /// The doubles, bit for bit (hex() goes through text, which may round).
    func realBits(_ connection: Connection, _ table: String, _ column: String) throws -> [UInt64] {
        let values: [Double] = try connection.query("SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) ORDER BY rowid")
        return values.map(\.bitPattern)
    }

    @Test func generatedSchemasStayInSyncAndKeepTheirRows() throws {
        try PropertyCheck.run("syncSchema over generated schemas", cases: 20) { random in
            let directory = try TemporaryDirectory()
            let path = directory.path("db.sqlite")
            let names = Gen.distinctIdentifiers(&random, count: 6, prefix: "c")
            let table = "t" + Gen.identifier(&random)
            GeneratedType.typeName = Gen.mixedCase(random.pick(["TEXT", "VARCHAR(20)", "CLOB", "CHARACTER(4)", "BLOB", ""]), &random)
            let notNulls = (0..<5).map { _ in random.oneIn(2) }
            func model(dropping dropped: Int?) -> Table<Wide> {
                var columns: [AnyColumn] = [Column(name: names[0], keyPath: \Wide.id, constraints: primaryKey())]
                let all: [AnyColumn] = [
                    notNulls[0] ? Column(name: names[1], keyPath: \Wide.integer, constraints: notNull()) : Column(name: names[1], keyPath: \Wide.integer),
                    notNulls[1] ? Column(name: names[2], keyPath: \Wide.text, constraints: notNull()) : Column(name: names[2], keyPath: \Wide.text),
                    notNulls[2] ? Column(name: names[3], keyPath: \Wide.real, constraints: notNull()) : Column(name: names[3], keyPath: \Wide.real),
                    notNulls[3] ? Column(name: names[4], keyPath: \Wide.blob, constraints: notNull()) : Column(name: names[4], keyPath: \Wide.blob),
                    notNulls[4] ? Column(name: names[5], keyPath: \Wide.custom, constraints: notNull()) : Column(name: names[5], keyPath: \Wide.custom)
                ]
                for (index, column) in all.enumerated() where index + 1 != dropped { columns.append(column) }
                return Table<Wide>(name: table, elements: columns)
            }

            // The table: made by syncSchema, or by hand with other spellings of the same types.
            let byHand = random.oneIn(2)
            if byHand {
                let connection = try Connection(storageLocation: .onDisk(path))
                let affinities = ["integer", "text", "real", "blob"]
                var definitions = ["\(quoteIdentifier(names[0])) \(Gen.mixedCase("INTEGER", &random)) PRIMARY KEY"]
                for index in 0..<4 {
                    let type = Gen.mixedCase(random.pick(Self.spellings[affinities[index]] ?? []), &random)
                    definitions.append("\(quoteIdentifier(names[index + 1])) \(type)\(notNulls[index] ? " NOT NULL" : "")")
                }
                definitions.append("\(quoteIdentifier(names[5])) \(Gen.mixedCase(GeneratedType.typeName, &random))\(notNulls[4] ? " NOT NULL" : "")")
                try connection.execute("CREATE TABLE \(quoteIdentifier(table)) (\(definitions.joined(separator: ", ")))")
            }
            let first = try Storage(filename: path, model(dropping: nil))
            try require(try first.syncSchema(preserve: random.oneIn(2)) == [table: byHand ? .alredyInSync : .newTableCreated], "first sync")
            for _ in 0..<random.int(0...5) {
                var row = Wide()
                row.integer = Gen.int64(&random)
                row.text = Gen.text(&random)
                row.real = Gen.double(&random)
                row.blob = Gen.bytes(&random)
                row.custom = GeneratedType(Gen.text(&random, nul: false))
                try first.insert(row)
            }
            let schema: [String] = try first.connection.query("SELECT sql FROM sqlite_master ORDER BY name")
            let before = try rows(first.connection, table, names)
            let realsBefore = try realBits(first.connection, table, names[3])

            // Opening again changes nothing, whatever `preserve` says.
            for preserve in [false, true] {
                let again = try Storage(filename: path, model(dropping: nil))
                let result = try again.syncSchema(preserve: preserve)
                try require(result == [table: .alredyInSync], "type \(GeneratedType.typeName): sync said \(result)")
                try require(try again.connection.query("SELECT sql FROM sqlite_master ORDER BY name") == schema, "schema changed")
                try require(try rows(again.connection, table, names) == before, "rows changed")
            }

            // Dropping a column keeps every other value exactly, its index goes, TEMP triggers stay.
            let dropped = random.int(1...5)
            let smaller = try Storage(filename: path, model(dropping: dropped))
            try smaller.connection.execute(
                "CREATE INDEX \(quoteIdentifier("i" + names[dropped])) ON \(quoteIdentifier(table)) (\(quoteIdentifier(names[dropped])))")
            try smaller.connection.execute("CREATE TEMP TRIGGER tt AFTER INSERT ON main.\(quoteIdentifier(table)) BEGIN SELECT 1; END")
            try require(try smaller.syncSchema(preserve: true) == [table: .oldColumnsRemoved], "drop column")
            let remaining = names.enumerated().filter { $0.offset != dropped }.map(\.element)
            let expected = try before.map { line -> String in
                let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                try require(fields.count == names.count, "row \(line)")
                return fields.enumerated().filter { $0.offset != dropped }.map(\.element).joined(separator: "|")
            }
            try require(try rows(smaller.connection, table, remaining) == expected, "rows changed by the rebuild")
            if dropped != 3 { try require(try realBits(smaller.connection, table, names[3]) == realsBefore, "doubles changed") }
            let triggers: [String] = try smaller.connection.query("SELECT name FROM sqlite_temp_master WHERE type = 'trigger'")
            try require(triggers == ["tt"], "TEMP trigger lost")
            try require(try smaller.syncSchema(preserve: true) == [table: .alredyInSync], "not in sync after the rebuild")
            try require(try smaller.connection.integrityCheck() == "ok", "integrity")
        }
    }
}
