import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// The user's trace, profile and authorizer callbacks hear the statements the program ran (and
/// those a Strata call runs for it), never Strata's own bookkeeping.
@Suite struct TraceBookkeepingTests {
    @Test func traceOnAWarmIntrospectionCacheWithAnObservationSeesOnlyTheTestsStatements() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let database = try Database(storageLocation: .onDisk(path))
        try database.executeWrite { try $0.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)") }
        let counts = Locked<[Int]>([])
        let token = database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { result in
            if case .success(let count) = result { counts.withLock { $0.append(count) } }
        }
        defer { token.cancel() }

        let (traced, authorized) = try database.executeWrite { db -> ([String], [String]) in
            #expect(try db.tableInfoForTableNamed("t")?.columnNames == ["id", "name"]) // a warm cache
            // Another connection moves the schema version, so the next introspection reads again.
            try Connection(storageLocation: .onDisk(path)).execute("CREATE TABLE other(x)")
            var traced: [String] = []
            var authorized: [String] = []
            db.traceEvent { event in
                switch event {
                case .statement(let statement, _): traced.append("statement \(statement)")
                case .profile(let statement, _): traced.append("profile \(statement)")
                case .row(let statement): traced.append("row \(statement)")
                case .connectionClosed: traced.append("closed")
                }
            }
            try db.authorizer { action, first, _, _, _ in
                authorized.append("\(action) \(first ?? "")")
                return .ok
            }
            // A layer's lookup of `t` (Squeal's helpers quote a name through it) reads the moved
            // schema again, unseen.
            #expect(try db.schemaReader.table(named: "t", includingViews: true) != nil)
            #expect(try db.query(#"SELECT count(*) FROM "t""#) as Int? == 0)
            try db.run("INSERT INTO t(name) VALUES(?)", "a")
            #expect(try db.foreignKeysEnabled() == false)
            let names: [String] = try db.query("SELECT name FROM t")
            #expect(names == ["a"])
            db.traceEvent(closure: nil)
            try db.authorizer(nil)
            return (traced, authorized)
        }
        // SQLite may profile the count twice (it re-prepares it for the moved schema).
        #expect(
            traced.filter { $0.hasPrefix("statement ") } == [
                #"statement SELECT count(*) FROM "t""#,
                "statement INSERT INTO t(name) VALUES('a')",
                "statement SELECT name FROM t"
            ])
        #expect(traced.allSatisfy { !$0.contains("sqlite_") && !$0.lowercased().contains("pragma") }, "\(traced)")
        #expect(authorized.allSatisfy { !$0.contains("sqlite_master") && !$0.hasPrefix("pragma") }, "\(authorized)")
        #expect(authorized.contains { $0.hasPrefix("insert t") }, "\(authorized)")
        // The observation kept running beside it.
        let deadline = Date().addingTimeInterval(60)
        while !counts.current.contains(1), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(counts.current.contains(1))
    }

    @Test func aHelpersOwnStatementStillReachesTheTrace() throws {
        let db = try makeConnection(executing: "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT)")
        _ = try db.tableInfoForTableNamed("contacts")
        var traced: [String] = []
        db.trace { traced.append($0) }
        // The one-statement runner that layers' DDL goes through (Squeal's `addColumnToTable`, say).
        try db.runSingleStatement(TableDefinition.addColumnSQL(table: "contacts", definition: "email TEXT"))
        db.trace(nil)
        #expect(traced.count == 1)
        #expect(traced.first?.contains("ALTER TABLE") == true)
    }

    @Test func anIntrospectionTheUserAsksForIsTheUsersButItsCacheCheckIsNot() throws {
        let db = try makeConnection(executing: "CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT)")
        var traced: [String] = []
        db.trace { traced.append($0) }
        _ = try db.readSchema() // reads sqlite_master for the program
        _ = try db.readSchema() // answered from the cache after a version check
        db.trace(nil)
        #expect(traced == ["SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_master ORDER BY rowid"])
        // A user authorizer may deny such a read; the error reaches the caller.
        let denied = try makeConnection(executing: "CREATE TABLE t(x)")
        try denied.authorizer { action, _, _, _, _ in action == .read ? .deny : .ok }
        #expect(throws: SQLiteError.self) { try denied.readSchema() }
    }
}
