import Foundation
import StrataTestSupport
import Testing
import StrataSqueal

/// The helpers through `import StrataSqueal`, as Squeal code calls them.
@Suite struct HelpersTests {
    struct Contact {
        let id: Int64
        let name: String
        let email: String?
        init(row: Statement) throws {
            id = row.int64Value("id") ?? 0
            name = row.stringValue("full name") ?? ""
            email = row.stringValue("e-mail")
        }
    }

    func makeDatabase() throws -> Database {
        let db = Database()
        try db.createTable(
            "contact list",
            definitions: [
                "id INTEGER PRIMARY KEY",
                escapeIdentifier("full name") + " TEXT NOT NULL",
                escapeIdentifier("e-mail") + " TEXT",
                escapeIdentifier("group") + " TEXT"
            ])
        return db
    }

    @Test func squealCodeWithOddNamesAndHostileValues() throws {
        let db = try makeDatabase()
        let hostile = "'); DROP TABLE x; --"
        let id = try db.insertInto("contact list", values: ["full name": hostile, "e-mail": nil, "group": "a"])
        try db.insertInto("contact list", columns: ["full name", "group"], values: ["Bob", "b"])
        #expect(try db.update("contact list", set: ["e-mail": "bob@example.com"], whereExpr: escapeIdentifier("group") + " = ?", parameters: ["b"]) == 1)

        let contacts = try db.selectFrom("contact list", orderBy: "id", block: Contact.init)
        #expect(contacts.map(\.name) == [hostile, "Bob"])
        #expect(contacts.map(\.email) == [nil, "bob@example.com"])
        #expect(contacts.first?.id == id)
        #expect(try db.countFrom("contact list", whereExpr: escapeIdentifier("full name") + " = ?", parameters: [hostile]) == 1)
        #expect(try db.selectIdsFrom("contact list", whereExpr: escapeIdentifier("e-mail") + " IS NOT NULL") == [2])
        #expect(try db.deleteFrom("contact list", rowIds: [id]) == 1)
        #expect(try db.selectFirst("SELECT * FROM " + escapeIdentifier("contact list"), block: Contact.init)?.name == "Bob")
    }

    @Test func transactionsInSquealsSpelling() throws {
        let db = try makeDatabase()
        let result = try db.transaction { db -> TransactionResult in
            try db.insertInto("contact list", values: ["full name": "Amelia"])
            return .Rollback
        }
        #expect(result == .Rollback)
        #expect(try db.countFrom("contact list") == 0)
    }

    @Test func failingInsertThrowsSQLiteErrorWithSQLitesMessage() throws {
        let db = try makeDatabase()
        do {
            try db.insertInto("contact list", values: ["e-mail": "x"])
            Issue.record("a NOT NULL column left out must fail")
        } catch let error as SQLiteError {
            #expect(error.message.contains("NOT NULL constraint failed"))
        }
    }
}
