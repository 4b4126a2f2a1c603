#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing
import StrataTestSupport

/// The real `litestream` binary streams a Strata writer's WAL to a replica (a `file://` folder,
/// then an S3 bucket on moto's server) while the writer is killed with SIGKILL at random moments;
/// after each kill the replica is restored and checked. Runs when `STRATA_CRASH_TESTS=1`
/// (`.ci/run` sets it, after installing Litestream and moto from PyPI), so the README's
/// `swift test` stays quick.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["STRATA_CRASH_TESTS"] == "1"))
struct LitestreamCrashTests {
    static let syncInterval = 0.1
    /// Commits older than the sync interval plus this, at the kill, must be in the replica.
    static let margin = 1.5

    static func writerBinary() throws -> URL { try builtExecutable(named: "strata-crash-writer") }

    /// Collects a process's standard output as it is written.
    final class Output: @unchecked Sendable {
        // @unchecked Sendable: `text` is only reached under `lock`.
        private let lock = NSLock()
        private var text = ""
        func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
        var current: String { lock.withLock { text } }
    }

    @Test func killedWritersLoseNothingLitestreamHadTimeToShipToAFolder() throws {
        let sandbox = try Sandbox()
        let replica = sandbox.work.appendingPathComponent("replica").path
        try killAndRestore(
            in: sandbox,
            replica: """
                          - type: file
                            path: \(replica)
                            sync-interval: \(Int(Self.syncInterval * 1_000))ms
                """)
    }

    @Test func killedWritersLoseNothingLitestreamHadTimeToShipToS3() throws {
        let sandbox = try Sandbox()
        let moto = try MotoServer()
        try killAndRestore(in: sandbox, replica: moto.replicaConfig(path: "ledger", syncInterval: "\(Int(Self.syncInterval * 1_000))ms"))
        withExtendedLifetime(moto) {}
    }

    /// Twenty rounds of: Litestream replicates, the writer commits, SIGKILL, restore, check.
    func killAndRestore(in sandbox: Sandbox, replica: String) throws {
        let litestream = try Litestream.binary()
        let writer = try Self.writerBinary()
        let database = sandbox.work.appendingPathComponent("ledger.sqlite").path
        let config = sandbox.work.appendingPathComponent("litestream.yml").path
        try Litestream.writeConfig(config, database: database, replicas: replica)

        var generator = SystemRandomNumberGenerator()
        var reported: [Int: Int64] = [:]
        for round in 1...20 {
            let replicator = try Litestream.replicate(config: config)
            defer { Litestream.stop(replicator) }
            // Litestream first ships what the previous writer left in the WAL; a writer that
            // checkpointed before Litestream holds its read lock would move those frames out of
            // its sight (so an application starts replication first, as here).
            Thread.sleep(forTimeInterval: 1.0)

            let process = ChildProcess()
            process.executableURL = writer
            process.arguments = [database]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            let output = Output()
            pipe.fileHandleForReading.readabilityHandler = { output.append($0.availableData) }
            try process.run()
            Thread.sleep(forTimeInterval: Double.random(in: 0.4...1.2, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            let killedAt = Int64(Date().timeIntervalSince1970 * 1_000)
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
            output.append(pipe.fileHandleForReading.readDataToEndOfFile())
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): the writer was killed")
            for line in output.current.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count == 2, let n = Int(fields[0]), let at = Int64(fields[1]) { reported[n] = at }
            }
            // Litestream keeps running a moment so what it had time to ship is shipped, then stops.
            Thread.sleep(forTimeInterval: 0.5)
            replicator.terminate()
            replicator.waitUntilExit()

            let restored = sandbox.work.appendingPathComponent("restored-\(round).sqlite").path
            let restore = try Litestream.run(litestream, ["restore", "-config", config, "-o", restored, database])
            try #require(restore.status == 0, "round \(round): restore failed: \(restore.output)")
            do {
                try check(restored: restored, round: round, reported: reported, killedAt: killedAt)
            } catch  where Litestream.showsUnpublishedCommit(restored) {
                // Litestream's defect, not Strata's: recorded as a known issue, so it shows in the
                // output without failing the run; any other unreadable copy fails it.
                withKnownIssue("Litestream 0.5.17 shipped a commit that SQLite discarded (round \(round))") {
                    Issue.record("round \(round): the restored copy's header counts more pages than it holds: \(error)")
                }
            } catch {
                Issue.record("round \(round): the restored copy cannot be read: \(error)")
            }
        }
        #expect(reported.count > 20, "the writer committed transactions in every round")
    }

    /// The restored copy passes `integrity_check`, holds no partial transaction, and holds every
    /// transaction reported committed longer ago than the sync interval plus the margin.
    func check(restored: String, round: Int, reported: [Int: Int64], killedAt: Int64) throws {
        let copy = try Connection(storageLocation: .onDisk(restored), readOnly: true)
        #expect(try copy.query("PRAGMA integrity_check") as String? == "ok", "round \(round)")
        let partial: Int? = try copy.query(
            """
            SELECT count(*) FROM ledger WHERE (SELECT count(*) FROM parts WHERE parts.n = ledger.n) <> 3
            """)
        let orphans: Int? = try copy.query("SELECT count(*) FROM parts WHERE n NOT IN (SELECT n FROM ledger)")
        #expect(partial == 0 && orphans == 0, "round \(round): no partial transaction")
        let present = Set(try copy.query("SELECT n FROM ledger") as [Int])
        let deadline = killedAt - Int64((Self.syncInterval + Self.margin) * 1_000)
        let missing = reported.filter { $0.value < deadline && !present.contains($0.key) }.map(\.key).sorted()
        #expect(missing.isEmpty, "round \(round): transactions reported committed before the sync interval are missing: \(missing.prefix(10))")
    }
}
#endif
