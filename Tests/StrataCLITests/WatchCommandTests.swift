#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing
import StrataTestSupport

@Suite struct WatchCommandTests {
    /// Output collected from a running process's pipe.
    final class Collected: Sendable {
        private let text = Locked("")
        func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        var current: String { text.withLock { $0 } }
    }

    /// A lock-protected value shared with a pipe's reading handler.
    final class Locked<Value: Sendable>: @unchecked Sendable {
        // @unchecked Sendable: `value` is only reached under `lock`.
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
    }

    /// A bound for "never": generous, since the suites share two cores. The condition is checked
    /// once more after the deadline: a task the busy cooperative pool resumed late has its
    /// answer in `collected` by then (a CI run failed with "first" printed and the wait over).
    static func waitFor(_ collected: Collected, seconds: Double = 90, _ condition: (String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(collected.current) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(collected.current)
    }

    @Test func printsTheRowsThenAgainAfterEachChangeAndExitsCleanlyOnInterrupt() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.work.appendingPathComponent("watched.db").path
        let writer = try Connection(storageLocation: .onDisk(path))
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(name TEXT); INSERT INTO t VALUES('first')")

        let process = ChildProcess()
        process.executableURL = try strataBinary()
        process.arguments = ["watch", path, "SELECT name FROM t ORDER BY rowid", "--interval", "0.1"]
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        let collected = Collected()
        output.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let printedFirst = await Self.waitFor(collected) { $0.contains("first") }
        #expect(
            printedFirst,
            "strata watch printed \(collected.current.debugDescription); running: \(process.isRunning); stderr: \(process.isRunning ? "" : String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))"
        )
        try writer.run("INSERT INTO t VALUES('second')")
        #expect(await Self.waitFor(collected) { $0.contains("second") })
        // The table was printed twice: once before the change and once after.
        #expect(collected.current.components(separatedBy: "first").count == 3)
        // A commit that leaves the rows as they were prints nothing new.
        try writer.run("UPDATE t SET name = name")
        try await Task.sleep(for: .milliseconds(400))
        #expect(collected.current.components(separatedBy: "first").count == 3)

        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test func aBadQueryFailsAtOnce() throws {
        let sandbox = try Sandbox()
        let path = sandbox.work.appendingPathComponent("watched.db").path
        try Connection(storageLocation: .onDisk(path)).execute("CREATE TABLE t(a)")
        let process = ChildProcess()
        process.executableURL = try strataBinary()
        process.arguments = ["watch", path, "SELECT nope FROM t"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus != 0)
        #expect(message.contains("no such column: nope"))
    }
}
#endif
