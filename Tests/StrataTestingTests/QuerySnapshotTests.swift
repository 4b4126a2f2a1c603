import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

/// What `assertQuery` compares, built without the snapshot library: the literals and the table.
@Suite struct QuerySnapshotTests {
    @Test func aQuerysSQLArgumentsAndRowsAreWrittenAsSQL() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, price REAL, photo BLOB)")
        try connection.run("INSERT INTO t VALUES (1, ?, 2.5, x'00ff'), (2, NULL, -0.0, NULL)", "it's\nhere")
        let snapshot = try QuerySnapshot(of: "SELECT id, title, price, photo FROM t WHERE id > \(0) ORDER BY id", on: connection)
        #expect(snapshot.sql == "SELECT id, title, price, photo FROM t WHERE id > ? ORDER BY id\n-- ?1: 0")
        #expect(
            snapshot.results == """
                ┌────┬───────────────────────────┬───────┬─────────┐
                │ id │ title                     │ price │ photo   │
                ├────┼───────────────────────────┼───────┼─────────┤
                │ 1  │ 'it''s'||char(10)||'here' │ 2.5   │ X'00FF' │
                │ 2  │ NULL                      │ 0.0   │ NULL    │
                └────┴───────────────────────────┴───────┴─────────┘
                """)
    }

    @Test func aColumnNameWithANewlineStaysOnItsLine() throws {
        let snapshot = try QuerySnapshot(of: "SELECT 1 AS \(identifier: "two\nlines")", on: try Connection(path: ":memory:"))
        #expect(snapshot.results.unicodeScalars.filter { $0 == "\n" }.count == 4)
        #expect(snapshot.results.contains("two\\u{A}lines"))
    }

    /// Every value's literal, run by SQLite, gives that value back in its storage class, bytes
    /// and all; and where SQLite's own `quote()` can write the value on one line, the two agree.
    @Test func literalsEvaluateToTheirValuesInSQLite() throws {
        let connection = try Connection(path: ":memory:")
        try PropertyCheck.run("QuerySnapshot.literal evaluates to its value", cases: 200) { random in
            var value = Gen.value(&random)
            if random.int(0...5) == 0 { value = .text(String(decoding: Gen.invalidUTF8(&random), as: UTF8.self)) }
            let literal = QuerySnapshot.literal(value)
            let stored: BindingValue
            if random.int(0...4) == 0, case .blob(let bytes) = value {
                // Text that is not UTF-8, stored by SQLite itself.
                try connection.execute("DROP TABLE IF EXISTS v; CREATE TABLE v(x)")
                try connection.run("INSERT INTO v VALUES (CAST(? AS TEXT))", bytes)
                let fromColumn = try QuerySnapshot(of: "SELECT x FROM v", on: connection).results
                let same: Int? = try connection.query("SELECT (SELECT x FROM v) = \(Self.cell(of: fromColumn))")
                try require(same == 1, "the invalid UTF-8 cell \(fromColumn) does not evaluate to the stored text")
                return
            } else {
                stored = value
            }
            if case .real(let real) = stored, !real.isNaN {
                // SQLite before 3.43 can read a shortest-form real one unit in the last place off.
                let exact = sqlite3_libversion_number() >= 3_043_000
                let type: String? = try connection.query("SELECT typeof(\(literal))")
                let read: Double? = try connection.query("SELECT \(literal)")
                try require(type == "real", "\(literal) is \(type ?? "nil"), not real")
                let value = try #require(read)
                try require(
                    value == real || (!exact && (value == real.nextUp || value == real.nextDown)),
                    "\(literal) reads back as \(value), not \(real)")
                return
            }
            let sameType: Int? = try connection.query(
                "SELECT typeof(\(literal)) = typeof(?) AND (\(literal)) IS ?", stored.bindable, stored.bindable)
            try require(sameType == 1, "\(literal) does not evaluate to \(stored)")
            if case .text(let text) = stored, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                let quoted: String? = try connection.query("SELECT quote(?)", text)
                try require(quoted == literal, "\(literal) differs from SQLite's quote(): \(quoted ?? "nil")")
            }
            if case .integer = stored {
                let quoted: String? = try connection.query("SELECT quote(?)", stored.bindable)
                try require(quoted == literal, "\(literal) differs from SQLite's quote(): \(quoted ?? "nil")")
            }
            if case .blob = stored {
                let quoted: String? = try connection.query("SELECT quote(?)", stored.bindable)
                try require(quoted == literal, "\(literal) differs from SQLite's quote(): \(quoted ?? "nil")")
            }
        }
    }

    /// The one cell of a one-column, one-row table (its fourth line, less the borders).
    static func cell(of table: String) -> String {
        var lines: [String.UnicodeScalarView] = [String.UnicodeScalarView()]
        for scalar in table.unicodeScalars {
            if scalar == "\n" { lines.append(String.UnicodeScalarView()) } else { lines[lines.count - 1].append(scalar) }
        }
        var row = Array(lines[3].dropFirst(2).dropLast(2))
        while row.last == " " { row.removeLast() }
        return String(String.UnicodeScalarView(row))
    }
}
