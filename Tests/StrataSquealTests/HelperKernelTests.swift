import Foundation
import StrataTestSupport
import Testing
import StrataSqueal

/// The helpers over the kernel's machinery: the insert plan kept per connection, the statement
/// cache's byte-exact keys, the table definition's SQL, and SQLite's conversions in the getters.
/// (Moved from StrataTests with the helpers, which now live in StrataSqueal.)
@Suite struct HelperKernelTests {
    /// Squeal's insert plan is per-connection state (a kernel `ConnectionSlot`): rows with the
    /// same keys reuse it, and it stays right when another connection changes the table under it.
    @Test func theInsertPlanFollowsAnotherConnectionsSchemaChange() throws {
        let files = try TwoConnections(named: "insert.sqlite")
        let (mine, other) = (files.mine, files.other)
        try mine.execute("CREATE TABLE t(a, b)")
        try mine.insertInto("t", values: ["a": 1, "b": 2])
        try mine.insertInto("t", values: ["a": 3, "b": 4])
        try other.execute("DROP TABLE t; CREATE TABLE t(b, c DEFAULT 9, a)")
        try mine.insertInto("t", values: ["a": 5, "b": 6])
        try mine.insertInto("t", values: ["a": 7, "b": 8])
        let rows: [[Int]] = try mine.query("SELECT a, b, c FROM t ORDER BY a") { row in
            [row["a"] as Int? ?? -1, row["b"] as Int? ?? -1, row["c"] as Int? ?? -1]
        }
        #expect(rows == [[5, 6, 9], [7, 8, 9]])
    }

    /// The insert helper remembers its last table and statement: two table names that Swift's
    /// `String` calls equal (U+00E9 and e + U+0301) but SQLite tells apart stay two tables.
    @Test func canonicallyEquivalentTableNamesAreTwoInsertPlans() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(composed == decomposed) // Swift's String equality, the trap
        try connection.execute("CREATE TABLE \"\(composed)\"(v); CREATE TABLE \"\(decomposed)\"(v)")
        try connection.insertInto(composed, values: ["v": "by insertInto, composed"])
        try connection.insertInto(decomposed, values: ["v": "by insertInto, decomposed"])
        let composedRows: [String] = try connection.query("SELECT v FROM \"\(composed)\" ORDER BY rowid")
        let decomposedRows: [String] = try connection.query("SELECT v FROM \"\(decomposed)\" ORDER BY rowid")
        #expect(composedRows == ["by insertInto, composed"])
        #expect(decomposedRows == ["by insertInto, decomposed"])
    }

    @Test func squealHelpersKeepTheirSQL() throws {
        let db = Database()
        var traced: [String] = []
        db.trace { traced.append($0) }
        try db.createTable(#"con"tacts"#, definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "UNIQUE (name)"], ifNotExists: true)
        try db.createTable("plain", definitions: ["x"])
        try db.addColumnToTable("plain", column: "y TEXT NOT NULL DEFAULT 'a'")
        db.trace(nil)
        #expect(
            traced == [
                #"CREATE TABLE IF NOT EXISTS "con""tacts" (id INTEGER PRIMARY KEY, name TEXT, UNIQUE (name))"#,
                #"CREATE TABLE "plain" (x)"#,
                #"ALTER TABLE "plain" ADD COLUMN y TEXT NOT NULL DEFAULT 'a'"#
            ])
    }

    /// A NUMERIC column stores whole amounts as INTEGER; Squeal's getters read them back as the
    /// `Double` that was written.
    @Test func squealGettersReadIntegersAsDouble() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC NOT NULL);
            INSERT INTO payments (amount) VALUES (32.00), (16.75), (9007199254740992);
            """)
        let expected: [Double] = [32.0, 16.75, 9_007_199_254_740_992.0]
        let amounts = try db.selectFrom("payments", orderBy: "id") { $0.doubleValue("amount") }
        #expect(amounts == expected)
        let realAmounts = try db.selectFrom("payments", orderBy: "id") { $0.realValueAtIndex(1) }
        #expect(realAmounts == expected)
        #expect(try db.selectDouble("SELECT amount FROM payments WHERE id = 1") == 32.0)
    }
}
