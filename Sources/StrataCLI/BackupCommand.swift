import ArgumentParser
import Foundation
import Strata

/// `strata backup`: an online copy through SQLite's backup API, with progress, then verified.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a live database with SQLite's online backup, then verify the copy.",
        discussion: """
            Other processes may keep writing to SOURCE: SQLite restarts the copy when the source \
            changes between steps, so the copy is a consistent snapshot. If the source keeps \
            changing, the copy is taken again in one step. On a terminal a progress bar shows \
            pages done; otherwise one progress line is printed per update. The copy must pass \
            integrity_check. DESTINATION is never overwritten without --force.
            """
    )

    @Argument(help: "Path to the database to copy.") var source: String
    @Argument(help: "Path of the copy.") var destination: String
    @Option(parsing: .unconditional, help: ArgumentHelp("Pages copied per step (-1 copies everything in one step).", valueName: "pages")) var pagesPerStep:
        Int32 = 100
    @Flag(help: "Overwrite an existing destination.") var force = false

    /// Restarts observed before the copy is taken in one step instead.
    static let restartsBeforeOneStep = 3

    func validate() throws {
        guard pagesPerStep > 0 || pagesPerStep == -1 else {
            throw ValidationError("--pages-per-step must be a positive number of pages, or -1 for all at once")
        }
    }

    func run() throws {
        let sourceConnection = try DatabaseFile.openExisting(source)
        let destinationExisted = try DatabaseFile.checkNotDirectory(destination)
        if destinationExisted && !force {
            throw CLIError("\(destination) already exists; pass --force to overwrite it")
        }
        if Self.sameFile(source, destination) {
            throw CLIError("\(source) and \(destination) are the same file")
        }
        let display = ProgressDisplay(terminal: isatty(STDOUT_FILENO) == 1)
        display.note("Backing up \(source) to \(destination)")
        // A copy that fails, or fails its check, is removed: only the files this run created.
        let newFiles = NewDatabaseFiles(at: destination)
        try newFiles.removingCreated {
            let copied = try withDestination { destinationConnection in
                var copied = try copy(from: sourceConnection, to: destinationConnection, pageSize: pagesPerStep, display: display)
                if !copied.finished {
                    display.note("The source kept changing; copying it again in one step")
                    let again = try copy(from: sourceConnection, to: destinationConnection, pageSize: -1, display: display)
                    copied = Copy(finished: again.finished, pages: again.pages, restarts: copied.restarts + again.restarts)
                }
                return copied
            }
            try verify(pages: copied.pages, restarts: copied.restarts, display: display)
        }
    }

    /// Runs `body` with a new connection to the destination, and returns once that connection is
    /// closed, so nothing holds the files open when a failure removes them. (The backup's worker
    /// lets go of the connection just after the completion runs, not before `body` returns.)
    private func withDestination<T>(_ body: (Connection) throws -> T) throws -> T {
        weak var opened: Connection?
        let result: Result<T, any Error> = {
            let connection: Connection
            do { connection = try DatabaseFile.openOrCreate(destination) } catch { return .failure(error) }
            opened = connection
            return Result { try body(connection) }
        }()
        let deadline = Date().addingTimeInterval(5)
        while opened != nil, Date() < deadline { usleep(1_000) }
        return try result.get()
    }

    /// How one backup run ended: `finished` is false when it was cancelled after restarting too often.
    private struct Copy {
        let finished: Bool
        let pages: Int64
        let restarts: Int
    }

    /// Runs one backup until it finishes or restarts too often.
    private func copy(
        from source: Connection, to destination: Connection, pageSize: Int32,
        display: ProgressDisplay
    ) throws -> Copy {
        let finished = DispatchSemaphore(value: 0)
        let outcome = BackupOutcome()
        // The two counts are read as one pair: read apart, they can come from two steps.
        let pages = BackupPageCounter()
        // The completion runs on our own queue: a command-line tool has no main run loop.
        let progress = try source.backup(
            to: destination, pageSize: pageSize,
            completionQueue: DispatchQueue(label: "strata.backup.completion"),
            pageCounter: pages
        ) { result in
            outcome.set(result)
            finished.signal()
        }
        var lastCompleted: Int64 = -1
        var restarts = 0
        var cancelledForRestarts = false
        while true {
            let done = finished.wait(timeout: .now() + .milliseconds(50)) == .success
            let count = pages.current
            let completed = count.completed, total = count.total
            if total > 0, completed != lastCompleted {
                if completed < lastCompleted { restarts += 1 }
                lastCompleted = completed
                display.show(completed: completed, total: total)
            }
            if done { break }
            if restarts >= Self.restartsBeforeOneStep, pageSize != -1, !cancelledForRestarts {
                cancelledForRestarts = true
                progress.cancel()
            }
        }
        display.finish()
        switch outcome.result {
        case .success?:
            return Copy(finished: true, pages: max(pages.current.total, 0), restarts: restarts)
        case .cancelled? where cancelledForRestarts:
            return Copy(finished: false, pages: 0, restarts: restarts)
        case .failure(let error)?:
            throw error
        case .cancelled?, nil:
            throw CLIError("the backup was cancelled")
        }
    }

    /// Opens the copy afresh and runs `integrity_check` on it.
    private func verify(pages: Int64, restarts: Int, display: ProgressDisplay) throws {
        let copy = try DatabaseFile.openExisting(destination)
        let problems: [String]
        do {
            problems = try copy.query("PRAGMA integrity_check") { $0.value(at: 0) as? String ?? "" }
        } catch let error as SQLiteError {
            // Damage can stop the check itself ("database disk image is malformed").
            problems = [error.message]
        }
        guard problems == ["ok"] else {
            throw CLIError("the copy at \(destination) failed integrity_check: \(problems.prefix(3).joined(separator: "; "))")
        }
        let restartNote = restarts > 0 ? " (restarted \(restarts) time\(restarts == 1 ? "" : "s") as the source changed)" : ""
        display.note("Copied \(pages) pages\(restartNote); integrity_check of \(destination): ok")
    }

    static func sameFile(_ first: String, _ second: String) -> Bool {
        let a = URL(fileURLWithPath: first).resolvingSymlinksInPath().standardizedFileURL.path
        let b = URL(fileURLWithPath: second).resolvingSymlinksInPath().standardizedFileURL.path
        return a == b
    }
}

/// The result a backup's completion hands over to the waiting thread.
// @unchecked Sendable: `stored` is private and only touched under `lock` (the pattern of core's
// internal `Locked`); `BackupResult` itself is not Sendable because it may carry any `Error`.
private final class BackupOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Connection.BackupResult?

    func set(_ result: Connection.BackupResult) {
        lock.withLock { stored = result }
    }

    var result: Connection.BackupResult? {
        lock.withLock { stored }
    }
}
