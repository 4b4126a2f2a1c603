import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// The kernel's one statement-end scanner (error messages name one statement of a script with
/// it; the dump's reader splits with it) ends the first statement of a generated script where
/// SQLite's parser does: `sqlite3_prepare_v2`'s tail.
@Suite struct StatementEndPropertyTests {
    static func statement(_ random: inout SeededRandom) -> String {
        let text = Gen.text(&random, maxPieces: 4, nul: false)
        let name = Gen.identifier(&random)
        switch random.int(0...6) {
        case 0: return "SELECT " + quoteStringLiteral(text)
        case 1: return "SELECT 1 AS " + quoteIdentifier(name)
        case 2: return "SELECT " + quoteStringLiteral(text) + " /* ; */ || ';'"
        case 3:
            return "CREATE TEMP TRIGGER IF NOT EXISTS " + quoteIdentifier("tr" + name)
                + " AFTER INSERT ON t BEGIN SELECT ';'; UPDATE t SET x = x; END"
        case 4: return "EXPLAIN SELECT [a;b] FROM (SELECT 1 AS [a;b])"
        case 5: return "CREATE TEMP TABLE IF NOT EXISTS " + quoteIdentifier("trigger" + name) + "(a)"
        default: return "SELECT 2 -- ; " + text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }.map(String.init).joined() + "\n"
        }
    }

    static func gap(_ random: inout SeededRandom) -> String {
        random.pick(["", " ", "\n", "\r\n", " -- ;\n", "/* ; ' \" */", "\t/* */ "])
    }

    @Test func endsWhereSQLitesParserEnds() async throws {
        try await onOwnThread {
            let connection = try makeConnection(executing: "CREATE TEMP TABLE t(x)")
            try PropertyCheck.run("statement end", cases: 200) { random in
                let count = random.int(1...3)
                var script = Self.gap(&random)
                for _ in 0..<count { script += Self.statement(&random) + Self.gap(&random) + ";" + Self.gap(&random) }
                let bytes = Array(script.utf8)
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let parsed: Int? = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        defer { sqlite3_finalize(statement) }
                        guard sqlite3_prepare_v2(connection.handle, chars.baseAddress, Int32(chars.count), &statement, &tail) == SQLITE_OK,
                            let tail, let base = chars.baseAddress
                        else { return nil }
                        return base.distance(to: tail)
                    }
                }
                try require(parsed != nil, "SQLite refused \(script.debugDescription): \(String(cString: sqlite3_errmsg(connection.handle)))")
                let ours = bytes[...].utf8Offset(of: sqlStatementEnd(in: bytes[...]))
                try require(ours == parsed, "\(script.debugDescription): ours ends at \(ours), SQLite's at \(parsed ?? -1)")
            }
        }
    }
}

private extension ArraySlice where Element == UInt8 {
    func utf8Offset(of index: Int) -> Int { index - startIndex }
}
