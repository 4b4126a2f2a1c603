// A model that is not `Initializable`, as SQLiteORM-Swift allows: `Table<T>`, inserts, updates,
// deletes, counts and aggregates need no `init()`; only reading objects back (get, getAll) does.
import Foundation
import Testing
import StrataORM

struct Reading {
    var id: Int
    var sensor: String
    var value: Double
}

@Suite struct NonInitializableModelTests {
    func makeStorage(_ file: String = ":memory:") throws -> Storage {
        let table = Table<Reading>(
            name: "readings",
            columns: Column(name: "id", keyPath: \Reading.id, constraints: primaryKey(), notNull()),
            Column(name: "sensor", keyPath: \Reading.sensor, constraints: notNull()),
            Column(name: "value", keyPath: \Reading.value, constraints: notNull()))
        let storage = try Storage(filename: file, tables: [table])
        _ = try storage.syncSchema(preserve: false)
        return storage
    }

    @Test func writesCountsAndAggregatesWorkWithoutInit() throws {
        let storage = try makeStorage()
        try storage.replace(Reading(id: 1, sensor: "a", value: 1.5))
        try storage.replace(Reading(id: 2, sensor: "a", value: 2.5))
        try storage.replace(object: Reading(id: 3, sensor: "b", value: -4))
        #expect(try storage.count(all: Reading.self) == 3)
        #expect(try storage.total(\Reading.value) == 0)
        #expect(try storage.sum(\Reading.value, where_(\Reading.sensor == "a")) == 4)
        #expect(try storage.max(\Reading.value) == 2.5)
        #expect(try storage.min(\Reading.id) == 1)
        try storage.update(Reading(id: 3, sensor: "b", value: 10))
        #expect(try storage.max(\Reading.value) == 10)
        try storage.delete(Reading(id: 1, sensor: "a", value: 1.5))
        #expect(try storage.count(all: Reading.self) == 2)
        try storage.update(all: Reading.self, set(assign(\Reading.value, 0)), where_(\Reading.sensor == "a"))
        #expect(try storage.total(\Reading.value) == 10)
        try storage.delete(all: Reading.self, where_(\Reading.sensor == "b"))
        #expect(try storage.count(all: Reading.self) == 1)
        let safe = try SafeStorage(
            filename: ":memory:",
            tables: [
                Table<Reading>(
                    name: "readings",
                    columns: Column(name: "id", keyPath: \Reading.id, constraints: primaryKey(), notNull()),
                    Column(name: "value", keyPath: \Reading.value))
            ])
        _ = safe.syncSchema(preserve: false)
        // As upstream, an insert leaves the rowid key to SQLite.
        #expect(try safe.insert(Reading(id: 7, sensor: "-", value: 1)).get() == 1)
        #expect(try safe.count(all: Reading.self).get() == 1)
    }

    @Test func syncSchemaWithoutAFreshObjectRefusesANotNullColumnRowsNeedByName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-orm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("readings.sqlite").path
        do {
            let storage = try Storage(
                filename: file,
                tables: [
                    Table<Reading>(
                        name: "readings",
                        columns: Column(name: "id", keyPath: \Reading.id, constraints: primaryKey(), notNull()),
                        Column(name: "value", keyPath: \Reading.value, constraints: notNull()))
                ])
            _ = try storage.syncSchema(preserve: false)
            try storage.replace(Reading(id: 1, sensor: "ignored", value: 2))
        }
        let storage = try Storage(
            filename: file,
            tables: [
                Table<Reading>(
                    name: "readings",
                    columns: Column(name: "id", keyPath: \Reading.id, constraints: primaryKey(), notNull()),
                    Column(name: "sensor", keyPath: \Reading.sensor, constraints: notNull()),
                    Column(name: "value", keyPath: \Reading.value, constraints: notNull()))
            ])
        #expect(throws: ORMError.self) { _ = try storage.syncSchema(preserve: true) }
        #expect(try storage.count(all: Reading.self) == 1, "the refused sync left the rows as they were")
        #expect(try storage.total(\Reading.value) == 2)
    }
}
