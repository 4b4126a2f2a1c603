import Foundation
import StrataORM

struct Person: Initializable, Equatable {
    var id = 0
    var name = ""
    var nickname: String?
    var age = 0
}

func personTable(name: String = "people") -> Table<Person> {
    Table<Person>(
        name: name,
        Column(name: "id", keyPath: \Person.id, constraints: primaryKey(), notNull()),
        Column(name: "name", keyPath: \Person.name, constraints: notNull()),
        Column(name: "nickname", keyPath: \Person.nickname),
        Column(name: "age", keyPath: \Person.age, constraints: notNull()))
}

/// A synced in-memory storage of people.
func peopleStorage() throws -> Storage {
    let storage = try Storage(filename: ":memory:", personTable())
    try storage.syncSchema(preserve: true)
    return storage
}

/// The table `name` of `T`: an `id` column mapping `key`, the primary key, then `columns`.
func keyedTable<T>(_ name: String, key: WritableKeyPath<T, Int>, _ columns: AnyColumn...) -> Table<T> {
    Table<T>(name: name, elements: [Column(name: "id", keyPath: key, constraints: primaryKey())] + columns)
}

/// A private, temporary storage of `table`: its schema synced, unless `sync` is false for a test
/// that creates the table by hand.
func temporaryStorage(_ table: AnyTable, sync: Bool = true) throws -> Storage {
    let storage = try Storage(filename: "", tables: [table])
    if sync { try storage.syncSchema(preserve: true) }
    return storage
}

extension Connection {
    /// `PRAGMA integrity_check`'s answer ("ok" when the database is sound).
    func integrityCheck() throws -> String? {
        try query("PRAGMA integrity_check")
    }
}
