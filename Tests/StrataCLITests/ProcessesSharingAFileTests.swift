import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

/// Processes that open, write, read and close one fresh file at once (the Concurrency article's
/// program, four copies started together): none may fail. `close()` threw "database is locked"
/// when its TRUNCATE checkpoint met another process, and the open could throw it while another
/// process switched the fresh file to WAL. STRATA_OPEN_CLOSE_ROUNDS sets the rounds (12).
@Suite struct ProcessesSharingAFileTests {
    @Test func fourProcessesOpenWriteReadAndCloseOneFreshFileAtOnce() throws {
        let writer = try builtExecutable(named: "strata-crash-writer")
        let rounds = ProcessInfo.processInfo.environment["STRATA_OPEN_CLOSE_ROUNDS"].flatMap { Int($0) } ?? 12
        for round in 0..<rounds {
            let folder = try TemporaryDirectory()
            let path = folder.path("shared.sqlite")
            var processes: [(ChildProcess, Pipe, Pipe)] = []
            for index in 0..<4 {
                let process = ChildProcess()
                process.executableURL = writer
                process.arguments = ["--open-close", path, "p\(index)"]
                let output = Pipe(), errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                try process.run()
                processes.append((process, output, errors))
            }
            for (index, (process, output, errors)) in processes.enumerated() {
                let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                try require(process.terminationStatus == 0, "round \(round), process \(index) failed: \(failure)\(printed)")
            }
            let connection = try Connection(storageLocation: .onDisk(path))
            let names: [String] = try connection.query("SELECT name FROM visit ORDER BY name")
            try require(names == ["p0", "p1", "p2", "p3"], "round \(round): the file holds \(names)")
        }
    }
}
