import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

/// An embedding: a vector of finite float32 components, stored as a BLOB in sqlite-vec's layout
/// (little-endian float32, 4 bytes per dimension, no header), so a column written by Strata
/// reads in sqlite-vec's `vec_*` functions and a BLOB made by `vec_f32('[…]')` reads here.
///
/// ```swift
/// let embedding = try FloatVector([0.12, -0.5, 0.33])
/// try db.run(literal: "INSERT INTO doc(body, embedding) VALUES (\(body), \(embedding))")
/// let nearest = try embedding.distance(to: other, metric: .cosine)
/// ```
/// A vector always has at least one dimension and no NaN or infinite component: both are
/// refused when it is made (``VectorError/empty``, ``VectorError/nonFinite(index:)``), so
/// every vector that binds has a defined distance to every other of its dimension.
public struct FloatVector: Hashable, Sendable, CustomStringConvertible {
    /// The components.
    public let values: [Float]

    /// The number of components.
    public var dimensions: Int { values.count }

    /// A vector of `values`.
    /// - Throws: ``VectorError/empty``; ``VectorError/nonFinite(index:)`` for a NaN or infinity.
    public init(_ values: [Float]) throws {
        guard !values.isEmpty else { throw VectorError.empty }
        if let index = values.firstIndex(where: { !$0.isFinite }) { throw VectorError.nonFinite(index: index) }
        self.values = values
    }

    /// Components already checked.
    init(checked values: [Float]) {
        self.values = values
    }

    /// Reads a float32 BLOB; with `dimensions`, one of another dimension is refused.
    /// - Throws: ``VectorError/malformedBlob(bytes:layout:)`` for a length that is not a positive
    ///   multiple of 4; ``VectorError/wrongDimension(expected:actual:)``;
    ///   ``VectorError/nonFinite(index:)``.
    public init(blob: Data, dimensions: Int? = nil) throws {
        self = try blob.withUnsafeBytes { try FloatVector(bytes: $0, dimensions: dimensions) }
    }

    /// Reads float32 BLOB bytes in place (`sqlite3_column_blob`'s, say); copies them once.
    /// - Throws: as ``init(blob:dimensions:)``.
    public init(bytes: UnsafeRawBufferPointer, dimensions: Int? = nil) throws {
        let count = try FloatVector.dimensions(ofBlobBytes: bytes.count)
        if let dimensions, dimensions != count { throw VectorError.wrongDimension(expected: dimensions, actual: count) }
        guard let base = bytes.baseAddress else { throw VectorError.malformedBlob(bytes: 0, layout: .float32) }
        if let index = VectorKernels.firstNonFinite(base, count: count) { throw VectorError.nonFinite(index: index) }
        // Little-endian float32 is the machine's own layout (checked where the kernels compile).
        values = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(start: base, count: count * 4))
            initialized = count
        }
    }

    /// The dimension of a float32 BLOB of `bytes` bytes.
    /// - Throws: ``VectorError/malformedBlob(bytes:layout:)`` unless a positive multiple of 4.
    public static func dimensions(ofBlobBytes bytes: Int) throws -> Int {
        guard bytes > 0, bytes % 4 == 0 else { throw VectorError.malformedBlob(bytes: bytes, layout: .float32) }
        return bytes / 4
    }

    /// The BLOB the vector is stored as: 4 little-endian bytes per component.
    public var blob: Data {
        values.withUnsafeBytes { Data($0) }
    }

    /// The distance to `other` under `metric` (computed in float32, as sqlite-vec computes it).
    /// - Throws: ``VectorError/wrongDimension(expected:actual:)`` when the dimensions differ.
    public func distance(to other: FloatVector, metric: VectorMetric) throws -> Double {
        guard other.dimensions == dimensions else {
            throw VectorError.wrongDimension(expected: dimensions, actual: other.dimensions)
        }
        return try values.withUnsafeBytes { a in
            try other.values.withUnsafeBytes { b in
                guard let a = a.baseAddress, let b = b.baseAddress else { throw VectorError.empty }
                return try VectorKernels.distance(metric, a, b, dimensions: dimensions)
            }
        }
    }

    /// `[x, y, …]`, as sqlite-vec's `vec_to_json` writes it.
    public var description: String {
        "[" + values.map { "\($0)" }.joined(separator: ",") + "]"
    }
}

extension FloatVector: Binding {
    public typealias BindingType = Data

    /// The vector as its float32 BLOB.
    public var bindingValue: BindingValue { .blob(blob) }

    /// Binds the components' bytes directly (no `Data` in between).
    public func bind(to statement: SQLiteStatementHandle, at index: Int32) throws -> Int32 {
        values.withUnsafeBytes { buffer in
            guard buffer.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            return sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
        }
    }

    /// A float32 BLOB's vector, or nil for anything else (a malformed BLOB, TEXT).
    public static func fromBindingValue(_ value: Any) -> FloatVector? {
        (value as? Data).flatMap { try? FloatVector(blob: $0) }
    }

    public static func extract(from value: SQLiteValueHandle) -> FloatVector? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// BLOB only; a BLOB that is not a float32 vector reads as nil (a record read reports it as
    /// a value mismatch; ``init(bytes:dimensions:)`` says why).
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> FloatVector? {
        guard type == SQLITE_BLOB else { return nil }
        let bytes = UnsafeRawBufferPointer(start: sqlite3_value_blob(value), count: Int(sqlite3_value_bytes(value)))
        return try? FloatVector(bytes: bytes)
    }
}
