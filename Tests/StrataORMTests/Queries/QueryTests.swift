import Foundation
import Testing
import StrataORM

/// Ann 30 (nick "A"), Bob 40, Cid 50 (nick "C"), Dee 40.
func sampleStorage() throws -> Storage {
    let storage = try peopleStorage()
    for (name, nickname, age) in [("Ann", "A", 30), ("Bob", nil, 40), ("Cid", "C", 50), ("Dee", nil, 40)] as [(String, String?, Int)] {
        try storage.insert(Person(id: 0, name: name, nickname: nickname, age: age))
    }
    return storage
}

@Suite struct QueryTests {
    @Test func comparisonAndLogicalOperators() throws {
        let storage = try sampleStorage()
        func names(_ condition: some OperableExpression) throws -> [String] {
            let people: [Person] = try storage.getAll(where_(condition), orderBy(\Person.id))
            return people.map(\.name)
        }
        #expect(try names(\Person.age == 40) == ["Bob", "Dee"])
        #expect(try names(\Person.age != 40) == ["Ann", "Cid"])
        #expect(try names(\Person.age < 40) == ["Ann"])
        #expect(try names(\Person.age <= 40) == ["Ann", "Bob", "Dee"])
        #expect(try names(\Person.age > 40) == ["Cid"])
        #expect(try names(\Person.age >= 40) == ["Bob", "Cid", "Dee"])
        #expect(try names(\Person.age > 30 && \Person.age < 50) == ["Bob", "Dee"])
        #expect(try names(\Person.name == "Ann" || \Person.name == "Cid") == ["Ann", "Cid"])
        #expect(try names(45 < \Person.age) == ["Cid"])
        #expect(try names(\Person.age + 10 == 50) == ["Bob", "Dee"])
        #expect(try names(\Person.age * 2 - 20 == 40) == ["Ann"])
        #expect(try names(\Person.age / 10 % 2 == 1) == ["Ann", "Cid"])
        #expect(try names(isNull(\Person.nickname)) == ["Bob", "Dee"])
        #expect(try names(isNotNull(\Person.nickname)) == ["Ann", "Cid"])
        #expect(try names(!(\Person.age == 40)) == ["Ann", "Cid"])
        #expect(try names(\Person.id == \Person.id) == ["Ann", "Bob", "Cid", "Dee"])
        #expect(try names(length(\Person.name) == 3 && glob(\Person.name, "?e?")) == ["Dee"])
    }

    @Test func orderLimitAndOffset() throws {
        let storage = try sampleStorage()
        let page: [Person] = try storage.getAll(orderBy(\Person.age).desc(), orderBy(\Person.name).asc(), limit(2, offset: 1))
        #expect(page.map(\.name) == ["Bob", "Dee"])
        let first: [Person] = try storage.getAll(orderBy(\Person.name), limit(1))
        #expect(first.map(\.name) == ["Ann"])
        let several = try storage.getAll(all: Person.self, where_(\Person.age >= 40), where_(\Person.name != "Bob"))
        #expect(several.map(\.name) == ["Cid", "Dee"])
    }

    @Test func aggregates() throws {
        let storage = try sampleStorage()
        #expect(try storage.count(all: Person.self) == 4)
        #expect(try storage.count(all: Person.self, where_(\Person.age == 40)) == 2)
        #expect(try storage.count(\Person.nickname) == 2)
        #expect(try storage.avg(\Person.age) == 40)
        #expect(try storage.sum(\Person.age) == 160)
        #expect(try storage.total(\Person.age) == 160)
        #expect(try storage.max(\Person.age) == 50)
        #expect(try storage.min(\Person.age, where_(\Person.age > 30)) == 40)
        #expect(try storage.max(\Person.nickname) == "C")
        #expect(try storage.groupConcat(\Person.nickname) == "A,C")
        #expect(try storage.groupConcat(\Person.name, separator: "'; ", where_(\Person.age == 40)) == "Bob'; Dee")

        try storage.delete(all: Person.self)
        #expect(try storage.avg(\Person.age) == nil)
        #expect(try storage.sum(\Person.age) == nil)
        #expect(try storage.total(\Person.age) == 0)
        #expect(try storage.max(\Person.age) == nil)
        #expect(try storage.groupConcat(\Person.name) == nil)
    }

