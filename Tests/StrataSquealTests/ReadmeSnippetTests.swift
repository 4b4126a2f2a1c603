import Foundation
import StrataSqueal
import Testing

/// The project README's Squeal examples, so the front door stays true.
@Suite struct ReadmeSnippetTests {
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

    @Test func readmeHelpersExample() throws {
        let db = Database()
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
        let contactId = try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
        let contacts = try db.selectFrom("contacts", whereExpr: "name IS NOT NULL", block: Contact.init)
        #expect(contacts.map(\.email) == ["amelia@gastrobot.xyz"])
        #expect(try db.countFrom("contacts") == 1)
        try db.update("contacts", set: ["email": "amelia@example.com"], whereExpr: "id = ?", parameters: [contactId])
        _ = try db.transaction { db in
            try db.deleteFrom("contacts", whereExpr: "email LIKE ?", parameters: ["%.xyz"])
            return .Commit
        }
        #expect(try db.countFrom("contacts") == 1)
    }

    @Test func readmeSchemaAndRebuildExample() throws {
        let AppSchema = Schema(identifier: "contacts") { schema in
            schema.version(1) { v1 in
                v1.createTable("contacts") { contacts in
                    contacts.primaryKey("id")
                    contacts.column("name", type: .Text)
                    contacts.column("email", type: .Text, constraints: ["NOT NULL"])
                }
                v1.createIndex("contacts_email", on: "contacts", columns: ["email"])
            }
            schema.version(2) { v2 in
                v2.execute { db in try db.deleteFrom("contacts", whereExpr: "name IS NULL") }
                v2.alterTable("contacts") { contacts in
                    contacts.alterColumn("name", setConstraints: ["NOT NULL"])
                    contacts.addColumn("url", type: .Text)
                }
            }
        }
        let db = Database()
        #expect(try AppSchema.migrate(db))
        #expect(try db.queryUserVersionNumber() == 2)
        try db.insertInto("contacts", values: ["name": "Amelia", "email": "AMELIA@X.YZ", "url": "u"])
        #expect(try AppSchema.migrate(db, toVersion: 1))
        #expect(try db.tableInfoForTableNamed("contacts")?.columnNames == ["id", "name", "email"])
        #expect(try db.countFrom("contacts") == 1)

        try db.rebuildTable(
            named: "contacts",
            definition: #""id" INTEGER PRIMARY KEY, "email" TEXT NOT NULL"#,
            copying: [(column: "id", expression: #""id""#), (column: "email", expression: #"lower("email")"#)]
        )
        #expect(try db.tableInfoForTableNamed("contacts")?.columnNames == ["id", "email"])
        #expect(try db.selectString("SELECT email FROM contacts") == "amelia@x.yz")
    }
}
