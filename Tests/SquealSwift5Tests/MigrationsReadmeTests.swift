import Foundation
import Testing
import StrataSqueal

// Squeal's README "Migrations" example in Swift 5 language mode. The seed text we have lost some
// lines (the primary key, the index's first line, the alterColumn call, closing braces); they are
// restored from Squeal's published README. The code is otherwise unchanged.

// Define a Schema:
let AppSchema = Schema(identifier: "contacts") { schema in
    // Version 1:
    schema.version(1) { v1 in
        // Create a Table:
        v1.createTable("contacts") { contacts in
            contacts.primaryKey("id")
            contacts.column("name", type: .Text)
            contacts.column("email", type: .Text, constraints: ["NOT NULL"])
        }

        // Add an index
        v1.createIndex(
            "contacts_email",
            on: "contacts",
            columns: ["email"]
        )
    }

    // Version 2:
    schema.version(2) { v2 in
        // Arbitrary SQL:
        v2.execute { db in
            try db.deleteFrom("contacts", whereExpr: "name IS NULL")
        }
        // Tables can be altered in many ways.
        v2.alterTable("contacts") { contacts in
            contacts.alterColumn(
                "name",
                setConstraints: ["NOT NULL"]
            )
            contacts.addColumn("url", type: .Text)
        }
    }
}

@Test func readmeMigrationsInSwift5() throws {
    let db = Database()

    // Migrate to the latest version:
    let didMigrate = try AppSchema.migrate(db)
    #expect(didMigrate)

    // Get the database version:
    let migratedVersion = try db.queryUserVersionNumber()
    #expect(migratedVersion == 2)

    let info = try db.tableInfoForTableNamed("contacts")
    #expect(info?.columnNames == ["id", "name", "email", "url"])
    #expect(info?["name"]?.notNull == true)
    #expect(info?.indexNames == ["contacts_email"])
    #expect(try AppSchema.migrate(db) == false)

    // Reset the database:
    try AppSchema.migrate(db, toVersion: 0)
    #expect(try db.queryUserVersionNumber() == 0)
    #expect(db.schema.tableNames == [])
}

@Test func readmeMigrationsKeepsRowsAndDeletesNamelessContacts() throws {
    let db = Database()
    try AppSchema.migrate(db, toVersion: 1)
    _ = try db.insertInto("contacts", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
    _ = try db.insertInto("contacts", values: ["email": "nobody@gastrobot.xyz"])
    try AppSchema.migrate(db)
    let emails: [String] = try db.selectFrom("contacts", orderBy: "id") { $0.stringValue("email") ?? "" }
    #expect(emails == ["amelia@gastrobot.xyz"])
    // Squeal's ColumnType is what `ColumnType` means here.
    let type: ColumnType = .Text
    #expect(type.rawValue == "TEXT")
    let schemaColumn: Column = Column(name: "x", type: .Integer)
    #expect(schemaColumn.sqlRepresentation == "\"x\" INTEGER")

    // Down to 1: the url column goes, the rows stay.
    try AppSchema.migrate(db, toVersion: 1)
    #expect(try db.tableInfoForTableNamed("contacts")?.columnNames == ["id", "name", "email"])
    #expect(try db.countFrom("contacts") == 1)
}
