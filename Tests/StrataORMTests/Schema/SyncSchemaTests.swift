import Foundation
import StrataTestSupport
import Testing
import StrataORM

/// The first version of the people table: no nickname, and a `legacy` column later removed.
struct PersonV1: Initializable {
    var id = 0
    var name = ""
    var age = 0
    var legacy = ""
}

struct PersonWithScore: Initializable {
    var id = 0
    var name = ""
    var nickname: String?
    var age = 0
    var score = 7
}

/// The columns every version of the people table starts with, mapped to `T`'s `id` (the key),
/// `name` and `age`, all NOT NULL.
func peopleColumns<T>(
    id: WritableKeyPath<T, Int>, name: WritableKeyPath<T, String>, age: WritableKeyPath<T, Int>
) -> [TableElement] {
    [
        Column(name: "id", keyPath: id, constraints: primaryKey(), notNull()),
        Column(name: "name", keyPath: name, constraints: notNull()),
        Column(name: "age", keyPath: age, constraints: notNull())
    ]
}

/// The columns of the v1 people table, in order: id (the key), name, age and legacy.
func v1Columns() -> [TableElement] {
    peopleColumns(id: \PersonV1.id, name: \PersonV1.name, age: \PersonV1.age) + [Column(name: "legacy", keyPath: \PersonV1.legacy, constraints: notNull())]
}

func v1Table() -> Table<PersonV1> { Table<PersonV1>(name: "people", elements: v1Columns()) }

/// A file database holding the v1 table with two rows.
func v1Database(in directory: TemporaryDirectory) throws -> String {
    let path = directory.path("db.sqlite")
    let storage = try Storage(filename: path, v1Table())
    #expect(try storage.syncSchema(preserve: true) == ["people": .newTableCreated])
    try storage.insert(PersonV1(id: 0, name: "Ann", age: 30, legacy: "a"))
    try storage.insert(PersonV1(id: 0, name: "Bob", age: 40, legacy: "b"))
    return path
}

/// A storage of `table` on a fresh ``v1Database(in:)`` in `directory`.
func storageOnV1<T>(in directory: TemporaryDirectory, _ table: Table<T>) throws -> Storage {
    try Storage(filename: try v1Database(in: directory), table)
}

func columnNames(_ storage: Storage, table: String = "people") throws -> [String] {
    try storage.connection.prepare("SELECT name FROM pragma_table_info(?)", table).query()
}

/// The schema SQL and every row of every table: what "exactly as it was" compares.
func snapshot(_ connection: Connection) throws -> [String] {
    let tables: [String] = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    var lines: [String] = try connection.query("SELECT coalesce(sql, '') FROM sqlite_master ORDER BY name")
    for table in tables {
        let rows: [String] = try connection.prepare("SELECT * FROM \"\(table)\"").query { row in
            row.values.map { "\($0 ?? "NULL")" }.joined(separator: "|")
        }
        lines += rows.map { "\(table): \($0)" }
    }
    return lines
}

