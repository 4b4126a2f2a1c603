import ArgumentParser
import Foundation
import Strata

/// `strata watch`: prints a query's rows, then again after every change, until interrupted.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a query's rows, then print them again after every change to the database.",
        discussion: """
            Changes come from other processes (an application writing the file, another strata), \
            so the tool polls the database's data version at --interval and runs the query again \
            only when something committed and the rows differ. Ctrl-C exits.
            """
    )

    @Argument(help: "Path to an existing database file.") var database: String
    @Argument(help: "The query to watch (one statement).") var sql: String
    @Option(help: "How often to look for changes, in seconds.") var interval: Double = 1
    @Option(help: "How to print the rows.") var format: OutputFormat = .table

    func validate() throws {
        guard interval.isFinite, interval > 0, interval <= 86_400 else {
            throw ValidationError("--interval must be a number of seconds above 0 (at most a day)")
        }
    }

    func run() throws {
        let connection = try DatabaseFile.openExisting(database)
        // Compile once up front, so a bad query fails here with SQLite's message. A statement
        // that writes would run again after each of its own commits, in a loop: refused.
        guard try connection.prepare(sql).isReadOnly else {
            throw CLIError("watch runs only statements that read; this one writes: \(sql)")
        }
        let queue = ConnectionQueue(connection: connection)
        let sql = self.sql, format = self.format
        let finished = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let token = queue.observe(externalChanges: .milliseconds(Int(interval * 1_000))) { connection in
            try Self.render(sql, format: format, on: connection)
        } onChange: { result in
            switch result {
            case .success(let text):
                FileHandle.standardOutput.write(Data(text.utf8))
            case .failure(let error):
                failure.set(error)
                finished.signal()
            }
        }
        // Ctrl-C ends the watch cleanly: the observation is cancelled and the tool exits 0.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let interrupts = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
        for source in interrupts {
            source.setEventHandler { finished.signal() }
            source.resume()
        }
        DispatchQueue.global().async {
            finished.wait()
            token.cancel()
            if let error = failure.error {
                printError(StrataMain.oneLineMessage(for: error))
                Foundation.exit(1)
            }
            Foundation.exit(0)
        }
        dispatchMain()
    }

    /// The query's rows as the chosen format prints them, followed by a blank line.
    static func render(_ sql: String, format: OutputFormat, on connection: Connection) throws -> String {
        var text = ""
        let statement = try connection.prepare(sql)
        var writer = format.writer(columns: statement.columnNames) { text += $0 }
        let _: [Void] = try statement.query { row in
            writer.write((0..<row.columnCount).map { row.value(at: $0) })
        }
        writer.finish()
        return text + "\n"
    }
}

/// The error that ended a watch, handed from the observation's task to the exiting thread.
// @unchecked Sendable: `stored` is only read or written while holding `lock`.
private final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?

    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}
