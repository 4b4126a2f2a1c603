import Foundation

/// The row shape of the integer workloads, shared by every contender's model.
struct TenInts {
    var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Int
    var sum: Int64 { Int64(a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9) }
}

/// The row shape of fetch-mixed.
struct Mixed {
    var id: Int64
    var name: String
    var score: Double
    var payload: Data
    var checksum: Int64 { id &+ Int64(name.utf8.count) &+ Int64(score) &+ Int64(payload.count) &+ Int64(payload.last ?? 0) }
}

enum BenchError: Error, CustomStringConvertible {
    case sqlite(String)
    case mismatch(String)
    var description: String {
        switch self {
        case .sqlite(let message): return "SQLite: \(message)"
        case .mismatch(let message): return "Result mismatch: \(message)"
        }
    }
}

/// Work ready to time (connection open, data in place) and how to tear it down afterwards.
struct Prepared {
    let work: () throws -> Int64
    let close: () -> Void
}

/// Opens a contender's connection to the database at a path, for a number of rows.
typealias Contender = (_ path: String, _ rows: Int) throws -> Prepared

/// Runs `scan` on two threads at once and adds the results; the first error is rethrown.
func sumOnTwoThreads(_ scan: @escaping @Sendable () throws -> Int64) throws -> Int64 {
    // @unchecked Sendable: each thread writes its own slot, under the lock.
    final class Results: @unchecked Sendable {
        let lock = NSLock()
        var values: [Swift.Result<Int64, Error>] = []
    }
    let results = Results()
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
        let result = Swift.Result { try scan() }
        results.lock.withLock { results.values.append(result) }
    }
    return try results.values.reduce(0) { $0 &+ (try $1.get()) }
}
