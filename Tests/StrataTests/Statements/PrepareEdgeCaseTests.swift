import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
#if canImport(SQLite3)
import SQLite3
#endif

/// Preparing and opening at the edges: many empty statements, huge SQL, `file:` paths.
@Suite struct PrepareEdgeCaseTests {
    @Test func longRunsOfEmptyStatementsDoNotRecurse() throws {
        let connection = try Connection()
        let empties = String(repeating: ";", count: 200_000)
        try connection.execute(empties + "CREATE TABLE t(x);" + empties + "INSERT INTO t VALUES(1)" + empties)
        #expect(try connection.query(empties + "SELECT count(*) FROM t" + empties) as Int? == 1)
        try connection.execute(empties) // nothing to run
        #expect(throws: SQLiteError.self) { try connection.prepare(empties) }
    }

    /// SQLite's length limit (1e9 bytes by default, lowered here) holds each statement, not a
    /// script: a script longer than the limit used to fail at its first statement with
    /// "statement too long".
    @Test func theLengthLimitAppliesToEachStatementNotTheScript() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(x)")
        sqlite3_limit(connection.handle, SQLITE_LIMIT_SQL_LENGTH, 1_000)
        let script = (1...200).map { "INSERT INTO t VALUES(\($0));" }.joined(separator: "\n")
        #expect(script.utf8.count > 4_000)
        try connection.execute(script)
        #expect(try connection.query("SELECT count(*) FROM t") as Int? == 200)
        let long = "SELECT '" + String(repeating: "x", count: 1_000) + "'"
        #expect(sqliteError { try connection.execute(long) }?.code == SQLITE_TOOBIG)
        #expect(sqliteError { _ = try connection.prepare(long) }?.code == SQLITE_TOOBIG)
    }

    @Test func cachedStatementsArePreparedPersistent() throws {
        #expect(Connection.supportsPersistentPrepare == (sqlite3_libversion_number() >= 3_020_000))
        let connection = try Connection()
        #expect(try connection.query("SELECT 1") as Int? == 1)
        #expect(connection.cachedStatementCount == 1)
    }

    @Test func filePrefixedPathIsAPlainPathLikeSQift() throws {
        let name = "file:strata-test-\(UUID().uuidString).db?mode=memory"
        defer { try? FileManager.default.removeItem(atPath: name) }
        let connection = try makeConnection(.onDisk(name), executing: "CREATE TABLE t(x)")
        #expect(connection.fileName.hasSuffix("/" + name))
        #expect(FileManager.default.fileExists(atPath: name))
    }

    @Test func uriFlagOpensAURI() throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI
        let connection = try Connection(storageLocation: .onDisk("file:strata-uri-\(UUID().uuidString)?mode=memory"), flags: flags)
        try connection.execute("CREATE TABLE t(x)")
        #expect(connection.fileName == "")
    }
}
