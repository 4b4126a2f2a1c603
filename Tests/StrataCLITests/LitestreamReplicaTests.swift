#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing
import StrataTestSupport

/// A read replica through the real litestream-vfs extension, over a `file://` replica that the
/// real `litestream replicate` keeps up to date. litestream-vfs reads its replica URL from the
/// environment a process starts with, so the replica is opened in `strata-replica-reader`, started
/// with `LITESTREAM_REPLICA_URL` set, and driven line by line.
@Suite(.serialized, .enabled(if: Litestream.isInstalled))
struct LitestreamReplicaTests {
    /// A `strata-replica-reader` process: one command line in, one answer line out.
    final class Reader: @unchecked Sendable {
        // @unchecked Sendable: one test drives it, one command at a time (each call hops to a
        // Dispatch thread and back, never two at once).
        let process = ChildProcess()
        private let input = Pipe()
        private let output = Pipe()
        private var buffer = Data()

        init(replicaURL: String, vfs: String) throws {
            process.executableURL = try strataBinary().deletingLastPathComponent().appendingPathComponent("strata-replica-reader")
            process.arguments = [vfs]
            var environment = Litestream.childEnvironment
            environment["LITESTREAM_REPLICA_URL"] = replicaURL
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// The next line the reader prints.
        func line() -> String {
            while !buffer.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else {
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            defer { buffer.removeSubrange(...end) }
            return String(decoding: buffer[..<end], as: UTF8.self)
        }

        func send(_ command: String) {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
        }

        func ask(_ command: String) -> String {
            send(command)
            return line()
        }

        deinit {
            try? input.fileHandleForWriting.close()
            Litestream.stop(process)
        }
    }

    @Test func aReplicaDatabaseReadsThePrimaryAndRefusesWrites() async throws {
        let vfs = try #require(Litestream.vfsExtension())
        let sandbox = try Sandbox()
        let primaryPath = sandbox.path("primary.sqlite")
        let replicaFolder = sandbox.path("replica")
        let url = "file://\(replicaFolder)"
        let primary = try replicatedDatabase(primaryPath, .litestream)
        try primary.executeWrite { db in
            try db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)")
            for item in ["tea", "bread", "milk"] { try db.run("INSERT INTO orders (item) VALUES (?)", item) }
        }

        // Checked before anything loads, in this process: each is refused with its reason.
        #expect(throws: LitestreamReplicaError.invalidURL("/backups/app", reason: "it needs a scheme such as file:// or s3://")) {
            try Database(replicaOf: "/backups/app", litestreamVFS: vfs)
        }
        #expect {
            try Database(replicaOf: "ftp://host/app", litestreamVFS: vfs)
        } throws: { error in
            guard case LitestreamReplicaError.invalidURL(_, let reason) = error else { return false }
            return reason.contains("not ftp")
        }
        // An empty folder: the VFS would wait for a snapshot forever.
        #expect(throws: LitestreamReplicaError.noSnapshot(replicaURL: url)) {
            try Database(replicaOf: url, litestreamVFS: vfs)
        }

        let config = sandbox.path("litestream.yml")
        try Litestream.writeConfig(config, database: primaryPath, replicas: Litestream.fileReplica(replicaFolder))
        let replicator = try Litestream.replicate(config: config)
        defer { Litestream.stop(replicator) }
        let shipped = try await offThePool { Litestream.wait(seconds: 30) { Litestream.hasSnapshot(replicaFolder) } }
        try #require(shipped, "Litestream shipped a snapshot")

        // This test process did not start with the URL in its environment, so the VFS could not
        // read it: refused with what to do.
        #expect(
            throws: LitestreamReplicaError.notInEnvironment(
                replicaURL: url, found: ProcessInfo.processInfo.environment["LITESTREAM_REPLICA_URL"])
        ) {
            try Database(replicaOf: url, litestreamVFS: vfs)
        }

        // A missing file and a file that is not an extension.
        let missing = try Reader(replicaURL: url, vfs: sandbox.path("missing.so"))
        #expect(try await offThePool { missing.line() } == "error: No extension file at \(sandbox.path("missing.so"))")
        let notAnExtension = try Reader(replicaURL: url, vfs: primaryPath)
        #expect(try await offThePool { notAnExtension.line() }.hasPrefix("error: Cannot load the extension \(primaryPath): "))

        let reader = try Reader(replicaURL: url, vfs: vfs)
        @Sendable func ask(_ command: String) async throws -> String { try await offThePool { reader.ask(command) } }
        try #require(try await offThePool { reader.line() } == "opened read-only=true")
        #expect(try await ask("read SELECT group_concat(item, ',') FROM (SELECT item FROM orders ORDER BY id)") == "tea,bread,milk")

        // Writes are refused with a reason through every write entry point, and the connections
        // underneath are read-only too.
        let refused = "error: " + LitestreamReplicaError.writeRefused(replicaURL: url).description
        #expect(try await ask("write INSERT INTO orders (item) VALUES ('jam')") == refused)
        #expect(try await ask("async-write INSERT INTO orders (item) VALUES ('jam')") == refused)
        #expect(try await ask("async-transaction INSERT INTO orders (item) VALUES ('jam')") == refused)
        #expect(try await ask("raw-write INSERT INTO orders (item) VALUES ('jam')").contains("readonly database"))

        // Connections that are not the replica's still open after the VFS loaded (its automatic
        // extension would fail them).
        #expect(try await ask("other") == "42")

        // A commit on the primary reaches the replica's readers within a few seconds.
        try primary.executeWrite { try $0.run("INSERT INTO orders (item) VALUES (?)", "apples") }
        let committed = Date()
        let seen = try await offThePool {
            Litestream.wait(seconds: 10) { reader.ask("read SELECT count(*) FROM orders WHERE item = 'apples'") == "1" }
        }
        let lag = Date().timeIntervalSince(committed)
        #expect(seen && lag < 5, "the replica saw the commit after \(lag) s")
        #expect(try await ask("parallel SELECT count(*) FROM orders") == "4,4,4,4")

        // An observation on the replica hears the primary's next commit (polling data_version).
        reader.send("observe-until 5 SELECT count(*) FROM orders")
        try await Task.sleep(for: .milliseconds(500))
        try primary.executeWrite { try $0.run("INSERT INTO orders (item) VALUES (?)", "pears") }
        let observed = try await offThePool { reader.line() }
        #expect(observed.hasPrefix("seen 5 after"), "the observation heard the commit: \(observed)")

        // The same URL again is fine; another is refused, since the VFS reads one per process.
        #expect(try await ask("replica \(url)") == "ok")
        #expect(
            try await ask("replica file:///elsewhere") == "error: "
                + LitestreamReplicaError.anotherReplicaLoaded(
                    loaded: url, requested: "file:///elsewhere"
                ).description)
    }
}
#endif

/// A database opened as new code opens one under a replicator: the safety as a configuration field.
func replicatedDatabase(_ path: String, _ safety: ReplicationSafety) throws -> Database {
    var configuration = Database.Configuration()
    configuration.replicationSafety = safety
    return try Database(path: path, configuration: configuration)
}
