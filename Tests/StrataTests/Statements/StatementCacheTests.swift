import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// The kernel's one statement cache and the keys a caller builds once.
@Suite struct StatementCacheTests {
    @Test func keysBuiltOnceAreFoundByIdentity() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a)")
        let key = StatementCacheKey(reusing: "INSERT INTO t VALUES(?)")
        var handles: Set<OpaquePointer> = []
        for value in 1...3 {
            try db.withStatement(cachedFor: key) { statement in
                handles.insert(statement.statementHandle)
                try statement.bindValue(value, toParameter: 1)
                try statement.run()
            }
        }
        #expect(handles.count == 1)
        #expect(try db.query("SELECT sum(a) FROM t") as Int? == 6)
        // Another key with the same SQL is another entry; a text key equals any text key of its SQL.
        #expect(StatementCacheKey(reusing: key.sql) != key)
        #expect(StatementCacheKey(sql: key.sql) == StatementCacheKey(sql: key.sql))
        #expect(StatementCacheKey(sql: key.sql) != key)
    }

    @Test func aBusyCachedStatementIsNotSharedWithANestedCall() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a); INSERT INTO t VALUES(1), (2)")
        let key = StatementCacheKey(reusing: "SELECT a FROM t ORDER BY a")
        let pairs: [[Int]] = try db.withStatement(cachedFor: key) { outer in
            var result: [[Int]] = []
            while try outer.step() {
                let inner: [Int] = try db.withStatement(cachedFor: key) { try $0.query() }
                result.append([outer.value(at: 0, as: Int.self) ?? 0] + inner)
            }
            return result
        }
        #expect(pairs == [[1, 1, 2], [2, 1, 2]])
    }

    @Test func aKeyedStatementFollowsASchemaChange() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 2)")
        let key = StatementCacheKey(reusing: "SELECT * FROM t")
        #expect(try db.withStatement(cachedFor: key) { try $0.query() as Row? }?.columnCount == 2)
        try db.execute("ALTER TABLE t ADD COLUMN c")
        let row = try db.withStatement(cachedFor: key) { try $0.query() as Row? }
        #expect(row?.columnCount == 3)
        #expect(row?.columns.map(\.name) == ["a", "b", "c"])
    }
}
