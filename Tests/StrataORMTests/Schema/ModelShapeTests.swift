import Foundation
import Testing
import StrataORM

/// Observed, nested and class-based models read and write through their key paths correctly.
struct Observed: Initializable {
    var id = 0
    var name = "" { didSet { nameChanges += 1 } }
    var nameChanges = 0
    var address = Address()

    struct Address { var city = "" }
}

final class Account: Initializable {
    var id = 0
    var owner = ""
    var balance: Double?
    init() {}
}

@Suite struct ModelShapeTests {
    @Test func propertyObserversRunWhenObjectsAreRead() throws {
        let storage = try temporaryStorage(
            keyedTable(
                "observed", key: \Observed.id, Column(name: "name", keyPath: \Observed.name),
                Column(name: "city", keyPath: \Observed.address.city)))
        var object = Observed()
        object.name = "n"
        object.address.city = "Zürich"
        try storage.insert(object)
        let read = try storage.getAll(all: Observed.self)
        #expect(read.count == 1)
        #expect(read.first?.name == "n")
        #expect(read.first?.nameChanges == 1)
        #expect(read.first?.address.city == "Zürich")
    }

    @Test func classModelsWork() throws {
        let storage = try temporaryStorage(
            keyedTable(
                "accounts", key: \Account.id, Column(name: "owner", keyPath: \Account.owner, constraints: notNull()),
                Column(name: "balance", keyPath: \Account.balance)))
        let account = Account()
        account.owner = "O'Hara"
        account.balance = 12.5
        account.id = Int(try storage.insert(account))
        account.balance = nil
        try storage.update(account)
        let read: Account? = try storage.get(id: account.id)
        #expect(read?.owner == "O'Hara")
        #expect(read?.balance == nil)
        #expect(read !== account)
    }
}
