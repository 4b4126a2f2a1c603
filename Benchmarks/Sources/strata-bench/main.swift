import Foundation

// strata-bench: each workload for raw C, Strata and GRDB, interleaved, after one discarded warm-up round.
struct Options {
    var rows: Int?
    var runs = 5
    var filter: String?
    var json = false
    var quick = false
    var dimensions: Int?
    var mmap: Int?
    var pageSize: Int?
    var contenders: Set<String>?
    var vectorRSS: String?
    var ivf = false
    var clustered = false
    /// `--spread S`: the clusters' Gaussian deviation per component (0.5 by default); larger overlaps them more.
    var spread: Float = 0.5

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--rows": options.rows = iterator.next().flatMap(Int.init)
            case "--runs": options.runs = max(1, iterator.next().flatMap(Int.init) ?? options.runs)
            case "--filter": options.filter = iterator.next()
            case "--json": options.json = true
            case "--quick": options.quick = true
            case "--dimensions": options.dimensions = iterator.next().flatMap(Int.init)
            case "--mmap": options.mmap = iterator.next().flatMap(Int.init)
            case "--page-size": options.pageSize = iterator.next().flatMap(Int.init)
            case "--contenders": options.contenders = iterator.next().map { Set($0.split(separator: ",").map(String.init)) }
            case "--vector-rss": options.vectorRSS = iterator.next()
            case "--ivf": options.ivf = true
            case "--clustered": options.clustered = true
            case "--spread": options.spread = iterator.next().flatMap(Float.init) ?? 0.5
            case "-h", "--help":
                print(
                    "usage: strata-bench [--rows N] [--runs N] [--filter NAME] [--json] [--quick] [--dimensions N] [--mmap BYTES] [--page-size BYTES] [--contenders a,b] [--vector-rss FILE] [--ivf [--clustered [--spread S]]]"
                )
                exit(0)
            default:
                FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
        if options.quick {
            options.rows = options.rows ?? 2_000
            options.runs = 1
        }
        return options
    }
}