    @Test func selectOneTwoOrThreeExpressions() throws {
        let storage = try sampleStorage()
        let names: [String] = try storage.select(\Person.name, where_(\Person.age == 40), orderBy(\Person.name))
        #expect(names == ["Bob", "Dee"])
        let pairs = try storage.select(\Person.name, \Person.nickname, orderBy(\Person.id), limit(2))
        #expect(pairs.map(\.0) == ["Ann", "Bob"])
        #expect(pairs.map(\.1) == ["A", nil])
        let triples = try storage.select(\Person.id, upper(\Person.name), \Person.age + 1, where_(\Person.id == 3))
        #expect(triples.count == 1)
        #expect(triples.first?.0 == 3)
        #expect(triples.first?.1 == "CID")
        #expect(triples.first?.2 == 51)
        let counts: [Int] = try storage.select(count(), from(Person.self))
        #expect(counts == [4])
        let lengths: [Int?] = try storage.select(length(\Person.nickname), orderBy(\Person.id))
        #expect(lengths == [1, nil, 1, nil])
        let absolute: [Int] = try storage.select(abs(\Person.age - 45), orderBy(\Person.id))
        #expect(absolute == [15, 5, 5, 5])
        #expect(throws: ORMError.self) { _ = try storage.select(count()) }
    }

    @Test func updateAndDeleteAll() throws {
        let storage = try sampleStorage()
        try storage.update(
            all: Person.self, set(assign(\Person.age, \Person.age + 1), assign(\Person.nickname, nil as String?)),
            where_(\Person.age == 40))
        let ages: [Int] = try storage.select(\Person.age, orderBy(\Person.id))
        #expect(ages == [30, 41, 50, 41])
        #expect(try storage.count(\Person.nickname) == 2)
        try storage.delete(all: Person.self, where_(\Person.age > 40))
        #expect(try storage.select(\Person.name, orderBy(\Person.id)) == ["Ann"])
        #expect(throws: ORMError.self) { try storage.delete(all: Person.self, limit(1)) }
    }

    @Test func forEachStreamsAndStopsOnError() throws {
        let storage = try sampleStorage()
        struct Stop: Swift.Error {}
        var seen: [String] = []
        #expect(throws: Stop.self) {
            try storage.forEach(Person.self, orderBy(\Person.id)) { person in
                seen.append(person.name)
                if seen.count == 2 { throw Stop() }
            }
        }
        #expect(seen == ["Ann", "Bob"])
        // A nested query of the same shape runs while the outer one is open.
        var pairs: [String] = []
        try storage.forEach(Person.self, orderBy(\Person.id)) { outer in
            try storage.forEach(Person.self, orderBy(\Person.id)) { inner in
                if inner.age == outer.age, inner.id != outer.id { pairs.append(outer.name + inner.name) }
            }
        }
        #expect(pairs == ["BobDee", "DeeBob"])
    }

    @Test func statementsAreReusedAcrossCalls() throws {
        let storage = try sampleStorage()
        for id in 1...4 {
            let person: Person? = try storage.get(id: id)
            #expect(person?.id == id)
        }
        for age in [30, 40, 50] {
            #expect(try storage.count(all: Person.self, where_(\Person.age == age)) >= 1)
        }
    }
}

@Suite struct ErrorTests {
    struct Unmapped: Initializable { var id = 0 }
    struct NoKey: Initializable { var name = "" }

