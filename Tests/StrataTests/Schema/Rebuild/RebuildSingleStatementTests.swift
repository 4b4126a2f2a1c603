import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
import StrataTestSupport

/// A rebuild's definition, options and copy expressions are the caller's SQL fragments: each
/// statement the rebuild builds from them runs alone, and a fragment that ends it and starts
/// another is refused, the database left as it was.
@Suite struct RebuildSingleStatementTests {
    @Test func stackedSQLInARebuildIsRefused() throws {
        let db = try SingleStatementFixture.makeDatabase()
        try db.run("INSERT INTO t VALUES(?)", 5)
        try SingleStatementFixture.expectRefused(db) {
            try db.rebuildTable(named: "t", definition: "a INTEGER); DROP TABLE users; CREATE TABLE q (b", copying: [("a", "a")])
        }
        try SingleStatementFixture.expectRefused(db) {
            try db.rebuildTable(named: "t", definition: "a INTEGER", copying: [("a", "a")], tableOptions: "STRICT; DROP TABLE users")
        }
        try SingleStatementFixture.expectRefused(db) {
            try db.rebuildTable(named: "t", definition: "a INTEGER", copying: [("a", "a FROM t; DROP TABLE users; SELECT a")])
        }
        #expect(try db.query("SELECT a FROM t") as Int? == 5)
        // The same rebuild without the stacked statement goes through.
        try db.rebuildTable(named: "t", definition: "a INTEGER NOT NULL", copying: [("a", "a")], tableOptions: "STRICT")
        #expect(try db.query("SELECT a FROM t") as Int? == 5)
        #expect(try db.tableInfoForTableNamed("t")?["a"]?.notNull == true)
    }
}
