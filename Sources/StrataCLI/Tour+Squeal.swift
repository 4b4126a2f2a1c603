import Foundation
import Strata
import StrataSqueal

extension Tour {
    /// A Squeal-style row type: helper blocks receive the statement positioned on the row.
    struct Contact: CustomStringConvertible {
        let name: String?
        let email: String
        init(row: Statement) throws {
            name = row.stringValue("name")
            email = row.stringValue("email") ?? ""
        }
        var description: String { "Contact(name: \(name ?? "nil"), email: \(email))" }
    }

    /// Squeal's SQL helpers, then its schema DSL migrating up and down over table rebuilds.
    func squealTour(_ db: Connection) throws {
        section("SQL helpers (Squeal)")
        try db.createTable("contact list", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL"])
        let id = try db.insertInto("contact list", values: ["name": "Amelia Grey", "email": "amelia@gastrobot.xyz"])
        try db.insertInto("contact list", values: ["name": "'); DROP TABLE x; --", "email": "mallory@example.com"])
        show("insertInto(\"contact list\", values: [...]) -> rowid \(id); countFrom -> \(try db.countFrom("contact list"))")
        let contacts = try db.selectFrom("contact list", whereExpr: "name IS NOT NULL", orderBy: "id", block: Contact.init)
        contacts.forEach { show("\($0)") }
        let changed = try db.update("contact list", set: ["email": "amelia@example.com"], whereExpr: "id = ?", parameters: [id])
        show("update(...) changed \(changed) row; names are quoted, values bound (the hostile name is stored verbatim)")

        section("Schema DSL: migrate up and down (Squeal)")
        let schema = Schema(identifier: "notes") { schema in
            schema.version(1) { v1 in
                v1.createTable("notes") { notes in
                    notes.primaryKey("id")
                    notes.column("body", type: .Text)
                }
            }
            schema.version(2) { v2 in
                v2.alterTable("notes") { notes in
                    notes.addColumn("stars", type: .Integer, constraints: ["NOT NULL"], initialExpr: "0")
                    notes.alterColumn("body", setConstraints: ["NOT NULL"])
                }
            }
        }
        try schema.migrate(db, toVersion: 1)
        try db.insertInto("notes", values: ["body": "kept through every rebuild"])
        try schema.migrate(db)
        show("version \(try db.queryUserVersionNumber()): columns \(try db.tableInfoForTableNamed("notes")?.columnNames ?? [])")
        try schema.migrate(db, toVersion: 1)
        let body: String? = try db.query("SELECT body FROM notes")
        show(
            "back down to version \(try db.queryUserVersionNumber()): columns \(try db.tableInfoForTableNamed("notes")?.columnNames ?? []), body \(body ?? "nil")"
        )
    }
}
