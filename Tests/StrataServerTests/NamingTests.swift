// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import StrataSQift
import Strata
import Testing
@testable import StrataServer

@Suite struct NamingTests {
    @Test func operationIsTheFirstKeyword() {
        #expect(InstrumentationHandler.operation(of: "  -- note\n /* c */ select 1") == "SELECT")
        #expect(InstrumentationHandler.operation(of: "INSERT INTO t VALUES(1)") == "INSERT")
        #expect(InstrumentationHandler.operation(of: "\t\r\nWith x AS (SELECT 1) SELECT * FROM x") == "WITH")
        #expect(InstrumentationHandler.operation(of: "savepoint \"s\"") == "SAVEPOINT")
        #expect(InstrumentationHandler.operation(of: "frobnicate") == "OTHER")
    }

    @Test func operationIsBoundedOnOddInput() {
        #expect(InstrumentationHandler.operation(of: "") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "   ") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "-- only a comment") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "/* never closed SELECT") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "/**/DELETE FROM t") == "DELETE")
        #expect(InstrumentationHandler.operation(of: "SELECTé 1") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "éSELECT 1") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "(SELECT 1)") == "OTHER")
        #expect(InstrumentationHandler.operation(of: "SELECT1") == "SELECT")
        #expect(InstrumentationHandler.operation(of: String(repeating: "A", count: 10_000)) == "OTHER")
    }

    @Test func databaseNameIsTheFileNameOnly() throws {
        #expect(InstrumentationHandler.databaseName(path: "/home/someone/app/todos.sqlite") == "todos.sqlite")
        #expect(InstrumentationHandler.databaseName(path: "") == "memory")
        #expect(InstrumentationHandler.databaseName(try Connection()) == "memory")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-naming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let connection = try Connection(storageLocation: .onDisk(directory.appendingPathComponent("names.sqlite").path))
        #expect(InstrumentationHandler.databaseName(connection) == "names.sqlite")
        #expect(InstrumentationHandler.databaseName(connection) == "names.sqlite") // from the memo
    }
}
#endif
