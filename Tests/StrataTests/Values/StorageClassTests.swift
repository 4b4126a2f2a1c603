import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

/// One storage-class type; the seed spellings are names for it or map from it.
@Suite struct StorageClassTests {
    @Test func codesRoundTrip() {
        for storageClass in SQLiteStorageClass.allCases {
            #expect(SQLiteStorageClass(code: storageClass.code) == storageClass)
        }
        #expect(SQLiteStorageClass(code: 99) == .null)
    }

    @Test func rowColumnDataTypeIsTheKernelType() throws {
        let db = try Connection(storageLocation: .inMemory)
        let row = try #require(try db.query("SELECT 1, 2.5, 'x', x'00', NULL") as Row?)
        let types: [SQLiteStorageClass] = row.columns.map(\.dataType)
        #expect(types == [.integer, .float, .text, .blob, .null])
        #expect(Row.Column.DataType.self == SQLiteStorageClass.self)
    }

    @Test func bindingValuesReadAndReportTheirClass() throws {
        let db = try Connection(storageLocation: .inMemory)
        let statement = try db.prepare("SELECT 1, 2.5, 'x', x'0001', NULL")
        #expect(try statement.step())
        let values = (0..<5).compactMap { sqlite3_column_value(statement.statementHandle, Int32($0)) }.map(BindingValue.init(reading:))
        #expect(values == [.integer(1), .real(2.5), .text("x"), .blob(Data([0, 1])), .null])
        #expect(values.map(\.storageClass) == [.integer, .float, .text, .blob, .null])
    }

    @Test func functionArgumentsMapToSQiftsSpelling() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.addScalarFunction(named: "kind", argumentCount: 1) { _, values in
            .text("\(values[0].type)/\(values[0].storageClass)")
        }
        let kinds: [String] = try db.query(
            "SELECT kind(v) FROM (SELECT 1 AS v UNION ALL SELECT 2.5 UNION ALL SELECT 'x' UNION ALL SELECT x'00' UNION ALL SELECT NULL)")
        #expect(kinds == ["integer/integer", "double/float", "text/text", "data/blob", "null/null"])
    }
}