    @Test func unmappedTypesAndKeyPathsThrowNamedErrors() throws {
        let storage = try sampleStorage()
        #expect(throws: ORMError.typeIsNotMapped(type: "Unmapped")) { try storage.insert(Unmapped()) }
        #expect(throws: ORMError.self) { let _: [Person] = try storage.getAll(where_(\Unmapped.id == 1)) }
        #expect(throws: ORMError.primaryKeyCountMismatch(table: "people", expected: 1, received: 2)) {
            let _: Person? = try storage.get(id: 1, 2)
        }
    }

    @Test func tablesWithoutPrimaryKeyRefuseKeyedOperations() throws {
        let storage = try Storage(filename: "", Table<NoKey>(name: "nokey", Column(name: "name", keyPath: \NoKey.name)))
        try storage.syncSchema(preserve: true)
        try storage.insert(NoKey(name: "x"))
        #expect(try storage.getAll(all: NoKey.self).map(\.name) == ["x"])
        #expect(throws: ORMError.tableHasNoPrimaryKey(table: "nokey")) { try storage.update(NoKey(name: "y")) }
        #expect(throws: ORMError.tableHasNoPrimaryKey(table: "nokey")) { try storage.delete(NoKey(name: "x")) }
        #expect(throws: ORMError.tableHasNoPrimaryKey(table: "nokey")) { let _: NoKey? = try storage.get(id: 1) }
    }

    @Test func inconsistentDefinitionsFailAtStorageCreation() {
        #expect(throws: ORMError.self) {
            _ = try Storage(filename: "", Table<Person>(name: "p", Column(name: "id", keyPath: \Unmapped.id)))
        }
        #expect(throws: ORMError.self) {
            _ = try Storage(
                filename: "",
                Table<Person>(
                    name: "p", Column(name: "id", keyPath: \Person.id),
                    Column(name: "ID", keyPath: \Person.age)))
        }
        #expect(throws: ORMError.self) { _ = try Storage(filename: "", personTable(), personTable(name: "other")) }
        #expect(throws: ORMError.self) { _ = try Storage(filename: "", Table<Person>(name: "empty", elements: [])) }
    }

    @Test func constraintViolationsSurfaceAsSQLiteErrors() throws {
        let storage = try Storage(
            filename: "",
            Table<Person>(
                name: "people",
                Column(name: "id", keyPath: \Person.id, constraints: primaryKey().autoincrement(), notNull()),
                Column(name: "name", keyPath: \Person.name, constraints: unique(), notNull()),
                Column(name: "nickname", keyPath: \Person.nickname, constraints: unique().onConflict().replace()),
                Column(name: "age", keyPath: \Person.age, constraints: notNull().onConflict().abort(), defaultValue(18))))
        try storage.syncSchema(preserve: true)
        try storage.insert(Person(id: 0, name: "a", nickname: "n", age: 1))
        #expect(throws: SQLiteError.self) { try storage.insert(Person(id: 0, name: "a", nickname: nil, age: 1)) }
        try storage.insert(Person(id: 0, name: "b", nickname: "n", age: 2)) // replaces "a" by the nickname
        #expect(try storage.select(\Person.name) == ["b"])
        let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'people'")
        #expect(sql?.contains("PRIMARY KEY AUTOINCREMENT") == true)
        #expect(sql?.contains("UNIQUE ON CONFLICT REPLACE") == true)
        #expect(sql?.contains("DEFAULT 18") == true)
    }
}

@Suite struct TransactionTests {
    @Test func closureCommitsOrRollsBack() throws {
        let storage = try peopleStorage()
        try storage.transaction { try storage.insert(Person(id: 0, name: "kept", nickname: nil, age: 1)) }
        struct Failure: Swift.Error {}
        #expect(throws: Failure.self) {
            try storage.transaction {
                try storage.insert(Person(id: 0, name: "lost", nickname: nil, age: 1))
                throw Failure()
            }
        }
        #expect(try storage.select(\Person.name) == ["kept"])
    }

    @Test func beginCommitAndRollback() throws {
        let storage = try peopleStorage()
        try storage.beginTransaction()
        try storage.insert(Person(id: 0, name: "one", nickname: nil, age: 1))
        try storage.commit()
        try storage.beginTransaction()
        try storage.insert(Person(id: 0, name: "two", nickname: nil, age: 1))
        try storage.rollback()
        #expect(try storage.select(\Person.name) == ["one"])
        #expect(throws: SQLiteError.self) { try storage.commit() }
    }
}
