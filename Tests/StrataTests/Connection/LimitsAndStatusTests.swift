import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

@Suite struct LimitsAndStatusTests {
    @Test func limitsReadAndSet() throws {
        let connection = try Connection()
        #expect(connection.limits[.length] > 1_000_000)
        #expect(connection.limits.all.count == SQLiteLimit.allCases.count)
        connection.limits[.length] = 100
        #expect(connection.limits[.length] == 100)
        let error = sqliteError { try connection.run("SELECT ?", Data(count: 200)) }
        #expect(error?.resultCode.primary == .tooBig)
        connection.limits[.attached] = 0
        #expect(sqliteError { try connection.execute("ATTACH ':memory:' AS x") }?.message.contains("too many attached") == true)
        connection.limits[.variableNumber] = 2
        #expect(sqliteError { _ = try connection.prepare("SELECT ?, ?, ?") } != nil)
        // Another connection keeps its own limits.
        #expect(try Connection().limits[.length] > 100)
        // Negative values are ignored, values past the hard maximum lowered to it.
        connection.limits[.column] = -5
        #expect(connection.limits[.column] > 0)
        connection.limits[.column] = Int.max
        #expect(connection.limits[.column] <= 32767)
        #expect(SQLiteLimit.sqlLength.name == "sql_length")
    }

    @Test func connectionStatusCountsCacheAndStatements() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(x)")
        for index in 0..<200 { try connection.run("INSERT INTO t VALUES(?)", String(repeating: "x", count: index * 10)) }
        let status = connection.status()
        #expect(status.cacheUsed.current > 0)
        #expect(status.schemaUsed.current > 0)
        #expect(status.statementUsed.current > 0)
        #expect(status.cacheHit.current + status.cacheMiss.current > 0)
        _ = connection.status(resettingHighwater: true)
        #expect(connection.status().cacheHit.current == 0)
    }

    @Test func processStatusReportsMemory() throws {
        let connection = try makeConnection(executing: "CREATE TABLE t(x)")
        let status = SQLiteProcessStatus.current()
        #expect(status.memoryUsed.current > 0)
        #expect(status.memoryUsed.highwater >= status.memoryUsed.current)
        #expect(status.mallocCount.current > 0)
        withExtendedLifetime(connection) {}
    }
}
