// swift-format-ignore-file
// (The README and article examples here are compared word for word; their layout is theirs.)
// The SQLHelpers, StrataSqueal and Migrations articles' Swift blocks, word for word between `DOC:begin Article N`
// markers. In this file `Database` is Squeal's (a `Connection`), as those articles write it.
import StrataSqueal
import Testing

extension READMEExamples {
    func sqlHelpers1() throws {
        // DOC:begin SQLHelpers 1
        let db = Database()
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
        let id = try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])

        struct Contact {
            let name: String?
            init(row: Statement) throws { name = row.stringValue("name") }
        }
        let named = try db.selectFrom("contacts", whereExpr: "name IS NOT NULL", orderBy: "name", block: Contact.init)
        try db.update("contacts", set: ["email": "amelia@example.com"], whereExpr: "id = ?", parameters: [id])
        let remaining = try db.countFrom("contacts")
        // DOC:end
        #expect(named.map(\.name) == ["Amelia Grey"])
        #expect(remaining == 1)
        #expect(try db.query("SELECT email FROM contacts") as String? == "amelia@example.com")
    }

    func strataSquealLanding() throws {
        // DOC:begin StrataSqueal 1
        let db = Database()
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT"])
        let id = try db.insertInto("contacts", values: ["name": "Amelia"])
        // DOC:end
        #expect(id == 1)
        #expect(try db.query("SELECT name FROM contacts WHERE id = ?", id) as String? == "Amelia")
    }

    func migrations() throws {
        let connection = try Connection(path: "garage.sqlite")
        // DOC:begin Migrations 2
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
        try migrator.runMigrationsIfNecessary(migrationSQLForSchemaVersion: { version in
            switch version {
            case 1: return "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)"
            default: return "CREATE INDEX cars_by_name ON cars(name)"
            }
        })
        // DOC:end
        #expect(migrator.currentSchemaVersion == 2)

        let db = Connection()
        // DOC:begin Migrations 3
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
                v2.execute { db in try db.run("DELETE FROM contacts WHERE name IS NULL") }
                v2.alterTable("contacts") { contacts in
                    contacts.alterColumn("name", setConstraints: ["NOT NULL"])
                    contacts.addColumn("url", type: .Text)
                }
            }
        }

        try AppSchema.migrate(db)                 // up to version 2
        try AppSchema.migrate(db, toVersion: 1)   // down: "url" goes, "name" may be NULL again, rows stay
        try AppSchema.migrate(db, toVersion: 0)   // down to an empty schema
        // DOC:end
        #expect(try db.queryUserVersionNumber() == 0)
        try AppSchema.migrate(db)
        try db.run("INSERT INTO contacts(name, email) VALUES('Ann', 'ANN@EXAMPLE.COM')")

        // DOC:begin Migrations 6
        let info = try db.tableInfoForTableNamed("contacts")
        print(info?.columnNames ?? [])        // ["id", "name", "email", "url"]
        print(info?["email"]?.notNull == true)
        // DOC:end
        #expect(printed.take() == [#"["id", "name", "email", "url"]"#, "true"])

        // DOC:begin Migrations 5
        try db.rebuildTable(
            named: "contacts",
            definition: #""id" INTEGER PRIMARY KEY, "email" TEXT NOT NULL"#,
            copying: [(column: "id", expression: #""id""#), (column: "email", expression: #"lower("email")"#)]
        )
        // DOC:end
        #expect(try db.query("SELECT email FROM contacts") as String? == "ann@example.com")

        let withSearch = Connection()
        let FourVersions = Schema(identifier: "contacts") { schema in
            schema.version(1) { v1 in
                v1.createTable("contacts") { contacts in
                    contacts.primaryKey("id")
                    contacts.column("name", type: .Text)
                    contacts.column("email", type: .Text)
                }
            }
            schema.version(2) { v2 in v2.execute { db in try db.run("INSERT INTO contacts(name, email) VALUES('Ann', 'ann@example.com')") } }
            // DOC:begin Migrations 4
            schema.version(3) { v3 in
                v3.createFTS5Table("contacts_fts", columns: ["name", "email"],
                                   options: FTS5Options(content: .external(table: "contacts", rowID: "id")))
            }
            schema.version(4) { v4 in v4.dropTable("contacts_fts") }
            // DOC:end
        }
        try FourVersions.migrate(withSearch, toVersion: 3)
        #expect(try withSearch.query("SELECT count(*) FROM sqlite_master WHERE name = 'contacts_fts'") as Int? == 1)
        try FourVersions.migrate(withSearch)
        #expect(try withSearch.query("SELECT count(*) FROM sqlite_master WHERE name = 'contacts_fts'") as Int? == 0)
    }
}
