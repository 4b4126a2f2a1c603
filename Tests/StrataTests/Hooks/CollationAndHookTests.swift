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

@Suite struct CollationAndHookTests {
    @Test func readmeNumericCollation() throws {
        let connection = try Connection()
        connection.createCollation(named: "NUMERIC") { lhs, rhs in
            lhs.compare(rhs, options: .numeric, locale: .autoupdatingCurrent)
        }
        // The README names the table `values`, a keyword SQLite rejects unquoted.
        try connection.execute("CREATE TABLE \"values\"(text TEXT COLLATE 'NUMERIC' NOT NULL)")
        let values = ["string 1", "string 21", "string 12", "string 11", "string 02"]
        try values.forEach { try connection.run("INSERT INTO \"values\"(text) VALUES(?)", $0) }
        let extractedValues: [String] = try connection.query("SELECT * FROM \"values\" ORDER BY text")
        #expect(extractedValues == ["string 1", "string 02", "string 11", "string 12", "string 21"])
        connection.createCollation(named: "NUMERIC") { lhs, rhs in rhs.compare(lhs) }
        let reversed: [String] = try connection.query("SELECT text FROM \"values\" ORDER BY text COLLATE NUMERIC")
        #expect(reversed.first == "string 21")
    }

    @Test func readmeHooks() throws {
        let connection = try makeConnection(executing: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
        var messages: [String] = []
        connection.updateHook { type, databaseName, tableName, rowID in
            var message = "\(type) row \(rowID)"
            if let databaseName { message += " on \(databaseName)" }
            if let tableName { message += ".\(tableName)" }
            messages.append(message)
        }
        try connection.execute(
            """
            INSERT INTO person(name) VALUES('Phil Knight');
            UPDATE person SET name = 'Bill Bowerman' WHERE id = 1;
            DELETE FROM person WHERE id = 1
            """)
        #expect(messages == ["insert row 1 on main.person", "update row 1 on main.person", "delete row 1 on main.person"])
        connection.updateHook(nil)
        try connection.execute("INSERT INTO person(name) VALUES('x')")
        #expect(messages.count == 3)

        var shouldCancelCommit = false
        var rollbacks = 0
        connection.commitHook { shouldCancelCommit }
        connection.rollbackHook { rollbacks += 1 }
        try connection.transaction { try connection.run("INSERT INTO person(name) VALUES('kept')") }
        shouldCancelCommit = true
        let error = sqliteError { try connection.transaction { try connection.run("INSERT INTO person(name) VALUES('dropped')") } }
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(rollbacks == 1)
        #expect(try connection.query("SELECT count(*) FROM person WHERE name = 'dropped'") == 0)
        connection.commitHook(nil)
        connection.rollbackHook(nil)
        try connection.transaction { try connection.run("INSERT INTO person(name) VALUES('ok')") }
        #expect(connection.callbackBoxes.isEmpty)
    }

    @Test func readmeSelectOnlyAuthorizer() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(a)")
        var seen: [Connection.AuthorizerAction] = []
        try connection.authorizer { action, _, _, _, _ in
            seen.append(action)
            guard action == .select else { return .deny }
            return .ok
        }
        #expect(try connection.query("SELECT 1") == 1)
        let denied = sqliteError { try connection.execute("CREATE TABLE u(b)") }
        #expect(denied?.code == SQLITE_AUTH)
        #expect(denied?.message == "not authorized")
        // Reading a column is a separate `.read` action, which this authorizer also denies.
        #expect(sqliteError { let _: Int? = try connection.query("SELECT a FROM t") }?.message == "access to t.a is prohibited")
        #expect(seen.contains(.read) && seen.contains(.insert))
        try connection.authorizer(nil)
        try connection.execute("CREATE TABLE u(b)")
        #expect(Connection.AuthorizerAction.allCases.count == 34)
        #expect(Connection.AuthorizerResult.custom(SQLITE_IGNORE) == .custom(2))
    }
}