struct Measurement {
    var times: [Double] = []
    var median: Double? {
        guard !times.isEmpty else { return nil }
        let sorted = times.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

struct Result {
    let workload: String
    let rows: Int
    let raw: Measurement
    let strata: Measurement
    let grdb: Measurement
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let contenders: [(name: String, make: (Workloads.Kind) -> Contender)] = [
    ("raw", Raw.contender), ("strata", StrataBench.contender), ("grdb", GRDBBench.contender)
]

func copyDatabase(from source: String, to destination: String) throws {
    try? FileManager.default.removeItem(atPath: destination)
    try FileManager.default.copyItem(atPath: source, toPath: destination)
}

@MainActor func measure(_ kind: Workloads.Kind) throws -> Result {
    let (rows, measurements) = try measure(kind, contenders: contenders)
    return Result(workload: kind.rawValue, rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[2])
}

/// Times `kind` for each contender, interleaved round by round, every result checked against the first's.
@MainActor func measure(_ kind: Workloads.Kind, contenders: [(name: String, make: (Workloads.Kind) -> Contender)]) throws -> (rows: Int, [Measurement]) {
    let rows = options.rows ?? kind.defaultRows
    let template = directory.appendingPathComponent("\(kind.rawValue)-template.sqlite").path
    // A workload measured twice in one run (the core set, then again beside sqlite-nio) repopulates from nothing.
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: template + suffix) }
    try Workloads.populate(kind, path: template, rows: rows)
    var measurements = Array(repeating: Measurement(), count: contenders.count)
    var expected: Int64?
    for round in 0...options.runs {
        for (index, contender) in contenders.enumerated() {
            // Inserts start from a fresh copy each time; reads share the populated file.
            let path = kind.isInsert ? directory.appendingPathComponent("\(kind.rawValue)-\(contender.name).sqlite").path : template
            if kind.isInsert { try copyDatabase(from: template, to: path) }
            let prepared = try contender.make(kind)(path, rows)
            let start = DispatchTime.now().uptimeNanoseconds
            var result = try prepared.work()
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
            prepared.close()
            if kind.isInsert { result = try Workloads.insertedChecksum(path: path) }
            if let expected, expected != result {
                throw BenchError.mismatch("\(kind.rawValue): \(contender.name) computed \(result), expected \(expected)")
            }
            expected = result
            if round > 0 { measurements[index].times.append(elapsed) }
        }
    }
    return (rows, measurements)
}

func format(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "n/a" }
func ratio(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b, b > 0 else { return "n/a" }
    return String(format: "%.2f", a / b)
}
func cell(_ measurement: Measurement) -> String {
    guard let median = measurement.median, let low = measurement.times.min(), let high = measurement.times.max() else { return "n/a" }
    return "\(format(median)) (\(format(low))–\(format(high)))"
}

if options.ivf {
    do { try VectorWorkloads.measureIVF() } catch {
        FileHandle.standardError.write(Data("strata-bench failed: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if let path = options.vectorRSS {
    do { try VectorWorkloads.measurePeakMemory(path: path) } catch {
        FileHandle.standardError.write(Data("strata-bench failed: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let kinds = Workloads.Kind.allCases.filter { options.filter == nil || $0.rawValue.contains(options.filter!) }
var results: [Result] = []
var nioResults: [NIOWorkloads.Result] = []
var syncResults: [SyncWorkloads.Result] = []
var vectorResults: [VectorWorkloads.Result] = []
do {
    for kind in kinds {
        if !options.json { FileHandle.standardError.write(Data("running \(kind.rawValue)...\n".utf8)) }
        results.append(try measure(kind))
    }
    results += try ORMWorkloads.measureAll()
    results += try ChangesetWorkloads.measureAll()
    results += try ObservationWorkloads.measureAll()
    results += try RecordWorkloads.measureAll()
    results += try RecursiveWalkWorkloads.measureAll()
    results += try QueryWorkloads.measureAll()
    results += try NorthwindWorkloads.measureAll()
    results += try SearchJSONWorkloads.measureAll()
    results += try ScriptWorkloads.measureAll()
    results += try TableValuedFunctionWorkloads.measureAll()
    vectorResults = try await VectorWorkloads.measureAll()
    nioResults = try NIOWorkloads.measureAll()
    results += try await BlobWorkloads.measureAll()
    syncResults = try await SyncWorkloads.measureAll()
    syncResults += try await PartialSyncWorkloads.measureAll()
} catch {
    FileHandle.standardError.write(Data("strata-bench failed: \(error)\n".utf8))
    exit(1)
}

if options.json {
    let objects: [[String: Any]] = results.map { result in
        [
            "workload": result.workload,
            "rows": result.rows,
            "raw_ms": result.raw.median as Any? ?? NSNull(),
            "strata_ms": result.strata.median as Any? ?? NSNull(),
            "grdb_ms": result.grdb.median as Any? ?? NSNull(),
            "strata_raw_ratio": result.strata.median.flatMap { s in result.raw.median.map { s / $0 } } as Any? ?? NSNull(),
            "strata_grdb_ratio": result.strata.median.flatMap { s in result.grdb.median.map { s / $0 } } as Any? ?? NSNull()
        ]
    }
    let nioObjects: [[String: Any]] = nioResults.map { result in
        [
            "workload": "sqlite-nio " + result.workload,
            "rows": result.rows,
            "raw_ms": result.raw.median as Any? ?? NSNull(),
            "strata_ms": result.strata.median as Any? ?? NSNull(),
            "grdb_ms": result.grdb.median as Any? ?? NSNull(),
            "sqlite_nio_ms": result.nio.median as Any? ?? NSNull()
        ]
    }
    var syncObjects: [[String: Any]] = []
    syncObjects = syncResults.map { result in
        [
            "workload": result.workload,
            "rows": result.rows,
            "baseline": result.baselineName,
            "baseline_ms": result.baseline.median as Any? ?? NSNull(),
            "sync_ms": result.sync.median as Any? ?? NSNull(),
            "sync_baseline_ratio": result.sync.median.flatMap { s in result.baseline.median.map { s / $0 } } as Any? ?? NSNull()
        ]
    }
    let vectorObjects: [[String: Any]] = vectorResults.map { result in
        var object: [String: Any] = ["workload": result.workload, "rows": result.rows, "dimensions": VectorWorkloads.dimensions, "mmap_size": options.mmap ?? 0]
        for contender in VectorWorkloads.contenders {
            object[contender.replacingOccurrences(of: " ", with: "_") + "_ms"] = result.times[contender]?.median as Any? ?? NSNull()
        }
        return object
    }
    let data = try JSONSerialization.data(withJSONObject: objects + nioObjects + syncObjects + vectorObjects, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} else {
    print("Runs: \(options.runs) (after one warm-up round), medians in ms (min–max)\n")
    print("| workload | rows | raw C | Strata | GRDB | Strata/raw | Strata/GRDB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for result in results {
        print(
            "| \(result.workload) | \(result.rows) | \(cell(result.raw)) | \(cell(result.strata)) | \(cell(result.grdb)) | \(ratio(result.strata.median, result.raw.median)) | \(ratio(result.strata.median, result.grdb.median)) |"
        )
    }
    if !nioResults.isEmpty {
        print("\nsqlite-nio 1.13.2 (Vapor's driver; its own SQLite build, every call a hop to its thread pool), same run:\n")
        print("| workload | rows | raw C | Strata | GRDB | sqlite-nio | Strata/raw | sqlite-nio/raw | sqlite-nio/Strata |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for result in nioResults {
            print(
                "| \(result.workload) | \(result.rows) | \(cell(result.raw)) | \(cell(result.strata)) | \(cell(result.grdb)) | \(cell(result.nio)) | \(ratio(result.strata.median, result.raw.median)) | \(ratio(result.nio.median, result.raw.median)) | \(ratio(result.nio.median, result.strata.median)) |"
            )
        }
    }
    if !vectorResults.isEmpty {
        print(
            "\nExact k=\(VectorWorkloads.k) nearest neighbours over \(VectorWorkloads.dimensions)-float vectors (sqlite-vec 0.1.9 when installed; PRAGMA mmap_size = \(options.mmap ?? 0) on every connection, page size \(options.pageSize ?? 4096)), same run:\n"
        )
        print(
            "| workload | rows | " + VectorWorkloads.contenders.joined(separator: " | ") + " | nearest/vec0 | parallel/vec0 | flat/vec0 | parallel flat/vec0 |")
        print("|---|---:|" + VectorWorkloads.contenders.map { _ in "---:|" }.joined() + "---:|---:|---:|---:|")
        for result in vectorResults {
            let cells = VectorWorkloads.contenders.map { result.times[$0].map(cell) ?? "n/a" }
            let vec0 = result.times["sqlite-vec vec0"]?.median
            print(
                "| \(result.workload) | \(result.rows) | " + cells.joined(separator: " | ")
                    + " | \(ratio(result.times["Strata nearest"]?.median, vec0)) | \(ratio(result.times["Strata parallel"]?.median, vec0))"
                    + " | \(ratio(result.times["Strata flat index"]?.median, vec0)) | \(ratio(result.times["Strata parallel flat"]?.median, vec0)) |")
        }
        print("\nThe same calls' process CPU time (user + system, all threads), medians in ms:\n")
        print("| workload | rows | " + VectorWorkloads.contenders.joined(separator: " | ") + " | nearest/vec0 |")
        print("|---|---:|" + VectorWorkloads.contenders.map { _ in "---:|" }.joined() + "---:|")
        for result in vectorResults {
            let cells = VectorWorkloads.contenders.map { format(result.cpu[$0]?.median) }
            print(
                "| \(result.workload) | \(result.rows) | " + cells.joined(separator: " | ")
                    + " | \(ratio(result.cpu["Strata nearest"]?.median, result.cpu["sqlite-vec vec0"]?.median)) |")
        }
    }
    if !syncResults.isEmpty {
        print("\nStrataSync against the same work without sync (in process), same run:\n")
        print("| workload | rows | baseline | baseline ms | StrataSync ms | ratio |")
        print("|---|---:|---|---:|---:|---:|")
        for result in syncResults {
            print(
                "| \(result.workload) | \(result.rows) | \(result.baselineName) | \(cell(result.baseline)) | \(cell(result.sync)) | \(ratio(result.sync.median, result.baseline.median)) |"
            )
        }
    }
}
