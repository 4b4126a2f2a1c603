import Foundation
import StrataSQift
import SQLite3
import StrataRecords

/// A document with a 384-float embedding, for the exact k-NN rows.
@Record(table: "doc")
struct VectorDoc: Sendable {
    @PrimaryKey var id: Int64?
    var embedding: FloatVector
}

// Issue 55's rows: exact k = 10 nearest neighbours (L2 and cosine) over N×D float32 vectors
// (100,000 × 384 by default; --rows and --dimensions for 1,000,000 × 128). Contenders: a plain
// Swift loop over the same floats held in one array (the floor: no SQLite at all), Strata's
// typed `nearest(to:by:metric:k:)` scan on one connection, the same query scanned in parallel
// on a `Database`'s reader pool, Strata's SQL function in an ORDER BY, and sqlite-vec 0.1.9
// (`vec_distance_*` in an ORDER BY, and its `vec0` virtual table's KNN query), loaded with
// `Connection.loadExtension(at:)` when `pip install sqlite-vec==0.1.9` put it where Python
// finds it (or STRATA_SQLITE_VEC names it); skipped with a note otherwise.
//
// Every contender reads the same file with the same connection settings: `--mmap BYTES` sets
// `PRAGMA mmap_size` on the serial connection (which also runs vec0) and on every reader of the
// pool (0, SQLite's default, when not given). The file is built once per rows × dimensions and
// kept in the temporary directory (strata-bench-vectors/), since building 1M rows and vec0's
// tables takes minutes; the vectors are SplitMix64 from a fixed seed, so it is the same file.
// `--page-size BYTES` builds (and caches) the file with another page size.
// `--vector-rss FILE` instead runs one exact scan on a cached file and prints the process's
// peak RSS (VmHWM) before and after, for the memory row.
enum VectorWorkloads {
    static var dimensions: Int { options.dimensions ?? 384 }
    static let k = 10

    struct Result {
        let workload: String
        let rows: Int
        var times: [String: Measurement] = [:]
        /// The process's CPU time (user + system, all threads) per call: steadier than wall time
        /// on a shared machine, and for the parallel scan the work its readers did together.
        var cpu: [String: Measurement] = [:]
    }

