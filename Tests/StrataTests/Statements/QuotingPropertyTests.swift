import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Quoting, against SQLite itself: whatever Strata quotes, SQLite reads back exactly.
@Suite struct QuotingPropertyTests {
    @Test func identifiersReadBackExactly() async throws {
        try await onOwnThread {
            try PropertyCheck.run("identifier quoting", cases: 200) { random in
                let connection = try Connection()
                let table = "t" + Gen.identifier(&random)
                let columns = Gen.distinctIdentifiers(&random, count: random.int(1...4))
                try connection.execute("CREATE TABLE \(quoteIdentifier(table))(\(columns.map(quoteIdentifier).joined(separator: ", ")))")
                let stored: String? = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'")
                try require(stored == table, "table \(table.debugDescription) stored as \(stored.debugDescription)")
                let storedColumns: [String] = try connection.query("SELECT name FROM pragma_table_info(?)", table)
                try require(storedColumns == columns, "columns \(columns.debugDescription) stored as \(storedColumns.debugDescription)")
                // Through SQLFragment's `\(identifier:)`, the way a request's sort column arrives.
                try connection.run("INSERT INTO \(quoteIdentifier(table)) DEFAULT VALUES")
                let column = random.pick(columns)
                let rows: [Row] = try connection.query(literal: "SELECT \(identifier: column) FROM \(identifier: table) ORDER BY \(identifier: column)")
                try require(rows.count == 1, "one row expected through \\(identifier:), got \(rows.count)")
                // A name that is not there is an error, or (SQLite's double-quoted-string fallback)
                // that very text as a string; never other SQL.
                let missing = column + random.pick(["\"", "\" --", "\"\u{301} UNION SELECT 1 --", "'\u{FE0F}"])
                // (SQLite folds ASCII case only, so a name Swift's folding tells apart is missing too.)
                if columns.contains(where: { $0.lowercased() == missing.lowercased() }) { return }
                do {
                    let values: [String?] = try connection.query(literal: "SELECT \(identifier: missing) FROM \(identifier: table)")
                    try require(
                        values == [missing],
                        "\(missing.debugDescription) selected \(values) from \(table.debugDescription) with columns \(columns.debugDescription)")
                } catch is SQLiteError {}
            }
        }
    }

    @Test func stringLiteralsReadBackExactly() async throws {
        try await onOwnThread {
            let connection = try Connection()
            try PropertyCheck.run("string literal quoting", cases: 300) { random in
                // NUL ends SQL text, so a literal cannot hold one (the dump writes such text as a cast blob).
                let text = Gen.text(&random, maxPieces: 8, nul: false)
                let read: String? = try connection.query("SELECT " + text.sqift.addingSQLEscapes())
                try require(read == text, "literal of \(text.debugDescription) read back as \(read.debugDescription)")
                let bytes: Data? = try connection.query("SELECT CAST(" + text.sqift.addingSQLEscapes() + " AS BLOB)")
                try require(bytes == Data(text.utf8), "bytes of \(text.debugDescription) changed")
            }
        }
    }

    @Test func ftsPatternsFromAnyTextNeverFailAndMatchOnlyTheirWords() async throws {
        try await onOwnThread {
            try PropertyCheck.run("FTS5 patterns", cases: 60) { random in
                let connection = try makeConnection(
                    executing: "CREATE VIRTUAL TABLE docs USING fts5(body); CREATE VIRTUAL TABLE words USING fts5vocab(docs, 'instance')")
                let documents = (0..<random.int(1...6)).map { _ in Gen.text(&random, maxPieces: 5, nul: false) }
                for (index, document) in documents.enumerated() {
                    try connection.run("INSERT INTO docs(rowid, body) VALUES (?, ?)", index + 1, document)
                }
                func terms(of rowid: Int) throws -> Set<String> {
                    Set(try connection.query("SELECT term FROM words WHERE doc = ?", rowid) as [String])
                }
                let query = random.oneIn(2) ? random.pick(documents) : Gen.text(&random, maxPieces: 4, nul: false)
                let patterns = [
                    FTS5Pattern(matchingAllTokensIn: query), FTS5Pattern(matchingAnyTokenIn: query), FTS5Pattern(matchingPhrase: query),
                    FTS5Pattern(matchingAllPrefixesIn: query), FTS5Pattern(matchingAnyPrefixIn: query), FTS5Pattern(matchingPhrasePrefix: query)
                ]
                var matchesOfAll: Set<Int> = []
                for (kind, pattern) in patterns.enumerated() {
                    guard let pattern else { continue }
                    let matched: [Int]
                    do {
                        matched = try connection.query("SELECT rowid FROM docs WHERE docs MATCH ?", pattern)
                    } catch {
                        throw PropertyViolation("pattern \(pattern.rawPattern.debugDescription) of \(query.debugDescription) failed: \(error)")
                    }
                    if kind == 0 { matchesOfAll = Set(matched) }
                    // A document that is the query itself matches every form of it, when the
                    // tokenizer finds a word in it at all.
                    for (index, document) in documents.enumerated() where document == query {
                        guard try !terms(of: index + 1).isEmpty else { continue }
                        try require(
                            matched.contains(index + 1),
                            "\(pattern.rawPattern.debugDescription) misses its own text \(query.debugDescription) \(Array(query.unicodeScalars).map { String($0.value, radix: 16) })"
                        )
                    }
                }
                // Matching every word is sound: each matched document holds every term of the query.
                try connection.run("INSERT INTO docs(rowid, body) VALUES (?, ?)", 1000, query)
                let queryTerms = try terms(of: 1000)
                for rowid in matchesOfAll where rowid != 1000 {
                    try require(queryTerms.isSubset(of: try terms(of: rowid)), "\(query.debugDescription) matched \(documents[rowid - 1].debugDescription)")
                }
            }
        }
    }
}

