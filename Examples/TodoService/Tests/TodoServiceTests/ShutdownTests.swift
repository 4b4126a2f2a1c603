import Foundation
import Testing
import TodoKit

/// The service binary, built beside the tests (the test target depends on it).
func serviceBinary() throws -> URL { try builtBinary("TodoService") }

/// An executable of this package, built beside the tests (the test target depends on it).
func builtBinary(_ name: String) throws -> URL {
    var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        candidates.append(bundle.bundleURL.deletingLastPathComponent())
    }
    for directory in candidates {
        let binary = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
    }
    throw ServiceProcessError(message: "no \(name) binary next to the tests in \(candidates.map(\.path))")
}

/// The exit status of `process`, waiting at most `seconds` (then it is killed and this throws).
func waitForExit(_ process: Process, seconds: Double) throws -> Int32 {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning {
        if Date() > deadline {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ServiceProcessError(message: "the service did not exit within \(seconds) s")
        }
        usleep(50_000)
    }
    return process.terminationStatus
}

struct ServiceProcessError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The service in a process of its own, started on a free port, killed if a test leaves it running.
final class ServiceProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` and the pipe are set up in init and only read afterwards;
    // Foundation's Process is thread-safe for terminate/waitUntilExit.
    let process = Process()
    let output = Pipe()
    let port: Int

    init(databasePath: String) throws {
        process.executableURL = try serviceBinary()
        process.arguments = ["--db", databasePath, "--port", "0", "--log-level", "warning"]
        process.standardOutput = output
        try process.run()
        // The first line says where it listens.
        var line = Data()
        let handle = output.fileHandleForReading
        let start = Date()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { throw ServiceProcessError(message: "the service exited before listening") }
            line.append(chunk)
            if Date().timeIntervalSince(start) > 60 { throw ServiceProcessError(message: "the service did not start within 60 s") }
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let portText = text.split(separator: "\n").first?.split(separator: " ").last, let port = Int(portText) else {
            throw ServiceProcessError(message: "unexpected first line: \(text)")
        }
        self.port = port
    }

    /// The exit status, waiting at most `seconds` (then the process is killed and this throws).
    func waitForExit(seconds: Double) throws -> Int32 {
        try TodoServiceTests.waitForExit(process, seconds: seconds)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// SIGTERM in the middle of a load: every acknowledged write is kept, the WAL is checkpointed
/// (truncated), and the process exits 0.
@Suite struct ShutdownTests {
    @Test(.timeLimit(.minutes(3))) func sigtermDuringLoadKeepsEveryAcknowledgedWrite() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.databasePath
        let service = try ServiceProcess(databasePath: path)
        async let tally = runLoad(port: service.port, clientCount: 16, until: .now + .seconds(30), stopOnTransportError: true)
        try await Task.sleep(for: .seconds(3))
        #expect(kill(service.process.processIdentifier, SIGTERM) == 0)
        let status = try service.waitForExit(seconds: 60)
        let seen = await tally
        print("shutdown: \(seen.requests) requests before and during shutdown, statuses \(seen.statuses.sorted { $0.key < $1.key })")
        #expect(status == 0)
        #expect(service.process.terminationReason == .exit)
        #expect(seen.acknowledged.count > 0)
        // Requests that arrived while shutting down got 503 at worst, never a 500.
        #expect(seen.statuses.keys.allSatisfy { $0 < 500 || $0 == 503 }, "\(seen.statuses)")
        // The WAL was checkpointed into the database before the close: empty or gone.
        let wal = path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0)
        let onDisk = try todosOnDisk(path)
        let kept = Dictionary(onDisk.map { ($0.id ?? -1, $0.title) }, uniquingKeysWith: { first, _ in first })
        for (id, title) in seen.acknowledged {
            #expect(kept[id] == title, "acknowledged todo \(id) lost")
        }
    }
}

/// Options the service cannot serve with are refused before it opens anything.
@Suite struct OptionValidationTests {
    @Test(arguments: ["0", "-3"])
    func fewerThanOneReaderIsRefused(readers: String) throws {
        try expectRefusal(["--readers=\(readers)"], saying: "--readers must be at least 1")
    }

    @Test(arguments: ["queue", "Calling-Thread", "calling-thread "])
    func anUnknownPlaceForStrataReadsIsRefused(reads: String) throws {
        try expectRefusal(["--strata-reads=\(reads)"], saying: "unknown --strata-reads")
    }

    /// Runs the service with `options`; it must exit with an error saying `message` before it
    /// opens the database.
    func expectRefusal(_ options: [String], saying message: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-readers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("todos.sqlite").path
        let process = Process()
        process.executableURL = try serviceBinary()
        process.arguments = ["--db", database, "--port", "0"] + options
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        // A service that accepted the option would run until killed: give it 30 s to refuse.
        let status = try waitForExit(process, seconds: 30)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && status != 0, "refused, not killed")
        #expect(said.contains(message), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: database), "nothing opened")
    }
}
