// One mode per run, so callgrind counts it alone: `instrumentation-cost MODE [READS]`, MODE one of
// none, logging, metrics, tracing, all. Each run opens a database of 1,000 rows, reads 2,000 of
// them by primary key to warm up, then READS more inside `measured()`, which run.sh counts.
import Foundation
import Logging
import Prometheus
import Strata
import StrataServer
import Tracing

/// Writes nothing: the cost measured is Strata's and swift-log's level check, not an output's.
struct DiscardingLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {}
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "none"
let reads = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000

let logger = Logger(label: "bench") { _ in DiscardingLogHandler() }
let registry = PrometheusCollectorRegistry()
let metrics = PrometheusMetricsFactory(registry: registry)

let db = try Connection(path: ":memory:")
try db.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL)")
try db.transaction {
    for id in 1...1_000 { try db.run("INSERT INTO item(id, name, price) VALUES (?, ?, ?)", id, "item \(id)", Double(id) / 4) }
}

switch mode {
case "none": break
case "logging": db.instrument(StrataInstrumentation(logger: logger, tracing: false))
case "metrics":
    db.instrument(
        StrataInstrumentation(
            logger: Logger(label: "off") { _ in DiscardingLogHandler(logLevel: .critical) },
            metricsFactory: metrics, tracing: false))
case "tracing":
    db.instrument(
        StrataInstrumentation(
            logger: Logger(label: "off") { _ in DiscardingLogHandler(logLevel: .critical) },
            tracing: true, tracer: NoOpTracer()))
case "all": db.instrument(StrataInstrumentation(logger: logger, metricsFactory: metrics, tracing: true, tracer: NoOpTracer()))
default:
    FileHandle.standardError.write(Data("unknown mode \(mode): none, logging, metrics, tracing, all\n".utf8))
    exit(2)
}

/// One primary-key read: the statement every mode runs.
@MainActor @inline(never)
func read(_ id: Int) throws -> String? {
    try db.query("SELECT name FROM item WHERE id = ?", id)
}

@MainActor @inline(never)
func measured(_ count: Int) throws -> Int {
    var found = 0
    for index in 0..<count where try read(index % 1_000 + 1) != nil { found += 1 }
    return found
}

var warm = 0
for index in 0..<2_000 where try read(index % 1_000 + 1) != nil { warm += 1 }
let found = try measured(reads)
precondition(found == reads && warm == 2_000, "every read finds its row")
print("\(mode): \(found) reads")