@Suite struct SyncSchemaTests {
    @Test func createsANewTable() throws {
        let storage = try Storage(filename: "", personTable())
        #expect(try storage.syncSchema(preserve: false) == ["people": .newTableCreated])
        #expect(try storage.tableExists(with: "people"))
        #expect(try storage.syncSchema(preserve: false) == ["people": .alredyInSync])
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func addsANullableColumnKeepingRows() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<Person>(
                name: "people",
                elements: peopleColumns(id: \Person.id, name: \Person.name, age: \Person.age) + [
                    Column(name: "legacy", keyPath: \Person.name, constraints: notNull()),
                    Column(name: "nickname", keyPath: \Person.nickname)
                ]))
        #expect(try storage.syncSchema(preserve: false) == ["people": .newColumnsAdded])
        #expect(try columnNames(storage) == ["id", "name", "age", "legacy", "nickname"])
        let nicknames: [String?] = try storage.select(\Person.nickname, orderBy(\Person.id))
        #expect(nicknames == [nil, nil])
        #expect(try storage.count(all: Person.self) == 2)
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func addsANotNullColumnWithADefault() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<PersonWithScore>(
                name: "people",
                elements: peopleColumns(id: \PersonWithScore.id, name: \PersonWithScore.name, age: \PersonWithScore.age) + [
                    Column(name: "legacy", keyPath: \PersonWithScore.nickname),
                    Column(name: "score", keyPath: \PersonWithScore.score, constraints: notNull(), defaultValue(5))
                ]))
        // "legacy" became nullable: that changes a column, so the table is recreated.
        #expect(try storage.syncSchema(preserve: true) == ["people": .droppedAndRecreated])
        let scores: [Int] = try storage.select(\PersonWithScore.score, orderBy(\PersonWithScore.id))
        #expect(scores == [5, 5])
        let legacy: [String?] = try storage.select(\PersonWithScore.nickname, orderBy(\PersonWithScore.id))
        #expect(legacy == ["a", "b"])
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func addsANotNullColumnWithADefaultByAlterTable() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<PersonV1>(
                name: "people",
                elements: v1Columns() + [Column(name: "city", keyPath: \PersonV1.legacy, constraints: notNull(), defaultValue("O'Town"))]))
        #expect(try storage.syncSchema(preserve: false) == ["people": .newColumnsAdded])
        let cities: [String] = try storage.connection.query("SELECT city FROM people ORDER BY id")
        #expect(cities == ["O'Town", "O'Town"])
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test(arguments: [true, false])
    func addsANotNullColumnWithoutDefault(preserve: Bool) throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<PersonWithScore>(
                name: "people",
                elements: peopleColumns(id: \PersonWithScore.id, name: \PersonWithScore.name, age: \PersonWithScore.age) + [
                    Column(name: "legacy", keyPath: \PersonWithScore.name, constraints: notNull()),
                    Column(name: "score", keyPath: \PersonWithScore.score, constraints: notNull())
                ]))
        #expect(try storage.syncSchema(preserve: preserve) == ["people": .droppedAndRecreated])
        let scores: [Int] = try storage.select(\PersonWithScore.score, orderBy(\PersonWithScore.id))
        // Kept rows take the model's default (`var score = 7`); without preserve they are gone.
        #expect(scores == (preserve ? [7, 7] : []))
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func removesAColumnKeepingDataWithPreserve() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<PersonV1>(name: "people", elements: Array(v1Columns().prefix(3))))
        #expect(try storage.syncSchema(preserve: true) == ["people": .oldColumnsRemoved])
        #expect(try columnNames(storage) == ["id", "name", "age"])
        let people: [PersonV1] = try storage.getAll(orderBy(\PersonV1.id))
        #expect(people.map(\.name) == ["Ann", "Bob"])
        #expect(people.map(\.age) == [30, 40])
        #expect(people.map(\.id) == [1, 2])
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func removesAColumnDroppingDataWithoutPreserve() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<PersonV1>(name: "people", elements: Array(v1Columns().prefix(2))))
        #expect(try storage.syncSchema(preserve: false) == ["people": .droppedAndRecreated])
        #expect(try columnNames(storage) == ["id", "name"])
        #expect(try storage.count(all: PersonV1.self) == 0)
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func removesAndAddsColumnsAtOnce() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(in: directory, personTable())
        #expect(try storage.syncSchema(preserve: true) == ["people": .newColumnsAddedAndOldColumnsRemoved])
        let people: [Person] = try storage.getAll(orderBy(\Person.id))
        #expect(people == [Person(id: 1, name: "Ann", nickname: nil, age: 30), Person(id: 2, name: "Bob", nickname: nil, age: 40)])
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func changesThePrimaryKeyKeepingRows() throws {
        let directory = try TemporaryDirectory()
        let storage = try storageOnV1(
            in: directory,
            Table<PersonV1>(
                name: "people",
                Column(name: "id", keyPath: \PersonV1.id, constraints: notNull()),
                Column(name: "name", keyPath: \PersonV1.name, constraints: primaryKey(), notNull()),
                Column(name: "age", keyPath: \PersonV1.age, constraints: notNull()),
                Column(name: "legacy", keyPath: \PersonV1.legacy, constraints: notNull())))
        #expect(try storage.syncSchema(preserve: true) == ["people": .droppedAndRecreated])
        let keys: [String] = try storage.connection.query("SELECT name FROM pragma_table_info('people') WHERE pk > 0")
        #expect(keys == ["name"])
        let bob: PersonV1? = try storage.get(id: "Bob")
        #expect(bob?.age == 40)
        #expect(bob?.id == 2)
        #expect(try storage.syncSchema(preserve: true) == ["people": .alredyInSync])
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func aFailingSyncLeavesEverythingAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = try v1Database(in: directory)
        let setup = try Storage(filename: path, v1Table(), personTable(name: "others"))
        #expect(try setup.syncSchema(preserve: true) == ["people": .alredyInSync, "others": .newTableCreated])
        try setup.insert(PersonV1(id: 0, name: "Ann", age: 50, legacy: "c")) // a second "Ann"
        try setup.insert(Person(id: 0, name: "Cy", nickname: "c", age: 1))
        let before = try snapshot(setup.connection)

        // "others" loses a column (fine), then "people" gets "name" as its key: the two Anns collide.
        let storage = try Storage(
            filename: path,
            Table<Person>(
                name: "others",
                Column(name: "id", keyPath: \Person.id, constraints: primaryKey(), notNull()),
                Column(name: "name", keyPath: \Person.name, constraints: notNull())),
            Table<PersonV1>(
                name: "people",
                Column(name: "id", keyPath: \PersonV1.id, constraints: notNull()),
                Column(name: "name", keyPath: \PersonV1.name, constraints: primaryKey(), notNull())))
        #expect(throws: SQLiteError.self) { try storage.syncSchema(preserve: true) }
        #expect(try snapshot(storage.connection) == before)
        #expect(!storage.connection.isInTransaction)
        #expect(try storage.connection.integrityCheck() == "ok")
    }

    @Test func syncInsideATransactionUsesASavepoint() throws {
        let storage = try Storage(filename: "", personTable())
        try storage.transaction {
            #expect(try storage.syncSchema(preserve: true) == ["people": .newTableCreated])
            try storage.insert(Person(id: 0, name: "x", nickname: nil, age: 1))
        }
        #expect(try storage.count(all: Person.self) == 1)
    }

    @Test func excessTablesAreLeftAlone() throws {
        let storage = try Storage(filename: "", personTable())
        try storage.connection.execute("CREATE TABLE unrelated(x); INSERT INTO unrelated VALUES (1)")
        try storage.syncSchema(preserve: false)
        let count: Int? = try storage.connection.query("SELECT count(*) FROM unrelated")
        #expect(count == 1)
    }
}

