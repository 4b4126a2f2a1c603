import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// Table-valued searches for SQL: the k nearest rows of a table (an exact scan) or of an IVF
// index, as rows (rowid, distance) to join back to the table:
//     SELECT doc.* , s.distance FROM strata_vec_top_k('doc', 'embedding', :q, 10, 'cosine') AS s
//       JOIN doc ON doc.rowid = s.rowid ORDER BY s.distance
//     SELECT rowid, distance FROM strata_vec_ivf_search('doc_ivf', :q, 10, 8)

/// The connection a table-valued search runs its scan on: the one it is registered on.
// @unchecked Sendable: the table-valued function's closure must be `@Sendable`, but it only ever
// runs inside a statement of this connection, on the thread running that statement; the
// reference is weak so the connection's own registration does not keep it alive.
final class VectorSearchConnection: @unchecked Sendable {
    weak var connection: Connection?
    init(_ connection: Connection) { self.connection = connection }
}

enum VectorSearchFunctions {
    /// A scan's arguments, read or refused with a message naming the function and argument.
    struct ArgumentError: Error, CustomStringConvertible {
        let description: String
    }

    static func text(_ value: BindingValue, _ function: String, _ name: String) throws -> String {
        guard case .text(let text) = value else { throw ArgumentError(description: "\(function): \(name) must be TEXT") }
        return text
    }

    static func count(_ value: BindingValue, _ function: String, _ name: String, minimum: Int64) throws -> Int {
        guard case .integer(let number) = value, number >= minimum, number <= Int64(Int32.max) else {
            throw ArgumentError(description: "\(function): \(name) must be an INTEGER from \(minimum) to \(Int32.max)")
        }
        return Int(number)
    }

    static func vector(_ value: BindingValue, _ function: String) throws -> FloatVector {
        guard case .blob(let data) = value else { throw ArgumentError(description: "\(function): the query vector must be a float32 BLOB") }
        return try FloatVector(blob: data, dimensions: FloatVector.dimensions(ofBlobBytes: data.count))
    }

    static func rows(_ hits: [(rowID: Int64, distance: Double)]) -> [[Bindable?]] {
        hits.map { [$0.rowID, $0.distance] }
    }

    /// `strata_vec_top_k(table, column, query, k, metric)`: the exact k nearest rows.
    static func topK(_ box: VectorSearchConnection) -> TableValuedFunction {
        TableValuedFunction(
            name: "strata_vec_top_k", columns: ["rowid", "distance"],
            parameters: ["table_name", "column_name", "query", "k", "metric"]
        ) { arguments in
            let function = "strata_vec_top_k"
            guard let connection = box.connection else { throw ArgumentError(description: "\(function): the connection is closed") }
            let table = try text(arguments[0], function, "table_name"), column = try text(arguments[1], function, "column_name")
            let target = try vector(arguments[2], function)
            let k = try count(arguments[3], function, "k", minimum: 0)
            let metricName = arguments[4] == .null ? "l2" : try text(arguments[4], function, "metric")
            guard let metric = VectorMetric(rawValue: metricName) else {
                throw ArgumentError(description: "\(function): metric must be 'l2', 'cosine' or 'innerProduct', not '\(metricName)'")
            }
            return rows(try connection.nearestRows(in: table, column: column, to: target, metric: metric, k: k))
        }
    }

    /// `strata_vec_ivf_search(index, query, k, nprobe)`: the k nearest rows an IVF index finds.
    static func ivfSearch(_ box: VectorSearchConnection) -> TableValuedFunction {
        TableValuedFunction(
            name: "strata_vec_ivf_search", columns: ["rowid", "distance"],
            parameters: ["index_name", "query", "k", "nprobe"]
        ) { arguments in
            let function = "strata_vec_ivf_search"
            guard let connection = box.connection else { throw ArgumentError(description: "\(function): the connection is closed") }
            let index = try text(arguments[0], function, "index_name")
            let target = try vector(arguments[1], function)
            let k = try count(arguments[2], function, "k", minimum: 0)
            let nprobe = arguments[3] == .null ? 8 : try count(arguments[3], function, "nprobe", minimum: 1)
            // Inside the caller's statement: already one snapshot, and no savepoint may open here.
            return rows(try connection.searchIVFIndexInSnapshot(index, nearest: target, k: k, nprobe: nprobe))
        }
    }
}

extension Connection {
    /// The exact `k` nearest rows of `table` by its float32 vector `column`, nearest first (ties
    /// by rowid), every row compared in place; NULL vectors skipped.
    /// - Throws: ``VectorError`` for a vector of another dimension or a malformed one;
    ///   `SQLiteError` (no such table or column).
    public func nearestRows(
        in table: String, column: String, to vector: FloatVector, metric: VectorMetric = .l2,
        k: Int
    ) throws -> [(rowID: Int64, distance: Double)] {
        guard k > 0 else { return [] }
        var best = VectorTopK(capacity: k)
        let prepared = PreparedVectorTarget(vector, metric: metric)
        try withStatement(literal: "SELECT rowid, \(identifier: column) FROM \(identifier: table) WHERE \(identifier: column) IS NOT NULL") { statement in
            let handle = statement.handle
            while try statement.step() {
                let bytes = Int(sqlite3_column_bytes(handle, 1))
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB, let pointer = sqlite3_column_blob(handle, 1) else {
                    throw VectorError.malformedBlob(bytes: bytes, layout: .float32)
                }
                let dimensions = try FloatVector.dimensions(ofBlobBytes: bytes)
                guard dimensions == vector.dimensions else { throw VectorError.wrongDimension(expected: vector.dimensions, actual: dimensions) }
                best.offer(distance: try prepared.distance(to: pointer), rowID: sqlite3_column_int64(handle, 0))
            }
        }
        return best.ranked
    }
}
