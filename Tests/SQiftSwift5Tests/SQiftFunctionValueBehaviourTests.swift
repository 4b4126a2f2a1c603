import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// Function arguments of every storage class, and a function's error result, as SQift code reads them.
@Suite struct SQiftFunctionValueBehaviourTests {
    @Test func functionValueKinds() throws {
        let db = try Connection()
        var seen: [String] = []
        try db.addScalarFunction(named: "kind", argumentCount: -1) { _, values in
            for value in values {
                switch value.type {
                case .null: seen.append("null \(value.isNull)")
                case .integer: seen.append("integer \(value.long) \(value.integer) \(value.isInteger)")
                case .double: seen.append("double \(value.double) \(value.isDouble)")
                case .text: seen.append("text \(value.text) \(value.isText)")
                case .data: seen.append("data \(value.data.count) \(value.isData) \(value.buffer.count)")
                }
            }
            return .integer(Int32(values.count))
        }
        let count: Int = try db.query("SELECT kind(NULL, 1, 2.5, 'x', x'0102')")
        #expect(count == 5)
        #expect(seen == ["null true", "integer 1 1 true", "double 2.5 true", "text x true", "data 2 true 2"])
        let big: Int = try db.query("SELECT kind(?)", Int64.max)
        #expect(big == 1)
        #expect(seen.last == "integer \(Int64.max) \(Int32(truncatingIfNeeded: Int64.max)) true" || seen.last?.hasPrefix("integer \(Int64.max)") == true)
        try db.addScalarFunction(named: "fail", argumentCount: 0) { _, _ in .error(message: "bad input", code: SQLITE_CONSTRAINT) }
        do {
            let _: Int? = try db.query("SELECT fail()")
            Issue.record("expected an error")
        } catch let error as SQLiteError {
            #expect(error.message == "bad input")
            #expect(error.code == SQLITE_CONSTRAINT)
        }
    }
}
