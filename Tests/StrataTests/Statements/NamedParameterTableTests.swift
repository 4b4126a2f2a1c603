import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// Named binds look names up in the table a statement reads once: every prefix, rebinding,
/// statements SQLite re-prepares, the errors of unknown names and missing values, and names
/// compared by bytes as SQLite compares them.
@Suite struct NamedParameterTableTests {
    /// Each column of the current row as SQLite stores it.
    private func storedRow(_ statement: Statement) -> [BindingValue] {
        (0..<Int32(sqlite3_column_count(statement.handle))).map { column in
            let handle = statement.handle
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, column))
                guard let text = sqlite3_column_text(handle, column) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, column))
                guard let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
                return .blob(Data(bytes: bytes, count: count))
            default: return .null
            }
        }
    }

    /// Values compared by their bytes and bits (`-0.0` is not `0.0`, `é` not `e` + U+0301).
    private func sameStored(_ left: BindingValue, _ right: BindingValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
        case (.text(let a), .text(let b)): return Array(a.utf8) == Array(b.utf8)
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }

    @Test func dictionaryBindsColonAtAndDollarNames() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a, b, c)")
        let insert = try db.prepare("INSERT INTO t VALUES(:a, @b, $c)")
        try insert.bind([":a": 1, "@b": "two", "$c": 3.5]).run()
        try insert.bind(["$c": nil, ":a": Int64.max, "@b": Data([0, 1])]).run()
        let select = try db.prepare("SELECT a, b, c FROM t ORDER BY rowid")
        #expect(try select.step())
        #expect(storedRow(select) == [.integer(1), .text("two"), .real(3.5)])
        #expect(try select.step())
        #expect(storedRow(select) == [.integer(Int64.max), .blob(Data([0, 1])), .null])
        #expect(try !select.step())
    }

    @Test func oneStatementReboundManyTimesInAnyOrder() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(k INTEGER PRIMARY KEY, x, y)")
        let insert = try db.prepare("INSERT INTO t VALUES(:k, :x, @y)")
        for row in 0..<300 {
            switch row % 3 {
            case 0: try insert.bind([":k": row, ":x": row * 2, "@y": "y\(row)"]).run()
            case 1: try insert.bind(named: ("@y", "y\(row)"), (":k", row), (":x", row * 2)).run()
            default: try insert.bind([":k": row, "@y": "y\(row)"]).run() // :x left out: NULL
            }
        }
        let rows: [String] = try db.query("SELECT k || '|' || ifnull(x, 'NULL') || '|' || y FROM t ORDER BY k")
        #expect(rows == (0..<300).map { "\($0)|\($0 % 3 == 2 ? "NULL" : String($0 * 2))|y\($0)" })
    }

    @Test func aStatementSQLiteReprepares() throws {
        let files = try TwoConnections(named: "db") { try $0.execute("CREATE TABLE t(x, y)") }
        let insert = try files.mine.prepare("INSERT INTO t(y, x) VALUES(:y, :x)")
        try insert.bind([":x": 1, ":y": "one"]).run()
        let repreparesBefore = sqlite3_stmt_status(insert.handle, SQLITE_STMTSTATUS_REPREPARE, 0)

        // Another connection adds a column: SQLite recompiles the statement at its next step.
        try files.other.execute("ALTER TABLE t ADD COLUMN z DEFAULT 'z'")
        try insert.bind([":y": "two", ":x": 2]).run()
        #expect(sqlite3_stmt_status(insert.handle, SQLITE_STMTSTATUS_REPREPARE, 0) > repreparesBefore)

        // ... then puts a table of another column order in its place.
        try files.other.execute("DROP TABLE t; CREATE TABLE t(z, y, x)")
        try insert.bind(named: (":x", 3), (":y", "three")).run()
        try insert.bind([":x": 4, ":y": "four"]).run()
        let rows: [String] = try files.mine.query("SELECT x || ':' || y || ':' || ifnull(z, 'NULL') FROM t ORDER BY x")
        #expect(rows == ["3:three:NULL", "4:four:NULL"])

        // The same SQL on the other connection is a statement of its own, with its own table.
        let theirs = try files.other.prepare("INSERT INTO t(y, x) VALUES(:y, :x)")
        try theirs.bind([":y": "five", ":x": 5]).run()
        try files.other.run("INSERT INTO t(y, x) VALUES(:y, :x)", [":x": 6, ":y": "six"])
        try files.mine.run("INSERT INTO t(y, x) VALUES(:y, :x)", [":x": 7, ":y": "seven"])
        let all: [String] = try files.mine.query("SELECT x || ':' || y FROM t ORDER BY x")
        #expect(all == ["3:three", "4:four", "5:five", "6:six", "7:seven"])
    }

    @Test func unknownNamesAndMissingValuesThrowAsBefore() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(x NOT NULL, y)")
        let insert = try db.prepare("INSERT INTO t VALUES(:x, :y)")
        let unknown = sqliteError { try insert.bind([":x": 1, ":nope": 2]).run() }
        #expect(unknown?.code == SQLITE_MISUSE)
        #expect(unknown?.message == "Bind could not find index for key: ':nope'")
        // The core API takes names with their prefix only.
        let bare = sqliteError { try insert.bind(["x": 1]).run() }
        #expect(bare?.message == "Bind could not find index for key: 'x'")
        let pair = sqliteError { try insert.bind(named: (":x", 1), ("@x", 2)).run() }
        #expect(pair?.message == "Bind could not find index for key: '@x'")
        // SQLite would read a name with a NUL up to the NUL (":x"): it names no parameter.
        let nul = sqliteError { try insert.bind([":x\0y": 1]).run() }
        #expect(nul?.message == "Bind could not find index for key: ':x\0y'")
        // A value left out is NULL, which the constraint refuses.
        let missing = sqliteError { try insert.bind([":y": 1]).run() }
        #expect((missing?.code ?? 0) & 0xFF == SQLITE_CONSTRAINT)
        #expect(missing?.message == "NOT NULL constraint failed: t.x")
        try insert.bind([":x": 1]).run()
        #expect(try db.query("SELECT count(*) FROM t WHERE y IS NULL") == 1)
    }

    @Test func namesAreComparedByTheirBytes() throws {
        let db = try Connection(storageLocation: .inMemory)
        // Two parameters to SQLite, one Swift string.
        let select = try db.prepare("SELECT :\u{E9}, :e\u{301}")
        #expect(select.parameterCount == 2)
        for _ in 0..<3 {
            try select.bind(named: (":\u{E9}", 1), (":e\u{301}", 2))
            #expect(try select.step())
            #expect(storedRow(select) == [.integer(1), .integer(2)])
            try select.bind(named: (":e\u{301}", 20), (":\u{E9}", 10))
            #expect(try select.step())
            #expect(storedRow(select) == [.integer(10), .integer(20)])
        }
        try select.bind([":e\u{301}": 5])
        #expect(try select.step())
        #expect(storedRow(select) == [.null, .integer(5)])
    }

    @Test func generatedNamesAndValuesReadBack() throws {
        let pieces = ["a", "b", "z", "_", "0", "9", "\u{E9}", "e\u{301}", "\u{3A9}", "\u{65E5}\u{672C}", "x$"]
        try PropertyCheck.run("named dictionary binds store each value under its name", cases: 40) { random in
            let db = try Connection(storageLocation: .inMemory)
            let count = random.int(1...12)
            var names: [String] = []
            var seen = Set<String>()
            while names.count < count {
                let body = (0..<random.int(1...4)).map { _ in random.pick(pieces) }.joined()
                // `$` names may not hold `$` followed by more: keep the generator to one spelling.
                let name = random.pick([":", "@", "$"]) + body.replacingOccurrences(of: "$", with: "s")
                // Dictionary keys are Swift strings: canonically equal names are one key.
                if seen.insert(name).inserted { names.append(name) }
            }
            let columns = (0..<count).map { "c\($0)" }
            try db.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")))")
            let insert = try db.prepare("INSERT INTO t VALUES(:k, \(names.joined(separator: ", ")))")
            let hard: [BindingValue] = [
                .text("a\0b"), .text("'\u{301}"), .integer(.min), .integer(.max), .real(-0.0), .real(.infinity), .real(-.infinity)
            ]
            var expected: [[BindingValue]] = []
            for row in 0..<random.int(1...6) {
                let values = names.map { _ in random.oneIn(3) ? random.pick(hard) : Gen.value(&random) }
                var parameters: [String: Bindable?] = [":k": row]
                for (name, value) in zip(names, values) { parameters[name] = value.bindable }
                try insert.bind(parameters).run()
                expected.append(values)
            }
            let select = try db.prepare("SELECT \(columns.joined(separator: ", ")) FROM t ORDER BY k")
            for values in expected {
                try require(try select.step(), "a row is missing")
                let stored = storedRow(select)
                try require(
                    stored.count == values.count && zip(stored, values).allSatisfy { sameStored($0, $1) },
                    "names \(names) bound \(values), stored \(stored)")
            }
            try require(try !select.step(), "an extra row")
        }
    }
}
