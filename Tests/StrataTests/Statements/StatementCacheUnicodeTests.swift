import Foundation
import StrataSQift
import Strata
import Testing

/// Canonically equivalent SQL (and names) that SQLite tells apart are separate cached statements.
/// The statement cache filed statements under their SQL as a Swift `String`, which is equal to
/// any canonically equivalent string: `SELECT 'é'` written with U+00E9 and with e + U+0301 shared
/// one prepared statement, so the second query returned the first one's bytes (found by the
/// ten-fold string-literal property run in CI).
@Suite struct StatementCacheUnicodeTests {
    @Test func canonicallyEquivalentSQLIsNotOneStatement() throws {
        let connection = try Connection()
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(composed == decomposed) // Swift's String equality, the trap
        let first: Data? = try connection.query("SELECT CAST('\(composed)' AS BLOB)")
        let second: Data? = try connection.query("SELECT CAST('\(decomposed)' AS BLOB)")
        #expect(first == Data(composed.utf8))
        #expect(second == Data(decomposed.utf8))
        // Names too: two tables SQLite tells apart, each queried through the cache.
        try connection.execute("CREATE TABLE \"\(composed)\"(v); CREATE TABLE \"\(decomposed)\"(v)")
        try connection.run("INSERT INTO \"\(composed)\" VALUES ('composed')")
        try connection.run("INSERT INTO \"\(decomposed)\" VALUES ('decomposed')")
        let a: String? = try connection.query("SELECT v FROM \"\(composed)\"")
        let b: String? = try connection.query("SELECT v FROM \"\(decomposed)\"")
        #expect(a == "composed")
        #expect(b == "decomposed")
    }
}
