import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
import StrataTestSupport

/// The DSL's `constraints` and `partialExpr` are SQL fragments: each step's statement runs alone,
/// so a fragment that ends it and starts another fails the migration, which changes nothing.
@Suite struct SchemaSingleStatementTests {
    @Test(arguments: ["column constraints", "table constraint", "partial index", "added column"])
    func stackedSQLInTheDSLIsRefused(place: String) throws {
        let db = try SingleStatementFixture.makeDatabase()
        let stacked = "); DROP TABLE users; CREATE TABLE z (y"
        let schema = Schema(identifier: "stacked") { schema in
            schema.version(1) { v1 in
                v1.createTable("declared") { t in t.column("a", type: .Integer) }
            }
            schema.version(2) { v2 in
                switch place {
                case "column constraints":
                    v2.createTable("new") { t in t.column("a", type: .Integer, constraints: ["NOT NULL" + stacked]) }
                case "table constraint":
                    v2.createTable("new") { t in
                        t.column("a", type: .Integer)
                        t.constraint("CHECK (a > 0)" + stacked)
                    }
                case "partial index":
                    v2.createIndex("i", on: "declared", columns: ["a"], partialExpr: "a > 0; DROP TABLE users")
                default:
                    v2.alterTable("declared") { t in t.addColumn("b", type: .Text, constraints: ["DEFAULT 'x'; DROP TABLE users"]) }
                }
            }
        }
        try schema.migrate(db, toVersion: 1)
        let before = try SingleStatementFixture.snapshot(db)
        let error = try #require(sqliteError { _ = try schema.migrate(db) })
        #expect(error.message.contains("more than one statement"), "\(error)")
        #expect(try SingleStatementFixture.snapshot(db) == before)
        #expect(try db.query("PRAGMA user_version") as Int? == 1)
    }
}
