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

extension Connection {
    /// `PRAGMA integrity_check`'s answer ("ok" when the database is sound).
    func integrityCheck() throws -> String? {
        try query("PRAGMA integrity_check")
    }
}
