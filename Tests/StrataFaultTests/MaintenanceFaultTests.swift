import Foundation
import StrataSQift
import Strata
import Testing
#if canImport(SQLite3)
import SQLite3
#endif

extension FaultSweeps {
    /// Online backup, a WAL checkpoint and VACUUM INTO, under every fault.
    @Suite struct MaintenanceFaultTests {
        static func setUp(_ db: Connection) throws {
            try makeItems(db, count: 60, payload: "randomblob(700)", index: "CREATE INDEX items_by_name ON items(name)")
        }

        /// A copy's rows when it is a database with tables, "empty" when it is absent or has none:
        /// whole or nothing, never between.
        static func copyState(_ path: String) throws -> String? {
            guard FileManager.default.fileExists(atPath: path) else { return "empty" }
            let copy = try Connection(storageLocation: .onDisk(path), readOnly: true)
            let integrity: [String] = try copy.query("PRAGMA integrity_check")
            guard integrity == ["ok"] else { return "damaged: \(integrity)" }
            let tables: Int = try copy.query("SELECT count(*) FROM sqlite_master") ?? 0
            return tables == 0 ? "empty" : try allRows(copy)
        }

        final class BackupEnds: @unchecked Sendable { // written once before the semaphore signals
            var result: Connection.BackupResult?
        }

        @Test func onlineBackup() throws {
            try Sweep<(source: Connection, destination: Connection)>(
                name: "online backup", faults: Fault.journalModeFaults, setUp: Self.setUp,
                open: { path, scope in
                    (try Connection(storageLocation: .onDisk(path)), try Connection(storageLocation: .onDisk(scope.path("copy.sqlite"))))
                },
                connection: { $0.source },
                run: { pair in
                    let done = DispatchSemaphore(value: 0)
                    let ends = BackupEnds()
                    try pair.source.backup(to: pair.destination, pageSize: 7, completionQueue: .global()) { result in
                        ends.result = result
                        done.signal()
                    }
                    done.wait()
                    if case .failure(let error) = ends.result { throw error }
                    #expect(pair.destination.isInTransaction == false)
                },
                state: allRows,
                extraFiles: ["copy.sqlite"], extraState: Self.copyState
            )()
        }

        @Test func walCheckpoint() throws {
            try Sweep<Connection>(
                name: "WAL checkpoint", faults: Fault.walModeFaults, setUp: Self.setUp,
                open: { path, _ in
                    let db = try Connection(storageLocation: .onDisk(path))
                    try db.execute("PRAGMA wal_autocheckpoint = 0")
                    try db.run("UPDATE items SET name = name || ' again' WHERE id % 3 = 0")
                    try db.run("DELETE FROM items WHERE id > 50")
                    return db
                },
                connection: { $0 },
                run: { db in _ = try db.checkpoint(mode: .truncate) },
                state: allRows,
                wal: true, changesData: false
            )()
        }

        @Test func vacuumInto() throws {
            try Sweep<(connection: Connection, target: String)>(
                name: "VACUUM INTO", faults: Fault.journalModeFaults, setUp: Self.setUp,
                open: { path, scope in (try Connection(storageLocation: .onDisk(path)), scope.path("vacuumed.sqlite")) },
                connection: { $0.connection },
                run: { pair in try pair.connection.run("VACUUM INTO ?", pair.target) },
                state: allRows,
                extraFiles: ["vacuumed.sqlite"], extraState: Self.copyState,
                sqliteTranslations: [(SQLITE_ERROR, "output file already exists")]
            )()
        }
    }
}
