#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing
#if canImport(SQLite3)
import SQLite3
import StrataTestSupport
#endif

extension FaultSweeps {
    /// `strata backup`, `migrate` and `vacuum` onto a full disk: the `strata` binary runs with the
    /// fault VFS preloaded (`LD_PRELOAD` of libStrataFaultVFSPreload, configured by
    /// `STRATA_FAULT_VFS` and `STRATA_FAULT_ARM`; see FaultVFS.c), so the shipped binary carries no
    /// test code. Each command must exit non-zero with a one-line error, leave the source as it was,
    /// and leave no partial target.
    @Suite struct CLIFaultTests {
        /// The built `strata` binary and the preload library beside it.
        static func binaries() throws -> (strata: URL, preload: URL) {
            let candidates = builtProductFolders()
            for directory in candidates {
                let strata = directory.appendingPathComponent("strata")
                let preload = directory.appendingPathComponent("libStrataFaultVFSPreload.so")
                if FileManager.default.isExecutableFile(atPath: strata.path), FileManager.default.fileExists(atPath: preload.path) {
                    return (strata, preload)
                }
            }
            throw FaultTestError("no strata binary and libStrataFaultVFSPreload.so next to the tests in \(candidates.map(\.path))")
        }

        struct Run { let status: Int32; let stderr: String }

        /// Runs `strata arguments` in `directory` with a persistent full disk from the `nth` write on
        /// files whose path contains `fragment`.
        static func strata(_ arguments: [String], in directory: URL, fullFrom nth: Int, onFilesContaining fragment: String) throws -> Run {
            let (strata, preload) = try binaries()
            let process = ChildProcess()
            process.executableURL = strata
            process.arguments = arguments
            process.currentDirectoryURL = directory
            var environment = ProcessInfo.processInfo.environment
            environment["LD_PRELOAD"] = preload.path
            environment["STRATA_FAULT_VFS"] = "default"
            // fragment:kind:method:nth:code:persistent:short (any kind, xWrite, SQLITE_FULL, persistent)
            environment["STRATA_FAULT_ARM"] = "\(fragment):-1:\(FaultMethod.write.rawValue):\(nth):\(SQLITE_FULL):1:0"
            process.environment = environment
            let errorPipe = Pipe()
            process.standardError = errorPipe
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stderr = errorPipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(status: process.terminationStatus, stderr: String(decoding: stderr, as: UTF8.self))
        }

        static func makeSource(_ path: String) throws {
            let db = try Connection(storageLocation: .onDisk(path))
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, payload BLOB)")
            try db.transaction { for id in 1...40 { try db.run("INSERT INTO items VALUES(?, randomblob(900))", id) } }
        }

        static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

        /// Runs `command` with the fault at N = 1, 2, ... until it succeeds; returns the points tried.
        static func sweep(
            _ name: String, setUp: (FaultScope) throws -> Void, arguments: [String], target: String,
            checkSuccess: (FaultScope) throws -> Void
        ) throws -> Int {
            var points = 0
            for nth in 1...200 {
                let scope = try FaultScope()
                try setUp(scope)
                let source = try Data(contentsOf: URL(fileURLWithPath: scope.path("source.sqlite")))
                let sourceRows = try allRows(Connection(storageLocation: .onDisk(scope.path("source.sqlite")), readOnly: true))
                let run = try strata(arguments, in: scope.directory, fullFrom: nth, onFilesContaining: "/\(target)")
                points += 1
                let unchanged = bytes(scope.path("source.sqlite")) == source
                if run.status == 0 {
                    try checkSuccess(scope)
                    break
                }
                let lines = run.stderr.split(whereSeparator: \.isNewline)
                #expect(lines.count == 1, "\(name) at write \(nth): \(lines.count) lines of error: \(run.stderr)")
                #expect(run.stderr.contains("full"), "\(name) at write \(nth): \(run.stderr)")
                #expect(unchanged || target == "source.sqlite", "\(name) at write \(nth): the source changed")
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: scope.directory.path).filter { $0.hasPrefix(target) }
                if target == "source.sqlite" {
                    // Migrating in place: the database holds exactly what it held, and is whole. (A disk
                    // that stays full fails the rollback too: the hot journal is rolled back by the
                    // next connection that can write, as here.)
                    let db = try Connection(storageLocation: .onDisk(scope.path("source.sqlite")))
                    #expect(try db.query("PRAGMA integrity_check") as String? == "ok")
                    #expect(try allRows(db) == sourceRows, "\(name) at write \(nth): the database changed")
                } else {
                    #expect(leftovers.isEmpty, "\(name) at write \(nth): a partial target was left: \(leftovers)")
                }
            }
            print("fault sweep: CLI \(name) onto a full disk: \(points) fault points")
            return points
        }

        @Test func backupOntoAFullDisk() throws {
            _ = try Self.sweep(
                "backup", setUp: { try Self.makeSource($0.path("source.sqlite")) },
                arguments: ["backup", "source.sqlite", "copy.sqlite", "--pages-per-step", "5"], target: "copy.sqlite"
            ) { scope in
                let copy = try Connection(storageLocation: .onDisk(scope.path("copy.sqlite")))
                #expect(try copy.query("SELECT count(*) FROM items") as Int? == 40)
            }
        }

        @Test func vacuumOntoAFullDisk() throws {
            _ = try Self.sweep(
                "vacuum --into", setUp: { try Self.makeSource($0.path("source.sqlite")) },
                arguments: ["vacuum", "source.sqlite", "--into", "vacuumed.sqlite"], target: "vacuumed.sqlite"
            ) { scope in
                let copy = try Connection(storageLocation: .onDisk(scope.path("vacuumed.sqlite")))
                #expect(try copy.query("SELECT count(*) FROM items") as Int? == 40)
            }
        }

        @Test func migrateOnAFullDisk() throws {
            _ = try Self.sweep(
                "migrate",
                setUp: { scope in
                    try Self.makeSource(scope.path("source.sqlite"))
                    let migrations = scope.directory.appendingPathComponent("migrations")
                    try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
                    // One version: each version is its own transaction, so the old state is the only other.
                    try Data(
                        "CREATE TABLE more(id INTEGER PRIMARY KEY, note TEXT); INSERT INTO more SELECT id, hex(payload) FROM items; UPDATE items SET payload = randomblob(1200);"
                            .utf8
                    )
                    .write(to: migrations.appendingPathComponent("001_more.sql"))
                }, arguments: ["migrate", "source.sqlite", "--dir", "migrations"], target: "source.sqlite"
            ) { scope in
                let db = try Connection(storageLocation: .onDisk(scope.path("source.sqlite")))
                #expect(try db.query("SELECT count(*) FROM more") as Int? == 40)
            }
        }
    }
}
#endif
