import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

@Suite struct BackupRetryTests {
    /// A destination that stays locked ends the backup with `SQLITE_BUSY`, rather than retrying forever.
    @Test func lockedDestinationGivesUp() async throws {
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let source = try makeConnection(executing: "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
            let destinationPath = directory.path("backup.db")
            let destination = try Connection(storageLocation: .onDisk(destinationPath))
            let locker = try makeConnection(.onDisk(destinationPath), executing: "CREATE TABLE held(x); BEGIN IMMEDIATE; INSERT INTO held VALUES(1)")

            let done = DispatchSemaphore(value: 0)
            let outcome = Locked<Connection.BackupResult?>(nil)
            let started = Date()
            try source.backup(to: destination, completionQueue: DispatchQueue(label: "backup-test")) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            let elapsed = Date().timeIntervalSince(started)
            #expect(elapsed >= Connection.backupLockedRetryLimit - 0.5)
            guard case .failure(let error as SQLiteError)? = outcome.current else {
                Issue.record("expected a failure, got \(String(describing: outcome.current))")
                return
            }
            #expect(error.code == SQLITE_BUSY)
            try locker.execute("ROLLBACK")
        }
    }
}
