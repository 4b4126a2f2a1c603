import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

/// A float vector quantized to one signed byte per dimension: a quarter of the space, at the
/// cost of precision (each component is off by at most half a step, `scale / 2`).
///
/// Quantization is symmetric: `scale = max|xᵢ| / 127`, `valueᵢ = round(xᵢ / scale)` in −127…127,
/// and `xᵢ ≈ valueᵢ × scale`. The scale is part of the vector, so it is stored too: the BLOB is
/// the int8 values followed by the scale as a little-endian float32 (`dimensions + 4` bytes),
/// and reads back to an equal vector. sqlite-vec's own int8 layout (`vec_int8`) has no scale;
/// ``sqliteVecBlob`` gives the values alone in that layout.
public struct Int8Vector: Hashable, Sendable {
    /// The quantized components.
    public let values: [Int8]
    /// What one step of a component is worth: `xᵢ ≈ Float(valueᵢ) * scale`.
    public let scale: Float

    /// The number of components.
    public var dimensions: Int { values.count }

    /// A vector of `values` at `scale`.
    /// - Throws: ``VectorError/empty``; ``VectorError/invalidScale(_:)`` for a scale that is
    ///   negative, not finite, or above `Float.greatestFiniteMagnitude / 127`.
    public init(values: [Int8], scale: Float) throws {
        guard !values.isEmpty else { throw VectorError.empty }
        guard scale.isFinite, scale >= 0, scale <= .greatestFiniteMagnitude / 127 else { throw VectorError.invalidScale(scale) }
        self.values = values
        self.scale = scale
    }

    /// `vector` quantized symmetrically; a zero vector has scale 0.
    public init(quantizing vector: FloatVector) {
        let largest = vector.values.reduce(Float(0)) { max($0, abs($1)) }
        let scale = largest / 127
        self.scale = scale
        values = vector.values.map { component in
            guard scale > 0 else { return 0 }
            return Int8(min(max((component / scale).rounded(), -127), 127))
        }
    }

