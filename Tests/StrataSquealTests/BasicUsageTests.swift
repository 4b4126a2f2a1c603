import Foundation
import Testing
import StrataSqueal

/// Squeal's README "Basic Usage", as written there (its typos fixed: the missing brackets and
/// the table names `insertInto` and `selectFrom` need), through `import StrataSqueal`.
@Suite struct BasicUsageTests {
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

    @Test func readmeBasicUsage() throws {
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
        #expect(contacts.count == 1)
        // `SELECT *` has no `id` column (the table has only a rowid), so the README's `?? 0` applies.
        #expect(contacts.first?.id == 0)
        #expect(contacts.first?.name == "Amelia Grey")
        #expect(contacts.first?.email == "amelia@gastrobot.xyz")
        #expect(numberOfContacts == 1)
    }

    @Test func rowTypeIdiomReadsIdWhenSelected() throws {
        let db = Database()
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
        try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
        try db.insertInto("contacts", values: ["name": nil, "email": "anon@example.com"])
        let contacts = try db.selectFrom("contacts", whereExpr: "name IS NOT NULL", block: Contact.init)
        #expect(contacts.map(\.id) == [1])
        #expect(contacts.map(\.email) == ["amelia@gastrobot.xyz"])
    }

    @Test func rowTypeInitializerErrorsPropagate() throws {
        struct Strict {
            struct Missing: Error {}
            let name: String
            init(row: Statement) throws {
                guard let name = row.stringValue("name") else { throw Missing() }
                self.name = name
            }
        }
        let db = Database()
        try db.createTable("contacts", definitions: ["name TEXT"])
        try db.insertInto("contacts", values: ["name": nil])
        #expect(throws: Strict.Missing.self) {
            _ = try db.selectFrom("contacts", block: Strict.init)
        }
    }
}
