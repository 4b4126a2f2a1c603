import Foundation
import Testing
import StrataSqueal

// Squeal-style migrations with `Database`, in Swift 6 language mode (a global schema constant
// must be Sendable there).

let contactsSchema = Schema(identifier: "contacts") { schema in
    schema.version(1) { v1 in
        v1.createTable("contacts") { contacts in
            contacts.primaryKey("id")
            contacts.column("name", type: .Text)
            contacts.column("email", type: .Text, constraints: ["NOT NULL"])
        }
        v1.createIndex("contacts_email", on: "contacts", columns: ["email"])
    }
    schema.version(2) { v2 in
        v2.execute { db in
            _ = try db.deleteFrom("contacts", whereExpr: "name IS NULL")
        }
        v2.alterTable("contacts") { contacts in
            contacts.alterColumn("name", setConstraints: ["NOT NULL"])
            contacts.addColumn("url", type: .Text)
        }
    }
}

@Suite struct MigrationTests {
    @Test func readmeMigrationsInSwift6() throws {
        let db = Database()
        #expect(try contactsSchema.migrate(db))
        #expect(try db.queryUserVersionNumber() == 2)
        #expect(try db.tableInfoForTableNamed("contacts")?.columnNames == ["id", "name", "email", "url"])
        #expect(try contactsSchema.migrate(db, toVersion: 0))
        #expect(try db.queryUserVersionNumber() == 0)
        #expect(db.schema.tableNames.isEmpty)
    }

    @Test func downAndUpKeepRowsAndSchema() throws {
        let db = Database()
        try contactsSchema.migrate(db)
        let latest = db.schema.schemaEntries.map { [$0.type, $0.name, $0.sql ?? ""] }
        _ = try db.insertInto("contacts", values: ["name": "Amelia", "email": "a@x", "url": "http://a"])
        try contactsSchema.migrate(db, toVersion: 1)
        #expect(try db.tableInfoForTableNamed("contacts")?["name"]?.notNull == false)
        #expect(try db.selectString("SELECT name FROM contacts") == "Amelia")
        try contactsSchema.migrate(db)
        #expect(db.schema.schemaEntries.map { [$0.type, $0.name, $0.sql ?? ""] } == latest)
        #expect(try db.selectString("SELECT email FROM contacts") == "a@x")
    }

    /// The README's rebuild after the migrations: the kept columns' rows go through their expressions.
    @Test func rebuildAfterMigratingDownKeepsRowsThroughTheirExpressions() throws {
        let db = Database()
        try contactsSchema.migrate(db)
        try db.insertInto("contacts", values: ["name": "Amelia", "email": "AMELIA@X.YZ", "url": "u"])
        #expect(try contactsSchema.migrate(db, toVersion: 1))
        #expect(try db.tableInfoForTableNamed("contacts")?.columnNames == ["id", "name", "email"])
        try db.rebuildTable(
            named: "contacts",
            definition: #""id" INTEGER PRIMARY KEY, "email" TEXT NOT NULL"#,
            copying: [(column: "id", expression: #""id""#), (column: "email", expression: #"lower("email")"#)]
        )
        #expect(try db.tableInfoForTableNamed("contacts")?.columnNames == ["id", "email"])
        #expect(try db.selectString("SELECT email FROM contacts") == "amelia@x.yz")
    }

    @Test func migrationErrorsUseSquealsName() throws {
        let db = Database()
        try db.updateUserVersionNumber(5)
        #expect(throws: SquealMigrationError.unknownDatabaseVersion(dbVersion: 5)) { try contactsSchema.migrate(db) }
        #expect(throws: SquealMigrationError.unreachableDatabaseVersion(fromVersion: 0, toVersion: 7)) {
            try contactsSchema.migrate(Database(), toVersion: 7)
        }
    }

    @Test func notNullConstraintOnExistingNullsRollsBack() throws {
        let db = Database()
        // Version 2's execute deletes nameless contacts first, so NOT NULL succeeds...
        try contactsSchema.migrate(db, toVersion: 1)
        _ = try db.insertInto("contacts", values: ["email": "nobody@x"])
        try contactsSchema.migrate(db)
        #expect(try db.countFrom("contacts") == 0)
        // ...while a schema without that step fails and leaves everything as it was.
        let strict = Schema { schema in
            schema.version(1) { v1 in v1.createTable("t") { t in t.column("name", type: .Text) } }
            schema.version(2) { v2 in v2.alterTable("t") { t in t.alterColumn("name", setConstraints: ["NOT NULL"]) } }
        }
        let other = Database()
        try strict.migrate(other, toVersion: 1)
        _ = try other.insertInto("t", values: ["name": nil])
        #expect(throws: SQLiteError.self) { try strict.migrate(other) }
        #expect(try other.queryUserVersionNumber() == 1)
        #expect(try other.countFrom("t") == 1)
    }
}
