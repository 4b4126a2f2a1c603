// Compiled only with the package trait `Server` (its dependencies are fetched only then).
#if Server
import Foundation
import Logging
import ServiceLifecycle
import Strata

/// What a `Database` throws for a call made after its graceful shutdown began.
public struct DatabaseShutdownError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The database file's name (or `memory`).
    public let database: String
    /// Says the database is shutting down and takes no new work.
    public var description: String { "The database \(database) is shutting down: it takes no new work" }
}

/// Runs a `Database` in a `ServiceGroup`: on graceful shutdown it stops taking new work,
/// lets the calls already running finish (up to ``shutdownDeadline``), checkpoints the WAL and
/// releases its idle readers.
///
/// ```swift
/// let database = try Database(path: "app.sqlite")
/// let group = ServiceGroup(
///     services: [DatabaseService(database), httpServer],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// try await group.run()
/// ```
/// Calls are counted from the moment the service is made: make it before the database serves
/// work. Calls made once the shutdown began throw ``DatabaseShutdownError``. The checkpoint is
/// `TRUNCATE`, leaving a 0-byte WAL, except while Litestream replicates the database (whose WAL a
/// truncation would reset under it): then it is `PASSIVE`. When the deadline passes, or the
/// service's task is cancelled (a second signal, or the group cancelling), the statements still
/// running are interrupted (`sqlite3_interrupt`, rolled back), and the shutdown goes on. The
/// database stays refusing work afterwards; its connections close when it is released.
///
/// `Database` itself is a `Service` too (`Database.run()`), with the default deadline.
public struct DatabaseService: Service {
    /// The database this service shuts down.
    public let database: Database
    /// How long running calls may take to finish once the shutdown began.
    public var shutdownDeadline: Duration
    /// Where the shutdown's steps are logged (at `.info`, or `.warning` for interruptions).
    public var logger: Logger

    /// How long running calls may finish by default: 10 seconds.
    public static let defaultShutdownDeadline: Duration = .seconds(10)

    /// Creates the service; `logger` defaults to one labelled `strata`.
    public init(_ database: Database, shutdownDeadline: Duration = DatabaseService.defaultShutdownDeadline, logger: Logger? = nil) {
        self.database = database
        self.shutdownDeadline = shutdownDeadline
        self.logger = logger ?? Logger(label: "strata")
        // From now on calls are counted, so the shutdown can wait for those still running.
        database.trackWork()
    }

    /// Waits for the group's graceful shutdown (or cancellation), then shuts the database down.
    public func run() async throws {
        // Throws CancellationError when the task is cancelled before a graceful shutdown: then
        // everything still running is interrupted at once.
        let graceful = (try? await gracefulShutdown()) != nil
        await shutDown(interruptingAtOnce: !graceful)
    }

    /// Stops taking work, drains, checkpoints and releases the idle readers.
    func shutDown(interruptingAtOnce: Bool) async {
        let name = InstrumentationHandler.databaseName(path: database.writerQueue.connection.fileName)
        // `close()` already drained and checkpointed it, and it keeps refusing work as closed.
        if database.isClosed {
            logger.info("database already closed", metadata: ["db.name": "\(name)"])
            return
        }
        database.refuseNewWork(throwing: DatabaseShutdownError(database: name))
        logger.info("database shutting down", metadata: ["db.name": "\(name)", "db.running_calls": "\(database.runningWorkCount)"])
        let deadline = ContinuousClock.now + shutdownDeadline
        var interrupted = false
        await database.waitForRunningWork {
            guard interruptingAtOnce || Task.isCancelled || ContinuousClock.now >= deadline else { return false }
            if !interrupted {
                logger.warning(
                    "database shutdown interrupts running calls",
                    metadata: [
                        "db.name": "\(name)", "db.running_calls": "\(database.runningWorkCount)"
                    ])
            }
            interrupted = true
            return true
        }
        database.closeIdleReaders()
        do {
            let result = try database.writerQueue.execute { try Database.shutdownCheckpoint(on: $0)?.result }
            if let result {
                logger.info(
                    "database checkpointed",
                    metadata: [
                        "db.name": "\(name)", "db.sqlite.wal_frames": "\(result.logFrames)",
                        "db.sqlite.checkpointed_frames": "\(result.checkpointedFrames)"
                    ])
            }
        } catch {
            logger.warning("database shutdown checkpoint failed", metadata: ["db.name": "\(name)", "error": "\(error)"])
        }
        logger.info("database shut down", metadata: ["db.name": "\(name)"])
    }
}

extension Database: Service {
    /// Runs the database as a ServiceLifecycle service with the default deadline
    /// (``DatabaseService/defaultShutdownDeadline``): see ``DatabaseService``.
    public func run() async throws {
        try await DatabaseService(self).run()
    }
}
extension DatabaseShutdownError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
#else
// Without the trait the module is empty but for these: naming one says what to enable, where an
// empty module would only say "cannot find 'DatabaseService' in scope".
/// Needs the package trait `Server`: `.package(url: ..., from: ..., traits: ["Server"])`.
@available(*, unavailable, message: "StrataServer needs the package trait Server: .package(url: ..., from: ..., traits: [\"Server\"])")
public struct DatabaseService {}

/// Needs the package trait `Server`: `.package(url: ..., from: ..., traits: ["Server"])`.
@available(*, unavailable, message: "StrataServer needs the package trait Server: .package(url: ..., from: ..., traits: [\"Server\"])")
public struct StrataInstrumentation {}
#endif
