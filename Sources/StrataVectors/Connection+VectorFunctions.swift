import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// The `strata_vec_*` SQL functions: distances between vector BLOBs, read in place. Their names
// leave sqlite-vec's `vec_*` alone, so a connection may load both.

extension Connection {
    /// Adds the vector SQL functions, so SQL can rank rows by distance without Swift in the loop:
    ///
    /// - `strata_vec_distance_l2(a, b)`: Euclidean distance of two float32 vectors.
    /// - `strata_vec_distance_cosine(a, b)`: 1 − cos θ (1 when either is a zero vector).
    /// - `strata_vec_inner_product(a, b)`: the dot product (larger is more similar).
    /// - `strata_vec_distance_hamming(a, b)`: differing bits of two bit vectors (``BitVector``).
    /// - `strata_vec_dims(a)`: the dimension of a float32 vector.
    /// - `strata_vec_top_k(table, column, query, k, metric)`: a table of the exact `k` nearest
    ///   rows, columns `rowid` and `distance` (``nearestRows(in:column:to:metric:k:)``).
    /// - `strata_vec_ivf_search(index, query, k, nprobe)`: the same through an IVF index
    ///   (``searchIVFIndex(_:nearest:k:nprobe:rescoring:among:)``).
    ///
    /// ```swift
    /// try db.addVectorFunctions()
    /// let ids: [Int64] = try db.query(literal: """
    ///     SELECT id FROM doc ORDER BY strata_vec_distance_cosine(embedding, \(query)) LIMIT 10
    ///     """)
    /// ```
    /// Vectors are BLOBs in sqlite-vec's layout (``FloatVector``, ``BitVector``). A NULL argument
    /// gives NULL; TEXT or a number, a BLOB of the wrong length, vectors of different
    /// dimensions and NaN or infinite components fail the statement with a message that says which.
    /// - Throws: `SQLiteError` when SQLite refuses a function (a statement using one is running).
    public func addVectorFunctions() throws {
        for metric in VectorMetric.allCases {
            let name = VectorSQLFunctions.name(of: metric)
            try addScalarFunction(named: name, argumentCount: 2, deterministic: true) { _, arguments in
                VectorSQLFunctions.distance(metric, name, arguments)
            }
        }
        try addScalarFunction(named: "strata_vec_distance_hamming", argumentCount: 2, deterministic: true) { _, arguments in
            VectorSQLFunctions.hamming(arguments)
        }
        try addScalarFunction(named: "strata_vec_dims", argumentCount: 1, deterministic: true) { _, arguments in
            VectorSQLFunctions.dimensions(arguments)
        }
        let box = VectorSearchConnection(self)
        try createTableValuedFunction(VectorSearchFunctions.topK(box))
        try createTableValuedFunction(VectorSearchFunctions.ivfSearch(box))
    }
}

extension Database {
    /// Adds the vector SQL functions (see `Connection.addVectorFunctions()`) on the writer now
    /// and on every reader connection, open or opened later.
    /// - Throws: `SQLiteError` when the writer refuses them.
    public func addVectorFunctions() throws {
        try registerOnEveryConnection { try $0.addVectorFunctions() }
    }
}

/// The bodies of the vector SQL functions.
enum VectorSQLFunctions {
    static func name(of metric: VectorMetric) -> String {
        switch metric {
        case .l2: return "strata_vec_distance_l2"
        case .cosine: return "strata_vec_distance_cosine"
        case .innerProduct: return "strata_vec_inner_product"
        }
    }

    /// A BLOB argument's bytes in place, nil for NULL, or the message for anything else.
    static func blob(
        _ value: Connection.FunctionValue, _ position: Int, _ function: String, _ layout: String
    ) -> Result<UnsafeRawBufferPointer?, VectorSQLError> {
        switch value.storageClass {
        case .null: return .success(nil)
        case .blob: return .success(value.buffer)
        default:
            let type = "\(value.storageClass)".uppercased()
            return .failure(VectorSQLError("\(function): argument \(position) is \(type), expected a \(layout) BLOB"))
        }
    }

    static func distance(_ metric: VectorMetric, _ function: String, _ arguments: [Connection.FunctionValue]) -> Connection.FunctionResult {
        evaluate(function, arguments, count: 2) {
            guard let a = try blob(arguments[0], 1, function, "float32 vector").get(),
                let b = try blob(arguments[1], 2, function, "float32 vector").get()
            else { return .null }
            let dimensions = try FloatVector.dimensions(ofBlobBytes: a.count)
            let other = try FloatVector.dimensions(ofBlobBytes: b.count)
            guard dimensions == other else { throw VectorError.wrongDimension(expected: dimensions, actual: other) }
            guard let aBase = a.baseAddress, let bBase = b.baseAddress else { return .error(message: "\(function): no BLOB bytes", code: nil) }
            let distance = try VectorKernels.distance(metric, aBase, bBase, dimensions: dimensions)
            // The SQL function reports the dot product itself; the metric negates it.
            return .double(metric == .innerProduct ? -distance : distance)
        }
    }

    static func hamming(_ arguments: [Connection.FunctionValue]) -> Connection.FunctionResult {
        let function = "strata_vec_distance_hamming"
        return evaluate(function, arguments, count: 2) {
            guard let a = try blob(arguments[0], 1, function, "bit vector").get(),
                let b = try blob(arguments[1], 2, function, "bit vector").get()
            else { return .null }
            guard let aBase = a.baseAddress, a.count > 0 else { throw VectorError.malformedBlob(bytes: 0, layout: .bit) }
            guard let bBase = b.baseAddress, b.count > 0 else { throw VectorError.malformedBlob(bytes: 0, layout: .bit) }
            guard a.count == b.count else { throw VectorError.wrongDimension(expected: a.count * 8, actual: b.count * 8) }
            return .long(Int64(VectorKernels.hamming(aBase, bBase, byteCount: a.count)))
        }
    }

    static func dimensions(_ arguments: [Connection.FunctionValue]) -> Connection.FunctionResult {
        let function = "strata_vec_dims"
        return evaluate(function, arguments, count: 1) {
            guard let a = try blob(arguments[0], 1, function, "float32 vector").get() else { return .null }
            return .long(Int64(try FloatVector.dimensions(ofBlobBytes: a.count)))
        }
    }

    /// Every vector function refuses a wrong argument count and reports a thrown error the same
    /// way, so the bodies only read their arguments.
    static func evaluate(
        _ function: String, _ arguments: [Connection.FunctionValue], count: Int,
        _ body: () throws -> Connection.FunctionResult
    ) -> Connection.FunctionResult {
        guard arguments.count == count else {
            return .error(message: "\(function) takes \(count) argument\(count == 1 ? "" : "s")", code: nil)
        }
        do {
            return try body()
        } catch {
            return failure(function, error)
        }
    }

    static func failure(_ function: String, _ error: any Error) -> Connection.FunctionResult {
        if let error = error as? VectorSQLError { return .error(message: error.message, code: nil) }
        return .error(message: "\(function): \(error)", code: nil)
    }
}

/// A refused argument, with the message the statement fails with.
struct VectorSQLError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
