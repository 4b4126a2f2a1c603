import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// What a filed vector is stored as: float32, int8 with its scale, or bits.
extension IVFBuilder {
    /// What a filed vector is stored as.
    static func code(_ vector: UnsafeRawPointer, dimensions: Int, quantization: VectorQuantization) -> Data {
        let bytes = UnsafeRawBufferPointer(start: vector, count: dimensions * 4)
        switch quantization {
        case .none: return Data(bytes)
        case .int8, .bit:
            // Finite by construction: the vectors were checked when read.
            guard let floats = try? FloatVector(Array(bytes.bindMemory(to: Float.self))) else { return Data(bytes) }
            return quantization == .int8 ? Int8Vector(quantizing: floats).blob : BitVector(quantizing: floats).blob
        }
    }
}
