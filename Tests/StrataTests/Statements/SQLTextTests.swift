import Foundation
import Testing
@testable import Strata

/// The kernel's one place for SQL text.
@Suite struct SQLTextTests {
    @Test func quotingAndLiterals() {
        #expect(quoteIdentifier("order") == "\"order\"")
        #expect(quoteIdentifier("a \"b\"") == "\"a \"\"b\"\"\"")
        #expect(quoteStringLiteral("it's") == "'it''s'")
        #expect("it's".sqift.addingSQLEscapes() == "'it''s'")
        #expect(sqlLiteral(.text("a'b")) == "'a''b'")
        #expect(sqlLiteral(.blob(Data([0xAB, 0x01]))) == "X'AB01'")
        #expect(sqlLiteral(.real(.nan)) == "NULL")
        #expect(sqlLiteral(.integer(-3)) == "-3")
    }

    @Test func builders() throws {
        #expect(placeholders(0) == "" && placeholders(3) == "?, ?, ?")
        #expect(insertSQL(into: "my table", columns: ["a", "b"]) == #"INSERT INTO "my table" ("a", "b") VALUES (?, ?)"#)
        #expect(insertSQL(into: "t", columns: []) == #"INSERT INTO "t" DEFAULT VALUES"#)
        #expect(insertSQL(into: "t", columns: ["a"], verb: "INSERT OR REPLACE") == #"INSERT OR REPLACE INTO "t" ("a") VALUES (?)"#)
        #expect(assignmentList(["a", "b"]) == #""a" = ?, "b" = ?"#)
        // What the builders write runs.
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(#"CREATE TABLE "my table"(a, b)"#)
        try db.run(insertSQL(into: "my table", columns: ["a", "b"]), 1, "x")
        try db.run("UPDATE \(quoteIdentifier("my table")) SET \(assignmentList(["b"]))", "y")
        #expect(try db.query(#"SELECT b FROM "my table""#) as String? == "y")
    }

    @Test func identifiersCompareAsSQLiteDoes() {
        #expect(isPlainIdentifier("_a1") && !isPlainIdentifier("1a") && !isPlainIdentifier("a b"))
        #expect(sameIdentifier("People", "PEOPLE"))
        #expect(!sameIdentifier("straße", "STRASSE"))
    }
}
