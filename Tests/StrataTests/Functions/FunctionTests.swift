import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

final class Sum { var total: Int64 = 0 }
final class Token { let id: Int; init(_ id: Int) { self.id = id } }

@Suite struct FunctionTests {
    @Test func readmeStripUnicode() throws {
        let connection = try Connection()
        try addReadmeStripUnicode(to: connection)
        let sql = "SELECT strip_unicode(?)"
        let result1: String? = try connection.prepare(sql, "å").query()
        let result2: String? = try connection.prepare(sql, "ć").query()
        let result3: String? = try connection.prepare(sql, "áč").query()
        // Lossy ASCII conversion is Foundation's: Apple's strips diacritics ("a"), others may not.
        func lossyASCII(_ text: String) -> String? {
            text.data(using: .ascii, allowLossyConversion: true).flatMap { String(data: $0, encoding: .ascii) }
        }
        #expect(result1 == lossyASCII("å") && result2 == lossyASCII("ć") && result3 == lossyASCII("áč"))
        // The README's documented output, with a conversion that behaves the same everywhere.
        try connection.addScalarFunction(named: "strip_unicode", argumentCount: 1) { _, values in
            guard let value = values.first, value.isText else { return .null }
            return .text(value.text.folding(options: .diacriticInsensitive, locale: nil))
        }
        let folded: [String?] = try ["å", "ć", "áč"].map { try connection.prepare(sql, $0).query() }
        #expect(folded == ["a", "c", "ac"])
        let null: String? = try connection.prepare(sql, nil).query()
        #expect(null == nil)
    }

    @Test func resultsAndValues() throws {
        let db = try Connection()
        try db.addScalarFunction(named: "describe", argumentCount: -1, deterministic: true) { _, values in
            .text(
                values.map { value -> String in
                    switch value.type {
                    case .null: return "null:\(value.text)|\(value.data.count)"
                    case .integer: return "int:\(value.integer):\(value.long)"
                    case .double: return "double:\(value.double)"
                    case .text: return "text:\(value.text):\(value.numericType == .integer)"
                    case .data: return "data:\(value.buffer.count)"
                    }
                }.joined(separator: ","))
        }
        #expect(try db.query("SELECT describe(NULL, 5, 1.5, '12', x'0102')") == "null:|0,int:5:5,double:1.5,text:12:true,data:2")
        try db.addScalarFunction(named: "make", argumentCount: 1) { _, values in
            switch values[0].long {
            case 0: return .null
            case 1: return .integer(7)
            case 2: return .long(Int64.max)
            case 3: return .double(2.5)
            case 4: return .data(Data([9, 8]))
            case 5: return .zeroData(4)
            case 6: return .date(Date(timeIntervalSince1970: 0))
            default: return .error(message: "bad input \(values[0].long)", code: SQLITE_CONSTRAINT)
            }
        }
        #expect(try db.query("SELECT typeof(make(0))") == "null")
        #expect(try db.query("SELECT make(1)") == 7)
        #expect(try db.query("SELECT make(2)") == Int64.max)
        #expect(try db.query("SELECT make(3)") == 2.5)
        #expect(try db.query("SELECT make(4)") == Data([9, 8]))
        #expect(try db.query("SELECT make(5)") == Data(count: 4))
        #expect(try db.query("SELECT make(6)") == "1970-01-01T00:00:00.000")
        let error = sqliteError { let _: Int? = try db.query("SELECT make(9)") }
        #expect(error?.message == "bad input 9")
        #expect(error?.code == SQLITE_CONSTRAINT)
        let defaultCode = sqliteError {
            try db.addScalarFunction(named: "fail", argumentCount: 0) { _, _ in .error(message: "nope", code: nil) }
            let _: Int? = try db.query("SELECT fail()")
        }
        #expect(defaultCode?.code == SQLITE_ERROR && defaultCode?.message == "nope")
        try db.removeFunction(named: "make", argumentCount: 1)
        #expect(sqliteError { let _: Int? = try db.query("SELECT make(1)") }?.message == "no such function: make")
    }

    @Test func auxilaryDataIsKeptForConstantArguments() throws {
        let db = try Connection()
        nonisolated(unsafe) var created = 0
        try db.addScalarFunction(named: "cached", argumentCount: 2) { context, values in
            if let token = context.auxilaryData[0] as? Token { return .long(Int64(token.id)) }
            created += 1
            context.auxilaryData[0] = Token(created)
            return .long(Int64(created) + 100 + values[1].long * 0)
        }
        let values: [Int] = try db.query("SELECT cached('p', x) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3)")
        #expect(values.first == 101)
        #expect(values.dropFirst().allSatisfy { $0 == 1 })
    }

    @Test func aggregatesIncludingEmptyTables() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(v INTEGER)")
        try db.addAggregateFunction(
            named: "my_sum", argumentCount: 1,
            contextObjectFactory: { Sum() },
            stepFunction: { context, values in (context.stepObject as? Sum)?.total += values[0].long },
            finalFunction: { context in
                guard let sum = context.finalObject as? Sum else { return .null }
                return .long(sum.total)
            }
        )
        let empty: Int? = try db.query("SELECT my_sum(v) FROM t")
        #expect(empty == nil)
        try db.execute("INSERT INTO t VALUES(1), (2), (3), (NULL)")
        #expect(try db.query("SELECT my_sum(v) FROM t") == 6)
        let grouped: [Int] = try db.query("SELECT my_sum(v) FROM t GROUP BY v % 2 ORDER BY 1")
        #expect(grouped == [0, 2, 4]) // the NULL group steps once with NULL
    }
}
