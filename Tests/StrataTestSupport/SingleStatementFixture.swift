// A database that shows whether a refused statement changed anything, for the tests that a
// caller's SQL fragment cannot smuggle a second statement into the one that Squeal's DDL helpers
// (StrataSquealTests), the schema DSL or a table rebuild (StrataTests) run.
import Foundation
import StrataSQift
import Strata
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

public enum SingleStatementFixture {
    /// Tables `users` (one row) and `t(a INTEGER)`.
    public static func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES('Ann'); CREATE TABLE t(a INTEGER)")
        return db
    }

    /// Everything in the schema, and the row `users` holds.
    public static func snapshot(_ db: Connection) throws -> [String] {
        try db.query("SELECT type || '|' || name || '|' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
            + db.query("SELECT name FROM users")
    }

    /// Runs `body`, which must throw the refusal of a second statement and leave the database as it was.
    public static func expectRefused(_ db: Connection, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
        let before = try snapshot(db)
        var error: SQLiteError?
        do { try body() } catch let thrown as SQLiteError { error = thrown } catch {}
        #expect(error?.code == SQLITE_MISUSE, sourceLocation: sourceLocation)
        #expect(error?.message.contains("more than one statement") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(try snapshot(db) == before, "nothing dropped, nothing created", sourceLocation: sourceLocation)
    }
}
