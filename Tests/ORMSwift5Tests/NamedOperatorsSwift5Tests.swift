// SQLiteORM-Swift's named operator forms, in Swift 5 mode, as its own suite writes them.
import Foundation
import Testing
import StrataORM

@Suite struct NamedOperatorsSwift5Tests {
    @Test func namedFormsFilterAndCompute() throws {
        let (directory, path) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try makeStorage(path: path)
        try storage.syncSchema(preserve: false)
        let john = User(id: 1, firstName: "John", lastName: "Doe", birthDate: 664416000, imageUrl: nil, typeId: 3)
        let alice = User(id: 2, firstName: "Alice", lastName: "Inwonder", birthDate: 831168000, imageUrl: "url", typeId: 2)
        try storage.replace(object: john)
        try storage.replace(object: alice)
        let older: [User] = try storage.getAll(where_(lesserThan(lhs: \User.birthDate, rhs: 700000000)))
        #expect(older.map(\.firstName) == ["John"])
        let both: [User] = try storage.getAll(where_(or(equal(lhs: \User.id, rhs: 1), equal(lhs: \User.typeId, rhs: 2))))
        #expect(both.count == 2)
        let names: [String] = try storage.select(\User.firstName, where_(equal(lhs: conc(\User.lastName, "!"), rhs: "Doe!")))
        #expect(names == ["John"])
        let ids: [Int] = try storage.select(\User.id, where_(greaterOrEqual(lhs: add(\User.typeId, 1), rhs: 4)))
        #expect(ids == [1])
    }

    @Test func scalarFunctionsAndOrderingModifiers() throws {
        let (directory, path) = try temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try makeStorage(path: path)
        try storage.syncSchema(preserve: false)
        try storage.replace(object: User(id: 1, firstName: "John", lastName: "Doe", birthDate: 664416000, imageUrl: nil, typeId: 3))
        try storage.replace(object: User(id: 2, firstName: "alice", lastName: "Inwonder", birthDate: 831168000, imageUrl: "url", typeId: 2))
        let heads: [String?] = try storage.select(substr(\User.firstName, 1, 2), from(User.self), orderBy(\User.id))
        #expect(heads == ["Jo", "al"])
        let tails: [String?] = try storage.select(substring(\User.lastName, 2), from(User.self), orderBy(\User.id))
        #expect(tails == ["oe", "nwonder"])
        let urls: [String?] = try storage.select(ifnull(\User.imageUrl, "none"), from(User.self), orderBy(\User.id))
        #expect(urls == ["none", "url"])
        let byName: [User] = try storage.getAll(orderBy(\User.firstName).collate("NOCASE").asc())
        #expect(byName.map(\.firstName) == ["alice", "John"])
        let nullsLast: [User] = try storage.getAll(orderBy(\User.imageUrl).nullsLast())
        #expect(nullsLast.map(\.id) == [2, 1])
        let nullsFirst: [User] = try storage.getAll(orderBy(\User.imageUrl).desc().nullsFirst())
        #expect(nullsFirst.map(\.id) == [1, 2])
    }
}
