import Foundation
import Testing
import StrataSqueal

// Squeal's README "Basic Usage" in Swift 5 language mode, changed only where the README's code
// could not compile (missing brackets; `insertInto` and `selectFrom` lacked their table name).

struct Contact {
    let id: Int
    let name: String?
    let email: String
    init(row: Statement) throws {
        id = row.intValue("id") ?? 0
        name = row.stringValue("name")
        email = row.stringValue("email") ?? ""
    }
}

@Test func readmeBasicUsageInSwift5() throws {
    let db = Database()

    // Create:
    try db.createTable(
        "contacts",
        definitions: [
            "name TEXT",
            "email TEXT NOT NULL"
        ])

    // Insert:
    let contactId = try db.insertInto(
        "contacts",
        values: [
            "name": "Amelia Grey",
            "email": "amelia@gastrobot.xyz"
        ]
    )

    // Select:
    let contacts: [Contact] = try db.selectFrom(
        "contacts",
        whereExpr: "name IS NOT NULL",
        block: Contact.init
    )

    // Count:
    let numberOfContacts = try db.countFrom("contacts")

    #expect(contactId == 1)
    // `SELECT *` has no `id` column (the table has only a rowid), so the README's `?? 0` applies.
    #expect(contacts.map { $0.id } == [0])
    #expect(contacts.map { $0.name } == ["Amelia Grey"])
    #expect(contacts.map { $0.email } == ["amelia@gastrobot.xyz"])
    #expect(numberOfContacts == 1)
}

@Test func rowTypeIdiomReadsIdWhenSelectedInSwift5() throws {
    let db = Database()
    try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
    try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
    try db.insertInto("contacts", values: ["name": nil, "email": "anon@example.com"])
    let contacts = try db.selectFrom("contacts", whereExpr: "name IS NOT NULL", block: Contact.init)
    #expect(contacts.map(\.id) == [1])
    #expect(contacts.map(\.email) == ["amelia@gastrobot.xyz"])
}

@Test func squealTransactionAndSavepointSpellingsInSwift5() throws {
    let db = Database()
    try db.createTable("contacts", definitions: ["name TEXT"])
    try db.transaction { db in
        try db.insertInto("contacts", values: ["name": "kept"])
        return .Commit
    }
    try db.transaction { db in
        try db.insertInto("contacts", values: ["name": "dropped"])
        return .Rollback
    }
    try db.savepoint("inner") { db in
        try db.insertInto("contacts", values: ["name": "undone"])
        return .Rollback
    }
    // SQift's spelling still resolves beside Squeal's.
    try db.transaction {
        try db.run("INSERT INTO contacts VALUES (?)", "sqift")
    }
    let names = try db.selectFrom("contacts", orderBy: "rowid") { $0.stringValue("name") ?? "" }
    #expect(names == ["kept", "sqift"])
    #expect(!db.isInTransaction)
}

@Test func databaseNameIsSquealsInSwift5() throws {
    let db: Database = Database()
    let connection: Connection = db
    #expect(connection.isInMemoryDatabase)
    let temporary = Database.newTemporaryDatabase()
    #expect(temporary.isTemporaryDatabase)
    let sqift = try Strata.Database(storageLocation: .inMemory)
    try sqift.executeWrite { connection in try connection.execute("CREATE TABLE t(x)") }
}
