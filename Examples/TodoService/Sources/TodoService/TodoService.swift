import ArgumentParser
import Foundation
import Hummingbird
import NIOCore
import Logging
import Prometheus
import Tracing
import ServiceLifecycle
import Strata
import StrataServer
import TodoKit

/// `swift run TodoService --db todos.sqlite --port 8080`
///
/// SIGTERM or SIGINT shuts it down gracefully: the server stops accepting and finishes the
/// requests it has, then the database finishes running transactions, checkpoints its WAL and
/// closes; the process exits 0. A second signal cancels what is still running.
@main
struct TodoServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "TodoService", abstract: "A todo list over HTTP, on Strata.")

    @Option(help: "The database file (created when missing).")
    var db = "todos.sqlite"
    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"
    @Option(help: "The port to listen on (0: any free port, printed on standard output).")
    var port = 8080
    @Option(help: "strata, or sqlite-nio (the benchmark's contender, same routes).")
    var backend = "strata"
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"
    @Option(
        help:
            "How GET /todos reads the page and the total: snapshot (one read transaction) or separate (two statements). Default: snapshot on Strata, separate on sqlite-nio."
    )
    var consistency: String?
    @Option(
        help: "Strata's instrumentation: all (logs at the log level, metrics to a Prometheus registry, spans to a no-op tracer), logs (logs only), or none.")
    var instrumentation = "all"
    @Option(help: "Reader connections (both backends), at least 1.")
    var readers: Int?
    @Option(
        help:
            "Where the Strata store's reads run: calling-thread (the request's own thread, Database.readOnCallingThread) or reader-queue (the reader's dispatch queue, Database.read)."
    )
    var strataReads = "calling-thread"

    func validate() throws {
        // Both stores need a reader to serve a read: sqlite-nio's clamped 0 to 1, Strata's pool
        // would have waited forever for a connection it may not open.
        if let readers, readers < 1 { throw ValidationError("--readers must be at least 1, not \(readers)") }
        guard StrataReads(rawValue: strataReads) != nil else {
            throw ValidationError("unknown --strata-reads \(strataReads): use calling-thread or reader-queue")
        }
    }

    func run() async throws {
        var logger = Logger(label: "TodoService")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let listConsistency: ListConsistency?
        if let consistency {
            guard let chosen = ListConsistency(rawValue: consistency) else {
                throw ValidationError("unknown consistency \(consistency): use snapshot or separate")
            }
            listConsistency = chosen
        } else {
            listConsistency = nil
        }
        let instruments: StrataInstrumentation?
        switch instrumentation {
        case "all":
            // A real metrics backend (the registry a /metrics route would render) and a tracer
            // that drops its spans, so the cost measured is Strata's, not an exporter's.
            instruments = StrataInstrumentation(
                logger: logger, metricsFactory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()),
                tracing: true, tracer: NoOpTracer())
        case "logs": instruments = StrataInstrumentation(logger: logger, tracing: false)
        case "none": instruments = nil
        default: throw ValidationError("unknown instrumentation \(instrumentation): use all, logs or none")
        }
        let strata = try StrataTodoStore(
            path: db, instrumentation: instruments, listConsistency: listConsistency ?? .snapshot,
            readerCount: readers ?? ConnectionPool.defaultMaximumConnectionCount,
            reads: StrataReads(rawValue: strataReads) ?? .callingThread)
        let announce: @Sendable (any Channel) async -> Void = { channel in
            // Tests and scripts start the service on port 0 and read the port here.
            FileHandle.standardOutput.write(Data("listening on \(channel.localAddress?.port ?? 0)\n".utf8))
        }
        switch backend {
        case "strata":
            let app = Application(
                router: buildRouter(store: strata),
                configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "TodoService"),
                services: [DatabaseService(strata.database, logger: logger)],
                onServerRunning: announce,
                logger: logger
            )
            try await app.runService()
        case "sqlite-nio":
            // The schema comes from the Strata store above, so both backends serve the same tables.
            try await strata.database.write { _ in }
            let nio = try await NIOTodoStore.open(path: db, readerCount: readers ?? 2, listConsistency: listConsistency ?? .separate, logger: logger)
            let app = Application(
                router: buildRouter(store: nio),
                configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "TodoService"),
                onServerRunning: announce,
                logger: logger
            )
            try await app.runService()
            try await nio.close()
        default:
            throw ValidationError("unknown backend \(backend): use strata or sqlite-nio")
        }
    }
}
