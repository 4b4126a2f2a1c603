import Foundation
import StrataSQift
import Testing
import Strata
import StrataTestSupport

/// CHECK constraints read from the CREATE TABLE text SQLite stores (`strata schema` shows them).
@Suite struct CheckConstraintsPropertyTests {
    @Test func columnTableAndNamedConstraintsInOrder() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE t(a INTEGER CHECK(a > 0) NOT NULL, "check" TEXT /* CHECK (no) */ CHECK ("check" <> 'CHECK (x)'),
                           b REAL -- CHECK (comment)
                           , CONSTRAINT [b ok] check (b BETWEEN 0 AND (1 + 2)), CHECK(length("check") < 10))
            """)
        #expect(
            try db.schemaReader.checkConstraints(ofTable: "T") == [
                "CHECK (a > 0)", #"CHECK ("check" <> 'CHECK (x)')"#, "CONSTRAINT [b ok] CHECK (b BETWEEN 0 AND (1 + 2))", #"CHECK (length("check") < 10)"#
            ])
        try db.execute("CREATE TABLE plain(x)")
        #expect(try db.schemaReader.checkConstraints(ofTable: "plain").isEmpty)
        #expect(try db.schemaReader.checkConstraints(ofTable: "missing").isEmpty)
    }

    /// Generated names, literals (quotes, combining marks, `--`, `/*`, parentheses) and
    /// whitespace or comments between every token: SQLite accepts the table, and the constraint
    /// reads back as written, each run of whitespace and comments one space.
    @Test func generatedConstraintsReadBackAsWritten() throws {
        try PropertyCheck.run("CHECK constraints", cases: 60) { random in
            let db = try Connection(storageLocation: .inMemory)
            let column = quoteIdentifier(Gen.identifier(&random))
            let literal = quoteStringLiteral(Gen.text(&random, maxPieces: 5, nul: false))
            let separators = [" ", "\n\t", " /* ) CHECK ( */ ", "-- ) \n", "\r\n  "]
            let units = [column, "<>", literal, "AND", "length", "(", column, ")", ">=", "0"]
            var expression = ""
            for unit in units { expression += random.pick(separators) + unit }
            expression += random.pick(separators)
            let name = random.oneIn(2) ? quoteIdentifier(Gen.identifier(&random)) : nil
            let constraint = (name.map { "CONSTRAINT \($0)" + random.pick(separators) } ?? "") + "CHECK" + random.pick(separators) + "(" + expression + ")"
            try db.execute("CREATE TABLE t(\(column) TEXT, \(constraint))")
            let expected = (name.map { "CONSTRAINT \($0) " } ?? "") + "CHECK (" + units.joined(separator: " ") + ")"
            let read = try db.schemaReader.checkConstraints(ofTable: "t")
            try require(read == [expected], "\(read) != [\(expected)]")
        }
    }
}
