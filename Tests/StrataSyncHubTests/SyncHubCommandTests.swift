#if Hub
import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Strata
import StrataSync
import Testing
import StrataTestSupport

/// `strata-sync-hub` as a new user runs it: `--help`, bad arguments (exit 64 with a message),
/// then a hub started on a folder with a space created from a schema file, synced through, and
/// stopped with SIGTERM (a graceful exit).
@Suite struct SyncHubCommandTests {
    static func binary() throws -> URL { try builtExecutable(named: "strata-sync-hub") }

    /// Runs the hub to its end in `folder`; its exit status and what it printed.
    static func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        try runToEnd(try binary(), arguments, in: folder)
    }

    @Test func helpIsForANewUserAndCreatesNothing() throws {
        let folder = try TemporaryDirectory()
        let (status, printed) = try Self.run(["--help"], in: folder.url)
        #expect(status == 0)
        // Compared with its lines unwrapped: the parser wraps help to the terminal's width.
        let output = printed.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for expected in [
            "USAGE: strata-sync-hub [<options>] [<folder>]", "--postgres", "--jwt-key", "--token", "--create", "--schema", "--policy",
            "local development", "SIGTERM", "HS256", "ES256", "--insecure",
            "strata-sync-hub migrate (FOLDER | --postgres URL) --space S --step FILE.sql [--dry-run]",
            "strata-sync-hub spaces (FOLDER | --postgres URL)"
        ] {
            #expect(output.contains(expected), "\(expected) missing from:\n\(output)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "--help made no folder")
    }

    @Test(arguments: [
        (["hub", "--token", "a", "--jwt-key", "k"], "exclusive"),
        (["hub", "--create", "team"], "go together"),
        (["hub", "--policy", "todo=sometimes"], "lastWriterWins or hubWins"),
        (["hub", "--policy", "todo"], "TABLE=POLICY"),
        (["hub", "--port", "70000"], "--port"),
        (["hub", "--log-level", "loud"], "--log-level"),
        ([], "folder"),
        (["hub", "--postgres", "postgres://u@127.0.0.1/db"], "one of them"),
        // Issue 66: a hub that would serve without authentication says so and does not start.
        (["hub"], "no --token and no --jwt-key"),
        (["hub"], "--insecure"),
        (["hub", "--insecure", "--token", "t"], "neither --token nor --jwt-key"),
        (["migrate", "--space", "team", "--step", "x.sql"], "one of them"),
        (["migrate", "hub"], "--space"),
        (["spaces"], "one of them"),
        (["spaces", "no-such-folder"], "no folder of spaces")
    ])
    func badArgumentsExit64WithAMessage(arguments: [String], message: String) throws {
        let folder = try TemporaryDirectory()
        let (status, output) = try Self.run(arguments, in: folder.url)
        #expect(status == 64, "\(output)")
        #expect(output.contains(message), "\(message) missing from:\n\(output)")
    }

    /// A rules file with a key rules do not have is refused before anything is created, naming
    /// the key and the nearest known one; rules refused at `--create` leave no space behind.
    @Test func refusedRulesAtStartCreateNothing() throws {
        let folder = try TemporaryDirectory()
        let schema = folder.url.appendingPathComponent("team.sql")
        try "CREATE TABLE list(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL);".write(to: schema, atomically: true, encoding: .utf8)
        let misspelt = folder.url.appendingPathComponent("misspelt.json")
        try #"{"buckets": [{"name": "mine", "paramaters": "SELECT id AS l FROM list WHERE owner = auth.user", "data": {"list": "id = bucket.l"}}]}"#
            .write(to: misspelt, atomically: true, encoding: .utf8)
        let wrong = folder.url.appendingPathComponent("wrong.json")
        try #"{"buckets": [{"name": "mine", "data": {"list": "owner = auth.user AND nosuchcolumn = 1"}}]}"#
            .write(to: wrong, atomically: true, encoding: .utf8)
        for (file, message) in [(misspelt, "did you mean \"parameters\""), (wrong, "bucket mine, data of list")] {
            let (status, output) = try Self.run(
                ["hub", "--create", "team", "--schema", schema.path, "--rules", "team=" + file.path, "--token", "t", "--port", "0"], in: folder.url)
            #expect(status == 1, "\(output)")
            #expect(output.contains(message), "\(message) missing from:\n\(output)")
            #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("hub/team.sqlite").path), "a space was created")
            let (_, spaces) = try Self.run(["spaces", "hub"], in: folder.url)
            #expect(!spaces.contains("team"), "\(spaces)")
        }
        let (status, output) = try Self.run(["hub", "--rules", "ghost=" + wrong.path, "--token", "t", "--port", "0"], in: folder.url)
        #expect(status == 1, "\(output)")
        #expect(output.contains("--create ghost"), "\(output)")
    }

    @Test func aHubStartedFromTheCommandLineSyncsAndStopsOnSIGTERM() async throws {
        let folder = try TemporaryDirectory()
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"
        try Data(schema.utf8).write(to: folder.url.appendingPathComponent("team.sql"))
        var lastError = ""
        for _ in 0..<5 {
            let port = try unusedLocalPort()
            let process = ChildProcess()
            process.executableURL = try Self.binary()
            process.arguments = [
                folder.path("hub"), "--port", String(port), "--token", "dev", "--create", "team",
                "--schema", folder.path("team.sql"), "--policy", "todo=hubWins"
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            var healthy = false
            for _ in 0..<1_200 where process.isRunning {
                if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!),
                    (response as? HTTPURLResponse)?.statusCode == 200
                {
                    healthy = true
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            guard healthy else { lastError = "the hub on \(port) never answered"; continue }
            let database = try Database(storageLocation: .onDisk(folder.path("phone.sqlite")))
            try database.executeWrite { try $0.execute(schema) }
            let replica = try SyncReplica(
                database: database, replicaID: "phone", space: "team", tables: ["todo"],
                transport: HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: "dev"))
            try await replica.write { try $0.run("INSERT INTO todo VALUES ('1', 'milk')") }
            try await replica.sync()
            #expect(try await replica.pendingChangeCount == 0)
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 0, "SIGTERM ends the hub gracefully")
            let hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")))
            #expect(try hub.withSpace("team") { try $0.query("SELECT title FROM todo WHERE id = '1'") as String? } == "milk")
            return
        }
        Issue.record(Comment(rawValue: lastError))
    }

    /// A hub process on `port` with `arguments` (output to `log`), and whether its health answers
    /// within `seconds` while it runs.
    static func start(_ arguments: [String], port: Int, log: URL) throws -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = try binary()
        process.arguments = arguments + ["--port", String(port)]
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    static func healthy(_ process: ChildProcess, port: Int, within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, process.isRunning {
            if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return true
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Issue 64, item 8: every hub of a deploy may start with the same --create.
    @Test func threeHubsStartedAtOnceWithTheSameCreateAllComeUp() async throws {
        let folder = try TemporaryDirectory()
        try Data("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)".utf8).write(to: folder.url.appendingPathComponent("team.sql"))
        let ports = try unusedLocalPorts(count: 3)
        let processes = try ports.map { port in
            try Self.start(
                [folder.path("hub"), "--create", "team", "--schema", folder.path("team.sql"), "--log-level", "warning", "--insecure"],
                port: port, log: folder.url.appendingPathComponent("hub-\(port).log"))
        }
        defer { for process in processes where process.isRunning { process.terminate() } }
        for (process, port) in zip(processes, ports) {
            let up = await Self.healthy(process, port: port, within: 60)
            let log = (try? String(contentsOf: folder.url.appendingPathComponent("hub-\(port).log"), encoding: .utf8)) ?? ""
            #expect(up, "the hub on \(port) did not come up: \(log)")
        }
        // A hub given another schema for the space says so and stops.
        try Data("CREATE TABLE todo(id TEXT PRIMARY KEY)".utf8).write(to: folder.url.appendingPathComponent("other.sql"))
        let (status, output) = try Self.run(
            [folder.path("hub"), "--create", "team", "--schema", folder.path("other.sql"), "--port", "0", "--insecure"],
            in: folder.url)
        #expect(status != 0 && output.contains("another schema"), "\(status): \(output)")
    }

    /// Issue 64, item 8: a hub started before PostgreSQL answers waits, then creates the space.
    /// A server of the test's own (`.ci/postgres.sh`), paused while the hub starts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil, "needs PostgreSQL: eval \"$(.ci/postgres.sh start)\""))
    func aHubStartedBeforePostgreSQLCreatesTheSpaceWhenItAnswers() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".ci/postgres.sh")
        func postgres(_ arguments: [String]) throws -> String {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [script.path] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw SyncError.refused(".ci/postgres.sh \(arguments) failed") }
            return String(decoding: data, as: UTF8.self)
        }
        // Not in a TemporaryDirectory: the server's folder must outlive every use of the path (stop removes it).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-hub-" + UUID().uuidString).path
        let exports = try postgres(["start", directory])
        defer { _ = try? postgres(["stop", directory]) }
        let url = try #require(
            exports.split(separator: "\n").first { $0.contains("STRATA_POSTGRES_URL=") }?
                .split(separator: "=", maxSplits: 1).last.map(String.init))
        _ = try postgres(["pause", directory])

        let folder = try TemporaryDirectory()
        try Data("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)".utf8).write(to: folder.url.appendingPathComponent("team.sql"))
        let port = try unusedLocalPort()
        let log = folder.url.appendingPathComponent("hub.log")
        let hub = try Self.start(
            ["--postgres", url, "--create", "team", "--schema", folder.path("team.sql"), "--token", "dev"],
            port: port, log: log)
        defer { if hub.isRunning { hub.terminate() } }
        try await Task.sleep(for: .seconds(2))
        #expect(hub.isRunning, "the hub gave up before PostgreSQL answered: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        _ = try postgres(["resume", directory])
        let up = await Self.healthy(hub, port: port, within: 60)
        #expect(up, "the hub never came up: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        guard up else { return }
        let database = try Database(storageLocation: .onDisk(folder.path("phone.sqlite")))
        try database.executeWrite { try $0.execute("CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)") }
        let replica = try SyncReplica(
            database: database, replicaID: "phone", space: "team", tables: ["todo"],
            transport: HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!, token: "dev"))
        try await replica.write { try $0.run("INSERT INTO todo VALUES ('1', 'milk')") }
        try await replica.sync()
        #expect(try await replica.pendingChangeCount == 0, "the space was created and took the write")
    }
}
#endif