/// A NOT NULL column whose only fill is a new object's nil: preserve keeps every row or throws.
@Suite struct SyncSchemaNilFillTests {
    struct Tagged: Initializable {
        var id = 0
        var tag: String?
    }

    func storage(_ path: String, tagIsNotNull: Bool = false) throws -> Storage {
        let tag =
            tagIsNotNull
            ? Column(name: "tag", keyPath: \Tagged.tag, constraints: notNull())
            : Column(name: "tag", keyPath: \Tagged.tag)
        return try Storage(
            filename: path,
            Table<Tagged>(
                name: "tagged",
                Column(name: "id", keyPath: \Tagged.id, constraints: primaryKey(), notNull()), tag))
    }

    @Test func nullableColumnBecomingNotNullThrowsWhenARowHoldsNull() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let before = try storage(path)
        _ = try before.syncSchema(preserve: true)
        try before.insert(Tagged(id: 0, tag: "kept"))
        try before.insert(Tagged(id: 0, tag: nil))

        let after = try storage(path, tagIsNotNull: true)
        #expect(throws: ORMError.self) { try after.syncSchema(preserve: true) }
        #expect(try after.count(all: Tagged.self) == 2)
        let notNull: Int? = try after.connection.query("SELECT \"notnull\" FROM pragma_table_info('tagged') WHERE name = 'tag'")
        #expect(notNull == 0)

        try after.connection.run("DELETE FROM tagged WHERE tag IS NULL")
        #expect(try after.syncSchema(preserve: true) == ["tagged": .droppedAndRecreated])
        let tags: [String] = try after.connection.query("SELECT tag FROM tagged")
        #expect(tags == ["kept"])
    }
}
