#if Hub
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Strata
import StrataSync
import Testing

/// `strata-sync-hub` as a new user runs it: `--help`, bad arguments (exit 64 with a message),
/// then a hub started on a folder with a space created from a schema file, synced through, and
/// stopped with SIGTERM (a graceful exit).
@Suite struct SyncHubCommandTests {
    static func binary() throws -> URL {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        guard let binary = candidates.map({ $0.appendingPathComponent("strata-sync-hub") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw SyncError.refused("no strata-sync-hub next to the tests in \(candidates.map(\.path))")
        }
        return binary
    }

    /// Runs the hub to its end; its exit status and what it printed.
    static func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func helpIsForANewUserAndCreatesNothing() throws {
        let folder = try HubFolder()
        let (status, printed) = try Self.run(["--help"], in: folder.url)
        #expect(status == 0)
        // Compared with its lines unwrapped: the parser wraps help to the terminal's width.
        let output = printed.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for expected in ["USAGE: strata-sync-hub [<options>] [<folder>]", "--postgres", "--jwt-key", "--token", "--create", "--schema", "--policy",
                         "local development", "SIGTERM", "HS256", "ES256"] {
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
    ])
    func badArgumentsExit64WithAMessage(arguments: [String], message: String) throws {
        let folder = try HubFolder()
        let (status, output) = try Self.run(arguments, in: folder.url)
        #expect(status == 64, "\(output)")
        #expect(output.contains(message), "\(message) missing from:\n\(output)")
    }

    @Test func aHubStartedFromTheCommandLineSyncsAndStopsOnSIGTERM() async throws {
        let folder = try HubFolder()
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"
        try Data(schema.utf8).write(to: folder.url.appendingPathComponent("team.sql"))
        var lastError = ""
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let process = Process()
            process.executableURL = try Self.binary()
            process.arguments = [folder.path("hub"), "--port", String(port), "--token", "dev", "--create", "team",
                                 "--schema", folder.path("team.sql"), "--policy", "todo=hubWins"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            var healthy = false
            for _ in 0..<1_200 where process.isRunning {
                if let (_, response) = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!),
                   (response as? HTTPURLResponse)?.statusCode == 200 {
                    healthy = true
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            guard healthy else { lastError = "the hub on \(port) never answered"; continue }
            let database = try Database(storageLocation: .onDisk(folder.path("phone.sqlite")))
            try database.executeWrite { try $0.execute(schema) }
            let replica = try SyncReplica(database: database, replicaID: "phone", space: "team", tables: ["todo"],
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
}
#endif
