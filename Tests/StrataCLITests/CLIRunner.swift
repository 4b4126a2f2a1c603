#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing
import StrataTestSupport

/// What one run of the `strata` binary produced.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard error's non-empty lines.
    var errorLines: [String] { stderr.split(whereSeparator: \.isNewline).map(String.init) }
}

/// The built `strata` binary, next to the test bundle.
func strataBinary() throws -> URL { try builtExecutable(named: "strata") }

/// The first executable called `name` on `PATH` (then `/usr/bin`, `/bin`).
func executable(named name: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"] {
        let candidate = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestFailure(message: "\(name) is not installed (.ci/run installs it)")
}

struct TestFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A per-test directory: `work/` is where commands run (and what tests compare before and after),
/// the root holds the captured output.
final class Sandbox {
    let root: URL
    let work: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cli-\(UUID().uuidString)")
        work = root.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // Readable by everyone, so the permission test can run the tool as another user.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: work.path)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// The path of `name` inside `work/`.
    func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// Writes `text` to `work/name`, creating folders on the way.
    func write(_ text: String, to name: String) throws {
        let url = work.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Every file under `work/` with its bytes, to show that a command changed nothing.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: work.path)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = work.appendingPathComponent(name).path
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            // An unreadable file is compared by its presence only.
            files[name] = isDirectory.boolValue ? Data("<dir>".utf8) : (FileManager.default.contents(atPath: path) ?? Data("<unreadable>".utf8))
        }
        return files
    }

    /// Runs `strata arguments` in `work/` and waits for it (at most `timeout` seconds).
    func strata(_ arguments: String..., timeout: TimeInterval = 60) throws -> CLIResult {
        try run(try strataBinary().path, arguments, timeout: timeout)
    }

    /// Runs `executable arguments` in `work/`, output captured to files beside `work/`.
    func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> CLIResult {
        let process = try start(executable, arguments)
        let deadline = Date().addingTimeInterval(timeout)
        while process.process.isRunning, Date() < deadline { usleep(5_000) }
        if process.process.isRunning {
            process.process.terminate()
            process.process.waitUntilExit()
            throw TestFailure(message: "\(arguments) did not finish within \(timeout) s")
        }
        process.process.waitUntilExit()
        return process.result()
    }

    /// A process started in `work/`; read its output once it has exited.
    struct Started {
        let process: ChildProcess
        let stdoutURL: URL
        let stderrURL: URL

        func result() -> CLIResult {
            CLIResult(
                status: process.terminationStatus,
                stdout: String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self),
                stderr: String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self))
        }
    }

    func start(_ executable: String, _ arguments: [String]) throws -> Started {
        let id = UUID().uuidString
        let stdoutURL = root.appendingPathComponent("\(id).out")
        let stderrURL = root.appendingPathComponent("\(id).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = work
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        return Started(process: process, stdoutURL: stdoutURL, stderrURL: stderrURL)
    }

    /// Creates `name` with a `cars` table and three rows, through Strata.
    @discardableResult
    func makeCarsDatabase(_ name: String = "cars.db", wal: Bool = false) throws -> String {
        let path = self.path(name)
        let connection = try Connection(storageLocation: .onDisk(path))
        if wal { try connection.execute("PRAGMA journal_mode = WAL") }
        try connection.execute(
            """
            CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, photo BLOB);
            INSERT INTO cars(name, price, photo) VALUES('Audi', 52642, x'00FF10');
            INSERT INTO cars(name, price, photo) VALUES('Mercedes, "E"', 57127.5, NULL);
            INSERT INTO cars(name, price, photo) VALUES('Skoda', NULL, NULL);
            """)
        return path
    }

    /// Creates `name` with `rows` rows of 400 random bytes (about 10 rows a page), through Strata.
    @discardableResult
    func makeBigDatabase(_ name: String, rows: Int, wal: Bool = true) throws -> String {
        let path = self.path(name)
        let connection = try Connection(storageLocation: .onDisk(path))
        if wal { try connection.execute("PRAGMA journal_mode = WAL") }
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
        try connection.run(
            """
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
            INSERT INTO t(v) SELECT randomblob(400) FROM c
            """, rows)
        return path
    }
}

/// Reads one integer with Strata (tests check the tool's effects independently of the tool).
func integer(_ sql: String, in path: String) throws -> Int64? {
    let connection = try Connection(storageLocation: .onDisk(path))
    try connection.busyHandler(.timeout(5))
    return try connection.query(sql)
}
#endif