    /// Reads the BLOB ``blob`` writes; with `dimensions`, one of another dimension is refused.
    /// - Throws: ``VectorError/malformedBlob(bytes:layout:)`` below 5 bytes;
    ///   ``VectorError/wrongDimension(expected:actual:)``; ``VectorError/invalidScale(_:)``.
    public init(blob: Data, dimensions: Int? = nil) throws {
        guard blob.count > 4 else { throw VectorError.malformedBlob(bytes: blob.count, layout: .int8) }
        let count = blob.count - 4
        if let dimensions, dimensions != count { throw VectorError.wrongDimension(expected: dimensions, actual: count) }
        let (values, scale) = blob.withUnsafeBytes { bytes in
            (
                Array(bytes.prefix(count)).map { Int8(bitPattern: $0) },
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: count, as: UInt32.self)))
            )
        }
        try self.init(values: values, scale: scale)
    }

    /// The BLOB the vector is stored as: its values, then its scale as a little-endian float32.
    public var blob: Data {
        var data = Data(values.map { UInt8(bitPattern: $0) })
        withUnsafeBytes(of: scale.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// The values alone, one byte each: sqlite-vec's `vec_int8` layout (without the scale).
    public var sqliteVecBlob: Data { Data(values.map { UInt8(bitPattern: $0) }) }

    /// The float vector the values stand for (`valueᵢ × scale`; at the largest scales a product
    /// that rounds past float32's range is kept at `±Float.greatestFiniteMagnitude`).
    public var dequantized: FloatVector {
        FloatVector(checked: values.map { min(max(Float($0) * scale, -.greatestFiniteMagnitude), .greatestFiniteMagnitude) })
    }
}

extension Int8Vector: BlobVector {}

/// A float vector reduced to one bit per dimension, its sign (set for a component above 0), as
/// sqlite-vec's `vec_quantize_binary` does: 1/32 of the space, compared by Hamming distance.
///
/// The bits are packed least significant bit first, 8 per byte, which is sqlite-vec's `vec_bit`
/// layout, so the BLOB is the bytes alone. A BLOB cannot say how many bits of its last byte are
/// used, so the dimension is always a multiple of 8: quantizing pads with zero bits (the same
/// padding on both sides of a comparison leaves the Hamming distance unchanged).
public struct BitVector: Hashable, Sendable {
    /// The packed bits, least significant bit first.
    public let bytes: [UInt8]

    /// The number of bits: 8 per byte.
    public var dimensions: Int { bytes.count * 8 }

    /// A vector of packed `bytes`.
    /// - Throws: ``VectorError/empty``.
    public init(bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw VectorError.empty }
        self.bytes = bytes
    }

    /// The signs of `vector`'s components: bit `i` is set when component `i` is above 0.
    public init(quantizing vector: FloatVector) {
        var bytes = [UInt8](repeating: 0, count: (vector.dimensions + 7) / 8)
        for (index, component) in vector.values.enumerated() where component > 0 {
            bytes[index / 8] |= 1 << UInt8(index % 8)
        }
        self.bytes = bytes
    }

    /// Reads a bit BLOB; with `dimensions` (a multiple of 8), one of another dimension is refused.
    /// - Throws: ``VectorError/malformedBlob(bytes:layout:)`` for an empty BLOB;
    ///   ``VectorError/wrongDimension(expected:actual:)``.
    public init(blob: Data, dimensions: Int? = nil) throws {
        guard !blob.isEmpty else { throw VectorError.malformedBlob(bytes: 0, layout: .bit) }
        if let dimensions, dimensions != blob.count * 8 {
            throw VectorError.wrongDimension(expected: dimensions, actual: blob.count * 8)
        }
        bytes = Array(blob)
    }

    /// Bit `index`: whether component `index` was above 0.
    public subscript(index: Int) -> Bool {
        bytes[index / 8] & (1 << UInt8(index % 8)) != 0
    }

    /// The BLOB the vector is stored as: the packed bytes.
    public var blob: Data { Data(bytes) }

    /// How many bits differ.
    /// - Throws: ``VectorError/wrongDimension(expected:actual:)`` when the dimensions differ.
    public func hammingDistance(to other: BitVector) throws -> Int {
        guard other.bytes.count == bytes.count else {
            throw VectorError.wrongDimension(expected: dimensions, actual: other.dimensions)
        }
        return bytes.withUnsafeBytes { a in
            other.bytes.withUnsafeBytes { b in
                guard let a = a.baseAddress, let b = b.baseAddress else { return 0 }
                return VectorKernels.hamming(a, b, byteCount: bytes.count)
            }
        }
    }
}

extension BitVector: BlobVector {}

/// A vector type stored as one BLOB of its own layout (``Int8Vector``, ``BitVector``): binds as
/// that BLOB and reads back from one (anything else, or a BLOB not in the layout, reads as nil).
public protocol BlobVector: Binding where BindingType == Data {
    /// Reads the BLOB ``blob`` writes; with `dimensions`, one of another dimension is refused.
    init(blob: Data, dimensions: Int?) throws
    /// The BLOB the vector is stored as.
    var blob: Data { get }
}

extension BlobVector {
    /// The vector as its BLOB.
    public var bindingValue: BindingValue { .blob(blob) }

    /// The vector a BLOB (`Data`) holds, or nil for anything else.
    public static func fromBindingValue(_ value: Any) -> Self? {
        (value as? Data).flatMap { try? Self(blob: $0, dimensions: nil) }
    }

    /// The vector an SQL value holds: BLOB only; one not in the layout reads as nil.
    public static func extract(from value: SQLiteValueHandle) -> Self? {
        extract(from: value, type: sqlite3_value_type(value))
    }

    /// The vector an SQL value of storage class `type` holds: BLOB only; one not in the layout
    /// reads as nil.
    public static func extract(from value: SQLiteValueHandle, type: Int32) -> Self? {
        type == SQLITE_BLOB ? try? Self(blob: readBlob(value), dimensions: nil) : nil
    }
}
