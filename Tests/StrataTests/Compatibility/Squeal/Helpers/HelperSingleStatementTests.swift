import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Each DDL helper builds one statement around the caller's SQL fragments and runs exactly that
/// one: a fragment that ends it and starts another is refused before anything runs.
@Suite struct HelperSingleStatementTests {
    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES('Ann'); CREATE TABLE t(a INTEGER)")
        return db
    }

    /// Everything in the schema, and the row `users` holds.
    static func snapshot(_ db: Connection) throws -> [String] {
        try db.query("SELECT type || '|' || name || '|' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
            + db.query("SELECT name FROM users")
    }

    /// Runs `body`, which must throw the helpers' refusal and leave the database as it was.
    static func expectRefused(_ db: Connection, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
        let before = try snapshot(db)
        let error = sqliteError(body)
        #expect(error?.code == SQLITE_MISUSE, sourceLocation: sourceLocation)
        #expect(error?.message.contains("more than one statement") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(try snapshot(db) == before, "nothing dropped, nothing created", sourceLocation: sourceLocation)
    }

    @Test func addColumnToTableRunsOneStatement() throws {
        let db = try makeDatabase()
        try Self.expectRefused(db) { try db.addColumnToTable("t", column: "x TEXT; DROP TABLE users") }
        try Self.expectRefused(db) { try db.addColumnToTable("t", column: "x TEXT;\nDROP TABLE users;") }
        // Trailing whitespace, comments and `;` end the one statement and are fine.
        try db.addColumnToTable("t", column: "x TEXT;  -- a note\n ; ")
        try db.addColumnToTable("t", column: "y TEXT /* why */")
        #expect(try db.tableInfoForTableNamed("t")?.columnNames == ["a", "x", "y"])
    }

    @Test func createTableRunsOneStatement() throws {
        let db = try makeDatabase()
        try Self.expectRefused(db) {
            try db.createTable("new", definitions: ["id INTEGER", "x TEXT); DROP TABLE users; CREATE TABLE z (y"])
        }
        try db.createTable("new", definitions: ["id INTEGER", "x TEXT"])
        #expect(try db.tableInfoForTableNamed("new")?.columnNames == ["id", "x"])
    }

    @Test func createIndexRunsOneStatement() throws {
        let db = try makeDatabase()
        try Self.expectRefused(db) {
            try db.createIndex("i", tableName: "t", columns: ["a"], partialExpr: "a > 0; DROP TABLE users")
        }
        try Self.expectRefused(db) {
            try db.createIndex("i", tableName: "t", columns: ["a); DROP TABLE users; --"])
        }
        try db.createIndex("i", tableName: "t", columns: ["a"], partialExpr: "a > 0 ; -- positive")
        #expect(db.schema.namesOfIndexesOnTable("t") == ["i"])
    }
}
