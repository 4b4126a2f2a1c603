// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The README's and the Examples article's examples for `import StrataSqueal`. In this file `Database` is Squeal's (a
// `Connection`), as the README says of a file that imports StrataSqueal.
import StrataSqueal

extension READMEExamples {
    func squealExample7() throws {
        // README:begin 7
        let db = Database()                       // Squeal's Database is a Strata Connection
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
        let id = try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
        let emails = try db.selectFrom("contacts", whereExpr: "id = ?", parameters: [id]) { $0.stringValue("email") ?? "" }
        print(emails, try db.countFrom("contacts"))   // ["amelia@gastrobot.xyz"] 1
        // README:end
    }

    func squealExample11() throws {
        // DOC:begin Examples 7
        let db = Database()                       // Squeal's Database is a Strata Connection
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
        let contactId = try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])

        struct Contact {
            let id: Int
            let name: String?
            let email: String
            init(row: Statement) throws {         // blocks receive the statement, positioned on the row
                id = row.intValue("id") ?? 0
                name = row.stringValue("name")
                email = row.stringValue("email") ?? ""
            }
        }
        let contacts = try db.selectFrom("contacts", whereExpr: "name IS NOT NULL", block: Contact.init)
        let count = try db.countFrom("contacts")
        print(contacts.map(\.email), count)       // ["amelia@gastrobot.xyz"] 1
        try db.update("contacts", set: ["email": "amelia@example.com"], whereExpr: "id = ?", parameters: [contactId])
        try db.transaction { db in
            try db.deleteFrom("contacts", whereExpr: "email LIKE ?", parameters: ["%.xyz"])
            return .Commit
        }
        print(try db.countFrom("contacts"))       // 1: the address changed, so nothing matched
        // DOC:end
    }

    func squealExample12() throws -> Database {
        // DOC:begin Examples 8
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
                    contacts.alterColumn("name", setConstraints: ["NOT NULL"])   // a table rebuild
                    contacts.addColumn("url", type: .Text)                       // ALTER TABLE ADD COLUMN
                }
            }
        }

        let db = Database()
        try AppSchema.migrate(db)                 // true: now at version 2
        print(try db.queryUserVersionNumber())    // 2
        try AppSchema.migrate(db, toVersion: 1)   // down: "url" removed, NOT NULL lifted, rows kept
        try AppSchema.migrate(db, toVersion: 0)   // down to nothing
        try AppSchema.migrate(db)                 // and up again, to version 2
        print(try db.tableInfoForTableNamed("contacts")?.columnNames ?? [])   // ["id", "name", "email", "url"]
        // DOC:end
        return db
    }

    func squealExample13(db: Database) throws {
        // DOC:begin Examples 9
        try db.rebuildTable(
            named: "contacts",
            definition: #""id" INTEGER PRIMARY KEY, "email" TEXT NOT NULL"#,    // drops "name" and "url"
            copying: [(column: "id", expression: #""id""#), (column: "email", expression: #"lower("email")"#)]
        )
        let columns = try db.tableInfoForTableNamed("contacts")?.columnNames
        print(columns ?? [])   // ["id", "email"]
        // DOC:end
    }
}
