// The seed README's syncSchema rules, as a SQLiteORM-Swift user checks them, in Swift 5 mode.
import Foundation
import Testing
import StrataORM

struct Pet: Initializable {
    var id = 0
    var name = ""
    var age = 0
    var nick: String?
}

private func storage(_ path: String, _ columns: AnyColumn...) throws -> Storage {
    try Storage(filename: path, tables: [Table<Pet>(name: "pets", elements: columns)])
}

@Suite struct SyncSchemaSeedRulesTests {
    @Test func seedRules() throws {
        let (directory, path) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let id = Column(name: "id", keyPath: \Pet.id, constraints: primaryKey(), notNull())
        let name = Column(name: "name", keyPath: \Pet.name, constraints: notNull())
        let age = Column(name: "age", keyPath: \Pet.age, constraints: notNull())
        let ageDefault = Column(name: "age", keyPath: \Pet.age, constraints: notNull(), defaultValue(1))
        let nick = Column(name: "nick", keyPath: \Pet.nick)

        let first = try storage(path, id, name, age)
        #expect(try first.syncSchema(preserve: true) == ["pets": .newTableCreated])
        try first.replace(Pet(id: 1, name: "Rex", age: 3, nick: nil))
        #expect(try first.syncSchema(preserve: true) == ["pets": .alredyInSync])

        // A new nullable column is added, rows kept.
        let added = try storage(path, id, name, age, nick)
        #expect(try added.syncSchema(preserve: true) == ["pets": .newColumnsAdded])
        #expect(try added.count(all: Pet.self) == 1)

        // An excess column with preserve: the table is copied without it, rows kept.
        let removed = try storage(path, id, name, age)
        #expect(try removed.syncSchema(preserve: true) == ["pets": .oldColumnsRemoved])
        let kept: Pet? = try removed.get(id: 1)
        #expect(kept?.name == "Rex")

        // Added and removed at once, with preserve.
        let both = try storage(path, id, name, nick)
        #expect(try both.syncSchema(preserve: true) == ["pets": .newColumnsAddedAndOldColumnsRemoved])
        #expect(try both.count(all: Pet.self) == 1)

        // A new NOT NULL column with a default is added; rows kept.
        let withDefault = try storage(path, id, name, nick, ageDefault)
        #expect(try withDefault.syncSchema(preserve: true) == ["pets": .newColumnsAdded])
        #expect(try withDefault.count(all: Pet.self) == 1)

        // An excess column without preserve: dropped and recreated, rows lost.
        let dropped = try storage(path, id, name, ageDefault)
        #expect(try dropped.syncSchema(preserve: false) == ["pets": .droppedAndRecreated])
        #expect(try dropped.count(all: Pet.self) == 0)

        // A column that differs (NOT NULL) drops and recreates; with preserve, StrataORM copies
        // the rows into the new table (a documented difference: upstream loses them).
        try dropped.replace(Pet(id: 1, name: "Rex", age: 3, nick: nil))
        let differs = try storage(path, id, Column(name: "name", keyPath: \Pet.name), ageDefault)
        #expect(try differs.syncSchema(preserve: true) == ["pets": .droppedAndRecreated])
        #expect(try differs.count(all: Pet.self) == 1)

        // A new NOT NULL column without a default, for an optional property declared notNull():
        // a new object leaves it nil, so there is nothing to fill the existing rows with.
        // preserve: true never drops rows: it throws and changes nothing; preserve: false
        // drops and recreates, as the seed documents.
        let notNullNoDefault = try storage(
            path, id, Column(name: "name", keyPath: \Pet.name), ageDefault,
            Column(name: "nick", keyPath: \Pet.nick, constraints: notNull()))
        #expect(throws: ORMError.self) { try notNullNoDefault.syncSchema(preserve: true) }
        #expect(try notNullNoDefault.count(all: Pet.self) == 1)
        #expect(try notNullNoDefault.syncSchema(preserve: false) == ["pets": .droppedAndRecreated])
        #expect(try notNullNoDefault.count(all: Pet.self) == 0)

        // Excess tables are ignored, not dropped.
        try notNullNoDefault.connection.execute("CREATE TABLE extra (x)")
        _ = try notNullNoDefault.syncSchema(preserve: false)
        #expect(try notNullNoDefault.tableExists(with: "extra"))
    }
}
