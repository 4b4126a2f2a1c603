import Foundation
import StrataSQift
import Testing
import Strata
import StrataTestSupport
@testable import StrataCore

// Descriptions SQift users print and compare.
@Suite struct SQiftDescriptionBehaviourTests {
    @Test func rowAndColumnDescriptions() throws {
        let db = try Connection()
        guard let row = try db.query("SELECT 'Lana Kane' AS name, 2 AS n, NULL AS z, 1.5 AS f, x'00' AS b") else {
            Issue.record("no row")
            return
        }
        #expect(row.description == "['Lana Kane', 2, NULL, 1.5, 1 bytes]")
        #expect(row.columns[0].description == #"{ index: 0 name: "name", type: "text", value: Lana Kane }"#)
        #expect(row.columns[3].dataType == .float)
        #expect(row.columns[4].dataType == .blob)
        let error = ExpressibleByRowError(type: Car.self, row: row)
        #expect(error.description == "ExpressibleByRowError: " + (error.errorDescription ?? ""))
        #expect(error.errorDescription?.hasPrefix("Failed to initialize Car from Row with columns: ") == true)
        #expect(error.failureReason?.hasPrefix("Car could not be initialized from Row with columns: ") == true)
    }
}
