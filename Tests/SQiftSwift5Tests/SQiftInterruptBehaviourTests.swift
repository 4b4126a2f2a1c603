import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// Interrupting a connection from another thread, as SQift code does it.
@Suite struct SQiftInterruptBehaviourTests {
    @Test func interruptStopsALongQuery() throws {
        let connection = try Connection()
        let started = DispatchSemaphore(value: 0)
        try connection.addScalarFunction(named: "started", argumentCount: 0) { _, _ in
            started.signal()
            return .integer(1)
        }
        // SQift code captures the connection directly; Connection is not Sendable, which Swift 5
        // mode reports as a warning (an error in Swift 6 mode).
        nonisolated(unsafe) let shared = connection
        DispatchQueue.global().async {
            _ = started.wait(timeout: .now() + 10)
            shared.interrupt()
        }
        do {
            let _: Int? = try connection.query(
                """
                WITH RECURSIVE c(x) AS (SELECT started() UNION ALL SELECT x + 1 FROM c)
                SELECT count(*) FROM c
                """)
            Issue.record("expected an interrupt")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_INTERRUPT)
            #expect(error.message == "interrupted")
        }
        let after: Int = try connection.query("SELECT 1")
        #expect(after == 1)
    }
}
