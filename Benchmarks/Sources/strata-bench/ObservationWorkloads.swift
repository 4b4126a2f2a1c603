import Foundation
import StrataSQift
import GRDB
import SQLite3
import Strata

/// Observation: the time of single-row commits while 0, 1, 10 and 100 observers watch `count(*)`
/// of the table (each run then checks that every observer delivered the final count, untimed);
/// raw C commits with no observer. Then the latency from a commit to its value at 1 and 100
/// observers (median and p99, in microseconds, from the start of the commit call).
enum ObservationWorkloads {
    static let observerCounts = [0, 1, 10, 100]
    static let createSQL = "CREATE TABLE items (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)"
    static let insertSQL = "INSERT INTO items (v) VALUES (?)"
    static let countSQL = "SELECT count(*) FROM items"

    @MainActor static func measureAll() throws -> [Result] {
        let names = observerCounts.map { "observe-commits-\($0)" } + ["observe-latency"]
        guard options.filter == nil || names.contains(where: { $0.contains(options.filter!) }) else { return [] }
        let commits = options.rows ?? 2_000
        var results: [Result] = []
        for count in observerCounts where options.filter == nil || "observe-commits-\(count)".contains(options.filter!) {
            if !options.json { FileHandle.standardError.write(Data("running observe-commits-\(count)...\n".utf8)) }
            var measurements = [Measurement(), Measurement(), Measurement()]
            for round in 0...options.runs {
                let runs: [(String) throws -> Double] = [
                    { try raw(path: $0, commits: commits) },
                    { try strata(path: $0, commits: commits, observers: count) },
                    { try grdb(path: $0, commits: commits, observers: count) }
                ]
                for (index, run) in runs.enumerated() {
                    let path = directory.appendingPathComponent("observe-\(count)-\(index)-\(round).sqlite").path
                    try makeDatabase(path)
                    let elapsed: Double
                    do { elapsed = try run(path) } catch { throw BenchError.sqlite("observe-commits-\(count), contender \(index): \(error)") }
                    let rows = try rowCount(path)
                    guard rows == commits else { throw BenchError.mismatch("observe-commits-\(count): contender \(index) left \(rows) rows") }
                    if round > 0 { measurements[index].times.append(elapsed) }
                }
            }
            results.append(Result(workload: "observe-commits-\(count)", rows: commits, raw: measurements[0], strata: measurements[1], grdb: measurements[2]))
        }
        if options.filter == nil || "observe-latency".contains(options.filter!) {
            let samples = max(20, min(commits / 10, 200))
            for count in [1, 100] {
                if !options.json { FileHandle.standardError.write(Data("running observe-latency-\(count)...\n".utf8)) }
                let path = directory.appendingPathComponent("latency-\(count)-strata.sqlite").path
                try makeDatabase(path)
                let strataLatencies = try strataLatency(path: path, samples: samples, observers: count)
                let grdbPath = directory.appendingPathComponent("latency-\(count)-grdb.sqlite").path
                try makeDatabase(grdbPath)
                let grdbLatencies = try grdbLatency(path: grdbPath, samples: samples, observers: count)
                for (label, pick) in [("median", 0.5), ("p99", 0.99)] {
                    results.append(
                        Result(
                            workload: "observe-latency-\(count)-\(label) (µs)", rows: samples, raw: Measurement(),
                            strata: Measurement(times: [percentile(strataLatencies, pick)]),
                            grdb: Measurement(times: [percentile(grdbLatencies, pick)])
                        ))
                }
            }
        }
        return results
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }

    static func makeDatabase(_ path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        try Raw.exec(db, createSQL)
    }

    static func rowCount(_ path: String) throws -> Int {
        // The contender's last connections may still be closing (checkpointing the WAL), so wait
        // on locks rather than fail.
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db = handle else {
            throw BenchError.sqlite("open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 5_000)
        let statement = try Raw.prepare(db, countSQL)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError.sqlite("count") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Runs `body` in a task and blocks the calling thread until it returns.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Box<Swift.Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Swift.Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            box.set(result)
            done.signal()
        }
        done.wait()
        return try box.get()!.get()
    }

    /// The last value each observer delivered, and when each (observer, value) arrived.
    final class Deliveries: @unchecked Sendable {
        // @unchecked Sendable: every field is only reached under `lock`.
        private let lock = NSLock()
        private var last: [Int]
        private var arrivals: [Int: [UInt64]] = [:]
        private let recordsArrivals: Bool

        init(observers: Int, recordsArrivals: Bool) {
            last = Array(repeating: -1, count: observers)
            self.recordsArrivals = recordsArrivals
        }

        func deliver(_ value: Int, to observer: Int) {
            let now = DispatchTime.now().uptimeNanoseconds
            lock.withLock {
                last[observer] = value
                if recordsArrivals { arrivals[value, default: []].append(now) }
            }
        }

        func allReached(_ value: Int) -> Bool { lock.withLock { last.allSatisfy { $0 >= value } } }
        func arrivals(of value: Int) -> [UInt64] { lock.withLock { arrivals[value] ?? [] } }

        func wait(until value: Int) {
            while !allReached(value) { usleep(50) }
        }
    }

    final class Box<Value>: @unchecked Sendable {
        // @unchecked Sendable: `value` is only reached under `lock`.
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func set(_ newValue: Value) { lock.withLock { value = newValue } }
        func get() -> Value { lock.withLock { value } }
    }

    // MARK: - Contenders

    static func milliseconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    }

