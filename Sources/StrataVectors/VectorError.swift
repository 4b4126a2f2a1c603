// Vectors: float32, int8 and bit vectors stored as BLOBs in sqlite-vec's layout, their distances
// computed on the BLOB bytes in place, and the `strata_vec_*` SQL functions.
import Foundation
import StrataCore

/// The byte layout a vector BLOB was read as, named in ``VectorError/malformedBlob(bytes:layout:)``.
public enum VectorLayout: String, Sendable, Hashable {
    /// Little-endian float32, 4 bytes per dimension, no header (sqlite-vec's `vec_f32`).
    case float32
    /// One int8 per dimension followed by the scale as a little-endian float32 (``Int8Vector``).
    case int8
    /// One bit per dimension, packed least significant bit first (sqlite-vec's `vec_bit`).
    case bit
}

/// Why a vector could not be made, read or compared. Vectors come from user input and from BLOBs
/// other programs wrote, so every malformed case is an error, never a trap.
public enum VectorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A BLOB whose length does not fit the layout (not a multiple of 4 bytes for float32, or
    /// empty).
    case malformedBlob(bytes: Int, layout: VectorLayout)
    /// Two vectors (or a vector and the dimension a caller expects) differ in dimension.
    case wrongDimension(expected: Int, actual: Int)
    /// A component is NaN or infinite: refused when a vector is made or read, since no distance
    /// to it means anything.
    case nonFinite(index: Int)
    /// A vector without components: sqlite-vec refuses them too, and no distance is defined.
    case empty
    /// An ``Int8Vector`` scale that is negative, not finite, or so large that dequantizing overflows.
    case invalidScale(Float)

    /// What went wrong, with the numbers to find it.
    public var description: String {
        switch self {
        case .malformedBlob(let bytes, let layout):
            switch layout {
            case .float32: return "A BLOB of \(bytes) bytes is not a float32 vector (4 bytes per dimension, at least one)"
            case .int8: return "A BLOB of \(bytes) bytes is not an int8 vector (one byte per dimension and a 4-byte scale)"
            case .bit: return "A BLOB of \(bytes) bytes is not a bit vector (at least one byte)"
            }
        case .wrongDimension(let expected, let actual):
            return "Vector dimension mismatch: expected \(expected), got \(actual)"
        case .nonFinite(let index):
            return "Vector component \(index) is NaN or infinite"
        case .empty:
            return "A vector needs at least one dimension"
        case .invalidScale(let scale):
            return "Int8 vector scale \(scale) is not a finite non-negative number small enough to dequantize"
        }
    }
}

extension VectorError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
