import Foundation
import StrataSQift
import Strata
import Testing

/// A table-valued function takes at most 31 parameters, and each value given reaches its own.
@Suite struct TableValuedFunctionParameterTests {
    /// A function that echoes which of its `count` parameters were given, as `index=value` rows.
    func echo(_ count: Int) -> TableValuedFunction {
        TableValuedFunction(name: "echo\(count)", columns: ["given"], parameters: (0..<count).map { "p\($0)" }) { arguments in
            arguments.enumerated().compactMap { index, value in value == .null ? nil : ["\(index)=\(value.textValue ?? "?")"] as [Bindable?] }
        }
    }

    /// Parameters from index 30 up shared bit 30 of the plan, so with 32 parameters a value
    /// given to the last reached the one before it. More than 31 are refused.
    @Test func moreThanThirtyOneParametersAreRefused() throws {
        let db = try Connection(storageLocation: .inMemory)
        #expect(TableValuedFunction.maximumParameterCount == 31)
        let error = #expect(throws: SQLiteError.self) { try db.createTableValuedFunction(echo(32)) }
        #expect(error?.message.contains("at most 31") == true)
        #expect(throws: SQLiteError.self) { try db.query("SELECT count(*) FROM echo32") as Int? }
    }

    /// With 31 parameters each given one reaches its own index, the last ones included.
    @Test func thirtyOneParametersEachReachTheirOwn() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTableValuedFunction(echo(31))
        for index in [0, 1, 29, 30] {
            let given: [String] = try db.query("SELECT given FROM echo31 WHERE p\(index) = 'v'") { row in row.value(at: 0) as? String ?? "" }
            #expect(given == ["\(index)=v"])
        }
        let both: [String] = try db.query("SELECT given FROM echo31 WHERE p29 = 'a' AND p30 = 'b'") { row in row.value(at: 0) as? String ?? "" }
        #expect(both == ["29=a", "30=b"])
    }
}