    static func raw(path: String, commits: Int) throws -> Double {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        try Raw.exec(db, Workloads.pragmas)
        let insert = try Raw.prepare(db, insertSQL)
        defer { sqlite3_finalize(insert) }
        let start = DispatchTime.now().uptimeNanoseconds
        for value in 1...commits {
            sqlite3_bind_int64(insert, 1, Int64(value))
            guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError.sqlite("insert") }
            sqlite3_reset(insert)
        }
        return milliseconds(since: start)
    }

    static func strataDatabase(_ path: String) throws -> Strata.Database {
        let database = try Strata.Database(storageLocation: .onDisk(path), maximumReaderCount: 5)
        try database.executeWrite { try $0.execute(Workloads.pragmas) }
        return database
    }

    /// Starts `count` observers of the row count; returns their tasks once each has its first value.
    static func startStrataObservers(_ database: Strata.Database, count: Int, deliveries: Deliveries) -> [Task<Void, Never>] {
        let tasks = (0..<count).map { observer in
            Task {
                do {
                    for try await value in database.observe({ try $0.query(countSQL) as Int? ?? 0 }) {
                        deliveries.deliver(value, to: observer)
                    }
                } catch {}
            }
        }
        deliveries.wait(until: 0)
        return tasks
    }

    static func strata(path: String, commits: Int, observers: Int) throws -> Double {
        let database = try strataDatabase(path)
        let deliveries = Deliveries(observers: observers, recordsArrivals: false)
        let tasks = startStrataObservers(database, count: observers, deliveries: deliveries)
        let start = DispatchTime.now().uptimeNanoseconds
        for value in 1...commits {
            try database.executeWrite { try $0.run(insertSQL, value) }
        }
        let elapsed = milliseconds(since: start)
        deliveries.wait(until: commits)
        for task in tasks { task.cancel() }
        return elapsed
    }

    static func grdbPool(_ path: String) throws -> GRDB.DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try GRDB.DatabasePool(path: path, configuration: configuration)
    }

    static func startGRDBObservers(_ pool: GRDB.DatabasePool, count: Int, deliveries: Deliveries) -> [AnyDatabaseCancellable] {
        let queue = DispatchQueue(label: "grdb-observers")
        let cancellables = (0..<count).map { observer in
            ValueObservation
                .tracking { db in try Int.fetchOne(db, sql: countSQL) ?? 0 }
                .removeDuplicates()
                .start(in: pool, scheduling: .async(onQueue: queue), onError: { _ in }, onChange: { deliveries.deliver($0, to: observer) })
        }
        deliveries.wait(until: 0)
        return cancellables
    }

    static func grdb(path: String, commits: Int, observers: Int) throws -> Double {
        let pool = try grdbPool(path)
        let deliveries = Deliveries(observers: observers, recordsArrivals: false)
        let cancellables = startGRDBObservers(pool, count: observers, deliveries: deliveries)
        let start = DispatchTime.now().uptimeNanoseconds
        for value in 1...commits {
            try pool.write { try $0.execute(sql: insertSQL, arguments: [value]) }
        }
        let elapsed = milliseconds(since: start)
        deliveries.wait(until: commits)
        for cancellable in cancellables { cancellable.cancel() }
        return elapsed
    }

    /// Microseconds from the start of each commit call to each observer's delivery of its value; one
    /// commit at a time, so no commit is coalesced with another.
    static func strataLatency(path: String, samples: Int, observers: Int) throws -> [Double] {
        let database = try strataDatabase(path)
        let deliveries = Deliveries(observers: observers, recordsArrivals: true)
        let tasks = startStrataObservers(database, count: observers, deliveries: deliveries)
        defer { for task in tasks { task.cancel() } }
        return try latencies(samples: samples, deliveries: deliveries) { value in
            try database.executeWrite { try $0.run(insertSQL, value) }
        }
    }

    static func grdbLatency(path: String, samples: Int, observers: Int) throws -> [Double] {
        let pool = try grdbPool(path)
        let deliveries = Deliveries(observers: observers, recordsArrivals: true)
        let cancellables = startGRDBObservers(pool, count: observers, deliveries: deliveries)
        defer { for cancellable in cancellables { cancellable.cancel() } }
        return try latencies(samples: samples, deliveries: deliveries) { value in
            try pool.write { try $0.execute(sql: insertSQL, arguments: [value]) }
        }
    }

    static func latencies(samples: Int, deliveries: Deliveries, commit: (Int) throws -> Void) throws -> [Double] {
        var result: [Double] = []
        for value in 1...samples {
            let started = DispatchTime.now().uptimeNanoseconds
            try commit(value)
            deliveries.wait(until: value)
            result += deliveries.arrivals(of: value).map { Double($0 - min($0, started)) / 1_000 }
        }
        return result
    }
}
