import Foundation
import Testing
import StrataSqueal
import StrataTestSupport

/// Each DDL helper builds one statement around the caller's SQL fragments and runs exactly that
/// one: a fragment that ends it and starts another is refused before anything runs.
@Suite struct HelperSingleStatementTests {
    @Test func addColumnToTableRunsOneStatement() throws {
        let db = try SingleStatementFixture.makeDatabase()
        try SingleStatementFixture.expectRefused(db) { try db.addColumnToTable("t", column: "x TEXT; DROP TABLE users") }
        try SingleStatementFixture.expectRefused(db) { try db.addColumnToTable("t", column: "x TEXT;\nDROP TABLE users;") }
        // Trailing whitespace, comments and `;` end the one statement and are fine.
        try db.addColumnToTable("t", column: "x TEXT;  -- a note\n ; ")
        try db.addColumnToTable("t", column: "y TEXT /* why */")
        #expect(try db.tableInfoForTableNamed("t")?.columnNames == ["a", "x", "y"])
    }

    @Test func createTableRunsOneStatement() throws {
        let db = try SingleStatementFixture.makeDatabase()
        try SingleStatementFixture.expectRefused(db) {
            try db.createTable("new", definitions: ["id INTEGER", "x TEXT); DROP TABLE users; CREATE TABLE z (y"])
        }
        try db.createTable("new", definitions: ["id INTEGER", "x TEXT"])
        #expect(try db.tableInfoForTableNamed("new")?.columnNames == ["id", "x"])
    }

    @Test func createIndexRunsOneStatement() throws {
        let db = try SingleStatementFixture.makeDatabase()
        try SingleStatementFixture.expectRefused(db) {
            try db.createIndex("i", tableName: "t", columns: ["a"], partialExpr: "a > 0; DROP TABLE users")
        }
        try SingleStatementFixture.expectRefused(db) {
            try db.createIndex("i", tableName: "t", columns: ["a); DROP TABLE users; --"])
        }
        try db.createIndex("i", tableName: "t", columns: ["a"], partialExpr: "a > 0 ; -- positive")
        #expect(db.schema.namesOfIndexesOnTable("t") == ["i"])
    }
}