/// `sqlLiteral`, for the places SQLite takes no parameter (a DEFAULT, a rebuild's fill value):
/// SQLite reads back the same value, storage class and bits.
@Suite struct SQLLiteralPropertyTests {
    /// Values SQLite 3.40's decimal reader reads one bit off from their shortest form, at
    /// ordinary magnitudes too (the first found by CI's ten-fold property run).
    @Test func realsSQLiteMisreadsAsShortestDecimalsReadBackExactly() throws {
        let connection = try Connection()
        for value in [5.066453936035476e+245, -5.066453936035476e+245, 0x1.fffffffffffffp1023, 0x1p-1074, 0x1.8p-1040, 2.2250738585072014e-308] {
            let literal = sqlLiteral(.real(value))
            let read: Double? = try connection.query("SELECT \(literal)")
            #expect(read?.bitPattern == value.bitPattern, "\(value) as \(literal) read back as \(String(describing: read))")
            let dumped: Double? = try connection.query("SELECT \(RealFormatter().literal(value))")
            #expect(dumped?.bitPattern == value.bitPattern)
        }
    }

    @Test func literalsReadBackAsTheSameValue() async throws {
        try await onOwnThread {
            let connection = try Connection()
            try PropertyCheck.run("sqlLiteral", cases: 400) { random in
                let value = Gen.value(&random)
                let literal = sqlLiteral(value)
                let read: Row? = try connection.query("SELECT \(literal)", [])
                let back = read.flatMap { $0.values.first } ?? nil
                let expected: BindingValue
                switch value {
                case .real(let real) where real.isNaN: expected = .null
                default: expected = value
                }
                let same: Bool
                switch (expected, back) {
                case (.null, nil): same = true
                case (.integer(let a), let b as Int64): same = a == b
                case (.integer(let a), let b as Int): same = Int64(a) == Int64(b)
                case (.real(let a), let b as Double): same = a.bitPattern == b.bitPattern
                case (.text(let a), let b as String): same = a == b
                case (.blob(let a), let b as Data): same = a == b
                default: same = false
                }
                try require(same, "\(value) as \(literal.debugDescription) read back as \(String(describing: back))")
                // The same literal as a column DEFAULT.
                try connection.execute("CREATE TEMP TABLE d(k, v DEFAULT \(literal)); INSERT INTO d(k) VALUES (1)")
                defer { try? connection.execute("DROP TABLE temp.d") }
                let stored: Row? = try connection.query("SELECT v FROM d", [])
                let storedValue = stored.flatMap { $0.values.first } ?? nil
                try require(String(describing: storedValue) == String(describing: back), "\(value) as a DEFAULT stored \(String(describing: storedValue))")
            }
        }
    }
}

/// `textLiteral`, the one text writer of dumps, test snapshots and `sqlLiteral`: in every style,
/// SQLite evaluates the literal to the same bytes, stored as TEXT; the dump's style keeps to one
/// line for the shell, and the snapshot's holds no control character at all.
@Suite struct TextLiteralPropertyTests {
    @Test(arguments: [TextLiteralStyle.quoted, .dump, .oneLine])
    func textLiteralsEvaluateToTheSameBytes(style: TextLiteralStyle) async throws {
        try await onOwnThread {
            let connection = try Connection()
            try PropertyCheck.run("textLiteral \(style)", cases: 300) { random in
                var bytes: [UInt8]
                switch random.int(0...3) {
                case 0: bytes = Array(Gen.invalidUTF8(&random))
                case 1: bytes = (0..<random.int(0...12)).map { _ in random.pick([0, 0x0D, 0x0A, 0x09, 0x27, 0x7F, 0x61, 0xCC, 0x81]) }
                default: bytes = Array(Gen.text(&random).utf8)
                }
                let literal = textLiteral(bytes, style: style)
                let row: Row? = try connection.query("SELECT typeof(\(literal)), hex(\(literal))", [])
                let type: String? = row?[0]
                let hex: String? = row?[1]
                let expected = bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
                try require(
                    type == "text" && hex == expected,
                    "\(bytes) as \(literal.debugDescription): \(String(describing: type)) \(String(describing: hex))")
                if style != .quoted {
                    try require(!literal.utf8.contains(0x0A) && !literal.utf8.contains(0x0D), "\(literal.debugDescription) breaks a line")
                }
                if style == .oneLine {
                    try require(!literal.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "\(literal.debugDescription) holds a control character")
                }
            }
        }
    }

    @Test func hexLiteralsMatchSQLitesQuote() throws {
        let connection = try Connection()
        try PropertyCheck.run("hexLiteral", cases: 100) { random in
            let bytes = Gen.bytes(&random)
            let quoted: String? = try connection.query("SELECT quote(?)", bytes)
            try require(hexLiteral(bytes) == quoted, "\(Array(bytes)): \(hexLiteral(bytes)) against quote()'s \(String(describing: quoted))")
        }
    }
}