    /// User + system CPU time of the whole process so far, in ms.
    static func processCPU() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage) // Glibc imports RUSAGE_SELF as an enum case
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }

    /// "Strata flat index" searches a flat IVF index (`lists: 1`, float32): every vector compared
    /// from chunks, as vec0 compares its own chunked copy, so its answer is the exact one;
    /// "Strata parallel flat" splits those chunks across the `Database`'s readers.
    static let allContenders = [
        "swift loop", "Strata nearest", "Strata parallel", "Strata flat index", "Strata parallel flat", "Strata SQL fn",
        "sqlite-vec fn", "sqlite-vec vec0"
    ]
    static var contenders: [String] {
        guard let chosen = options.contenders else { return allContenders }
        return allContenders.filter { chosen.contains($0) }
    }

    static func sqliteVecPath() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["STRATA_SQLITE_VEC"], !path.isEmpty { return path }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite_vec; print(sqlite_vec.loadable_path())"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let path = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return [path, path + ".so", path + ".dylib"].first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Deterministic components in -1...1 (SplitMix64).
    static func makeFloats(count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                buffer[index] = Float(z >> 40) / Float(1 << 23) - 1
            }
            initialized = count
        }
    }

    /// `count` vectors of `dimensions` drawn around `clusters` centres (uniform in -1...1, from
    /// `centreSeed`), each component offset by Gaussian noise of deviation `spread` (from
    /// `noiseSeed`): data with the structure real embeddings have (topics), where uniform random
    /// vectors have none and are IVF's worst case. Deterministic (SplitMix64).
    static func makeClusteredFloats(count: Int, clusters: Int, spread: Float, centreSeed: UInt64, noiseSeed: UInt64) -> [Float] {
        let centres = makeFloats(count: clusters * dimensions, seed: centreSeed)
        var state = noiseSeed
        func unit() -> Float { // in (0, 1]
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return (Float(z >> 40) + 1) / Float(1 << 24)
        }
        var result = [Float](repeating: 0, count: count * dimensions)
        for row in 0..<count {
            let cluster = min(clusters - 1, Int(unit() * Float(clusters)))
            for component in 0..<dimensions {
                let gaussian = (-2 * logf(unit())).squareRoot() * cosf(2 * .pi * unit()) // Box–Muller
                result[row * dimensions + component] = centres[cluster * dimensions + component] + spread * gaussian
            }
        }
        return result
    }

    /// The cached file for `rows` × `dimensions` (built when missing), and whether it has vec0's tables.
    static func cachedFile(rows: Int, floats: [Float], extensionPath: String?, variant: String = "") throws -> (path: String, hasVec0: Bool) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-vectors")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pageSize = options.pageSize.map { "-page\($0)" } ?? ""
        let path = folder.appendingPathComponent("knn-\(rows)x\(dimensions)\(variant)\(pageSize)\(extensionPath == nil ? "" : "-vec0").sqlite").path
        if !FileManager.default.fileExists(atPath: path) {
            let partial = path + ".partial"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
            FileHandle.standardError.write(Data("vector-knn: building \(path)...\n".utf8))
            do { // the connection closes at the end of this scope, before the file moves
                let setup = try Connection(storageLocation: .onDisk(partial))
                try setup.execute(
                    "PRAGMA page_size = \(options.pageSize ?? 4096); PRAGMA journal_mode = WAL; CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)"
                )
                try setup.transaction {
                    for row in 0..<rows {
                        let vector = try FloatVector(Array(floats[row * dimensions..<(row + 1) * dimensions]))
                        try setup.run(literal: "INSERT INTO doc(id, embedding) VALUES (\(Int64(row + 1)), \(vector))")
                    }
                }
                if let extensionPath {
                    try setup.loadExtension(at: extensionPath)
                    try setup.execute(
                        """
                        CREATE VIRTUAL TABLE vdoc_l2 USING vec0(embedding float[\(dimensions)]);
                        CREATE VIRTUAL TABLE vdoc_cosine USING vec0(embedding float[\(dimensions)] distance_metric=cosine);
                        INSERT INTO vdoc_l2(rowid, embedding) SELECT id, embedding FROM doc;
                        INSERT INTO vdoc_cosine(rowid, embedding) SELECT id, embedding FROM doc;
                        """)
                }
                try setup.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE")
            }
            try FileManager.default.moveItem(atPath: partial, toPath: path)
        }
        return (path, extensionPath != nil)
    }

    static func prepare(_ connection: Connection) throws {
        try connection.execute("PRAGMA mmap_size = \(options.mmap ?? 0)")
    }

    @MainActor static func measureAll() async throws -> [Result] {
        let names = ["vector-knn-l2", "vector-knn-cosine"]
        let selected = names.filter { options.filter == nil || $0.contains(options.filter!) }
        guard !selected.isEmpty else { return [] }
        let rows = options.rows ?? 100_000
        let floats = makeFloats(count: rows * dimensions, seed: 55)
        let target = try FloatVector(makeFloats(count: dimensions, seed: 56))
        let extensionPath = sqliteVecPath()
        if extensionPath == nil {
            FileHandle.standardError.write(
                Data("vector-knn: sqlite-vec not found (pip install sqlite-vec==0.1.9, or set STRATA_SQLITE_VEC); its columns stay empty\n".utf8))
        }
        let (path, hasVec0) = try cachedFile(rows: rows, floats: floats, extensionPath: extensionPath)

        var results: [Result] = []
        for name in selected {
            if !options.json { FileHandle.standardError.write(Data("running \(name)...\n".utf8)) }
            let metric: VectorMetric = name.hasSuffix("cosine") ? .cosine : .l2
            var result = Result(workload: name, rows: rows)
            let connection = try Connection(storageLocation: .onDisk(path))
            try prepare(connection)
            try connection.addVectorFunctions()
            if hasVec0, let extensionPath { try connection.loadExtension(at: extensionPath) }
            // The flat index lives in the cached file beside vec0's tables, built once per metric.
            let flatIndex = "doc_flat_\(metric.rawValue)"
            if contenders.contains(where: { $0.contains("flat") }), (try? connection.ivfIndex(named: flatIndex)) == nil {
                try? connection.dropIVFIndex(flatIndex) // one of an earlier layout
                FileHandle.standardError.write(Data("vector-knn: building the flat index \(flatIndex)...\n".utf8))
                try connection.createIVFIndex(flatIndex, on: "doc", column: "embedding", options: IVFIndexOptions(metric: metric, lists: 1))
            }
            let database = try Database(storageLocation: .onDisk(path), readerConnectionPreparation: prepare)
            let floor = swiftLoop(floats, rows: rows, target: target.values, metric: metric)
            var serial: [Int64]?
            for round in 0...options.runs {
                for contender in contenders {
                    if contender.hasPrefix("sqlite-vec"), !hasVec0 { continue }
                    let cpuStart = processCPU()
                    let start = DispatchTime.now().uptimeNanoseconds
                    let ids: [Int64]
                    switch contender {
                    case "swift loop": ids = swiftLoop(floats, rows: rows, target: target.values, metric: metric)
                    case "Strata nearest":
                        ids = try VectorDoc.nearest(to: target, by: \.embedding, metric: metric, k: k).fetchAll(connection).map { $0.record.id ?? 0 }
                    case "Strata parallel":
                        ids = try await VectorDoc.nearest(to: target, by: \.embedding, metric: metric, k: k).fetchAll(database).map { $0.record.id ?? 0 }
                    case "Strata flat index":
                        ids = try connection.searchIVFIndex(flatIndex, nearest: target, k: k, nprobe: 1).map(\.rowID)
                    case "Strata parallel flat":
                        ids = try await database.searchIVFIndex(flatIndex, nearest: target, k: k, nprobe: 1).map(\.rowID)
                    case "Strata SQL fn":
                        let function = metric == .l2 ? "strata_vec_distance_l2" : "strata_vec_distance_cosine"
                        ids = try connection.query(literal: "SELECT id FROM doc ORDER BY \(SQLFragment(sql: function))(embedding, \(target)), id LIMIT \(k)")
                    case "sqlite-vec fn":
                        let function = metric == .l2 ? "vec_distance_l2" : "vec_distance_cosine"
                        ids = try connection.query(literal: "SELECT id FROM doc ORDER BY \(SQLFragment(sql: function))(embedding, \(target)), id LIMIT \(k)")
                    default:
                        let table = metric == .l2 ? "vdoc_l2" : "vdoc_cosine"
                        ids = try connection.query(
                            literal: "SELECT rowid FROM \(identifier: table) WHERE embedding MATCH \(target) AND k = \(k) ORDER BY distance")
                    }
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                    let cpu = processCPU() - cpuStart
                    guard ids.count == min(k, rows) else { throw BenchError.mismatch("\(name): \(contender) returned \(ids.count) rows") }
                    // The parallel scan must return exactly the serial scan's records.
                    if contender.hasPrefix("Strata"), contender != "Strata SQL fn" {
                        if let serial, serial != ids { throw BenchError.mismatch("\(name): \(contender) returned \(ids), the serial scan \(serial)") }
                        serial = ids
                    }
                    // float32 sums in another order may swap near-equal neighbours; the nearest must agree.
                    if round == 0, ids.first != floor.first {
                        FileHandle.standardError.write(
                            Data("\(name): \(contender) nearest id \(String(describing: ids.first)), the loop's \(String(describing: floor.first))\n".utf8))
                    }
                    if round > 0 {
                        result.times[contender, default: Measurement()].times.append(elapsed)
                        result.cpu[contender, default: Measurement()].times.append(cpu)
                    }
                }
            }
            try await database.close()
            results.append(result)
        }
        return results
    }

    /// One exact scan (L2) over a cached file, in a process that has done nothing else: prints
    /// VmHWM (peak resident set) and RssAnon/RssFile after opening and after the scan.
    static func measurePeakMemory(path: String) throws {
        func status() -> String {
            let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0.hasPrefix("VmHWM") || $0.hasPrefix("RssAnon") || $0.hasPrefix("RssFile") }
                .map { $0.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\t", with: " ") }.joined(separator: ", ")
        }
        let connection = try Connection(storageLocation: .onDisk(path))
        try prepare(connection)
        // max(rowid) is one seek; count(*) would read (and, mapped, make resident) every page.
        let rows: Int = try connection.query("SELECT max(rowid) FROM doc") ?? 0
        print("opened (\(rows) rows, mmap_size \(options.mmap ?? 0)): \(status())")
        let target = try FloatVector(makeFloats(count: dimensions, seed: 56))
        let hits = try VectorDoc.nearest(to: target, by: \.embedding, metric: .l2, k: k).fetchAll(connection)
        print("after one exact scan (\(hits.count) hits): \(status())")
    }

    /// The floor: a plain loop over the floats in memory, top k by insertion into a sorted array.
    @inline(never) static func swiftLoop(_ floats: [Float], rows: Int, target: [Float], metric: VectorMetric) -> [Int64] {
        var best: [(distance: Float, id: Int64)] = []
        floats.withUnsafeBufferPointer { all in
            target.withUnsafeBufferPointer { q in
                let d = q.count
                for row in 0..<rows {
                    let base = row * d
                    var distance: Float
                    if metric == .l2 {
                        var sum: Float = 0
                        for i in 0..<d { let x = all[base + i] - q[i]; sum += x * x }
                        distance = sum.squareRoot()
                    } else {
                        var dot: Float = 0, aa: Float = 0, bb: Float = 0
                        for i in 0..<d { let x = all[base + i], y = q[i]; dot += x * y; aa += x * x; bb += y * y }
                        distance = aa == 0 || bb == 0 ? 1 : 1 - dot / (aa.squareRoot() * bb.squareRoot())
                    }
                    if best.count < k || distance < best[best.count - 1].distance {
                        let entry = (distance: distance, id: Int64(row + 1))
                        let index = best.firstIndex { $0.distance > distance } ?? best.count
                        best.insert(entry, at: index)
                        if best.count > k { best.removeLast() }
                    }
                }
            }
        }
        return best.map(\.id)
    }

    /// `--ivf`: on a copy of the cached file, an IVF index (√rows lists), an int8-coded one and a
    /// flat int8 one are built (time and size printed); then, for several `nprobe`, the median
    /// time of a k = 10 search and its recall@10 against the exact scan, over 20 query vectors.
    static func measureIVF() throws {
        let rows = options.rows ?? 100_000
        // Clustered: a cluster per 1,000 rows, and queries drawn from the same clusters (as an
        // app's queries resemble its documents); uniform: every vector and query random.
        let clusters = max(1, rows / 1_000)
        let spread = options.spread
        let floats =
            options.clustered
            ? makeClusteredFloats(count: rows, clusters: clusters, spread: spread, centreSeed: 55, noiseSeed: 56)
            : makeFloats(count: rows * dimensions, seed: 55)
        let (cached, _) = try cachedFile(
            rows: rows, floats: floats, extensionPath: nil,
            variant: options.clustered ? "-clustered\(clusters)" + (spread == 0.5 ? "" : "-spread\(spread)") : "")
        let path = cached + ".ivf"
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: cached, toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Connection(storageLocation: .onDisk(path))
        try prepare(db)
        func fileBytes() throws -> Int { (try db.query("PRAGMA page_count") as Int? ?? 0) * (try db.query("PRAGMA page_size") as Int? ?? 0) }
        let queryFloats =
            options.clustered
            ? makeClusteredFloats(count: 20, clusters: clusters, spread: spread, centreSeed: 55, noiseSeed: 1_000)
            : makeFloats(count: 20 * dimensions, seed: 1_000)
        let queries = try (0..<20).map { try FloatVector(Array(queryFloats[$0 * dimensions..<($0 + 1) * dimensions])) }
        var exactTimes: [Double] = []
        let exact = try queries.map { query -> Set<Int64> in
            let start = DispatchTime.now().uptimeNanoseconds
            let ids = try db.nearestRows(in: "doc", column: "embedding", to: query, k: k).map(\.rowID)
            exactTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
            return Set(ids)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let data = options.clustered ? "\(clusters) Gaussian clusters (σ = \(spread) per component)" : "uniform random"
        print("IVF over \(rows) × \(dimensions) float32, \(data) (k = \(k), 20 queries, medians; exact scan \(format(median(exactTimes))) ms)\n")
        print("| index | build s | size MB | nprobe | search ms | recall@10 | time / exact |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        let lists = max(1, Int(Double(rows).squareRoot()))
        for (name, table, options) in [
            ("IVF float32", "ivf_float", IVFIndexOptions(lists: lists)),
            ("IVF int8", "ivf_int8", IVFIndexOptions(lists: lists, quantization: .int8)),
            ("flat int8", "flat_int8", IVFIndexOptions(lists: 1, quantization: .int8)),
            ("flat bit", "flat_bit", IVFIndexOptions(lists: 1, quantization: .bit)),
            // Every vector compared, from chunks: exact, as the scan is.
            ("flat float32", "flat_float", IVFIndexOptions(lists: 1))
        ]
        where strata_bench.options.contenders?.contains(name) ?? true { // --contenders "flat int8,IVF int8" picks some
            let before = try fileBytes()
            let start = DispatchTime.now().uptimeNanoseconds
            let index = try db.createIVFIndex(table, on: "doc", column: "embedding", options: options)
            let build = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000_000
            let size = Double(try fileBytes() - before) / 1_000_000
            let probes = index.lists == 1 ? [1] : [1, 4, 16, 64, 128, 256].filter { $0 <= index.lists }
            // One bit per dimension orders candidates coarsely: more of them are rescored.
            let rescorings = options.quantization == .bit ? [4, 16, 64] : [4]
            for nprobe in probes {
                for rescoring in rescorings {
                    var times: [Double] = []
                    var hits = 0
                    for (query, truth) in zip(queries, exact) {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let found = try db.searchIVFIndex(index.name, nearest: query, k: k, nprobe: nprobe, rescoring: rescoring)
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
                        hits += found.filter { truth.contains($0.rowID) }.count
                    }
                    let recall = Double(hits) / Double(queries.count * k)
                    let label = rescorings.count > 1 ? "\(name) (\(index.lists) lists, rescoring \(rescoring))" : "\(name) (\(index.lists) lists)"
                    print(
                        "| \(label) | \(format(build)) | \(format(size)) | \(nprobe) | \(format(median(times))) | \(String(format: "%.3f", recall)) | \(String(format: "%.3f", median(times) / median(exactTimes))) |"
                    )
                }
            }
        }
    }
}
