import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Vector values: sqlite-vec's BLOB layouts, round trips through SQLite, and the named errors for
/// everything that is not a vector.
@Suite struct VectorValueTests {
    @Test func floatBlobIsLittleEndianFloat32WithoutHeader() throws {
        let vector = try FloatVector([1, -2.5, 0.1])
        var expected = Data()
        for value in vector.values { withUnsafeBytes(of: value.bitPattern.littleEndian) { expected.append(contentsOf: $0) } }
        #expect(vector.blob == expected)
        #expect(vector.blob.count == 12)
        #expect(try FloatVector(blob: expected) == vector)
        #expect(vector.description == "[1.0,-2.5,0.1]")
    }

    @Test func floatVectorRoundTripsThroughSQLite() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(id INTEGER PRIMARY KEY, embedding BLOB)")
        try PropertyCheck.run("FloatVector round-trips as a BLOB", cases: 40) { random in
            let vector = try VectorGen.vector(VectorGen.dimension(&random), &random)
            try db.run(literal: "DELETE FROM doc")
            try db.run(literal: "INSERT INTO doc(id, embedding) VALUES (1, \(vector))")
            let read: FloatVector? = try db.query(literal: "SELECT embedding FROM doc")
            try require(read == vector, "read back \(String(describing: read?.dimensions)) dims, wrote \(vector.dimensions)")
            let type: String? = try db.query(literal: "SELECT typeof(embedding) FROM doc")
            try require(type == "blob", "stored as \(String(describing: type))")
            let length: Int? = try db.query(literal: "SELECT length(embedding) FROM doc")
            try require(length == vector.dimensions * 4, "length \(String(describing: length))")
            // The bitwise value survives, -0.0 and subnormals included.
            try require(read.map { $0.values.map(\.bitPattern) } == vector.values.map(\.bitPattern), "bits changed")
        }
    }

    @Test func nonFiniteAndEmptyAreRefusedOnWrite() {
        #expect(throws: VectorError.nonFinite(index: 1)) { try FloatVector([0, .nan, 1]) }
        #expect(throws: VectorError.nonFinite(index: 0)) { try FloatVector([.infinity]) }
        #expect(throws: VectorError.nonFinite(index: 2)) { try FloatVector([1, 2, -.infinity]) }
        #expect(throws: VectorError.empty) { try FloatVector([]) }
        #expect(throws: VectorError.empty) { try BitVector(bytes: []) }
        #expect(throws: VectorError.empty) { try Int8Vector(values: [], scale: 1) }
    }

    @Test func malformedBlobsAndWrongDimensionsAreNamedErrors() throws {
        for count in [0, 1, 2, 3, 5, 7, 13] {
            #expect(throws: VectorError.malformedBlob(bytes: count, layout: .float32)) {
                try FloatVector(blob: Data(repeating: 0, count: count))
            }
        }
        let blob = try FloatVector([1, 2, 3]).blob
        #expect(throws: VectorError.wrongDimension(expected: 4, actual: 3)) { try FloatVector(blob: blob, dimensions: 4) }
        #expect(try FloatVector(blob: blob, dimensions: 3).values == [1, 2, 3])
        var nan = blob
        withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) { nan.replaceSubrange(4..<8, with: $0) }
        #expect(throws: VectorError.nonFinite(index: 1)) { try FloatVector(blob: nan) }
        #expect(throws: VectorError.wrongDimension(expected: 3, actual: 2)) {
            try FloatVector([1, 2, 3]).distance(to: FloatVector([1, 2]), metric: .l2)
        }
        #expect(throws: VectorError.malformedBlob(bytes: 4, layout: .int8)) { try Int8Vector(blob: Data([1, 2, 3, 4])) }
        #expect(throws: VectorError.malformedBlob(bytes: 0, layout: .bit)) { try BitVector(blob: Data()) }
        #expect(throws: VectorError.wrongDimension(expected: 16, actual: 8)) { try BitVector(blob: Data([1]), dimensions: 16) }
        #expect(VectorError.malformedBlob(bytes: 7, layout: .float32).description.contains("7 bytes"))
    }

    @Test func malformedBlobReadsAsAValueMismatchNotATrap() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE doc(embedding)")
        try db.execute("INSERT INTO doc VALUES (x'010203'), ('text'), (NULL)")
        let read: [FloatVector] = try db.query(literal: "SELECT embedding FROM doc")
        #expect(read.isEmpty)
    }

    @Test func int8QuantizationIsSymmetricAndRoundTrips() throws {
        try PropertyCheck.run("Int8Vector quantizes within half a step and round-trips", cases: 40) { random in
            let vector = try VectorGen.vector(VectorGen.dimension(&random), &random)
            let quantized = Int8Vector(quantizing: vector)
            let largest = vector.values.map(abs).max() ?? 0
            try require(quantized.scale == largest / 127, "scale \(quantized.scale) for max \(largest)")
            try require(quantized.values.allSatisfy { $0 >= -127 }, "a value below -127")
            let back = quantized.dequantized
            for (original, restored) in zip(vector.values, back.values) {
                let step = Double(quantized.scale)
                try require(
                    abs(Double(original) - Double(restored)) <= step * 0.51 + 1e-44,
                    "\(original) came back as \(restored) at scale \(quantized.scale)")
            }
            let blob = quantized.blob
            try require(blob.count == vector.dimensions + 4, "blob of \(blob.count) bytes")
            try require(try Int8Vector(blob: blob) == quantized, "blob did not round-trip")
            try require(quantized.sqliteVecBlob == blob.prefix(vector.dimensions), "sqlite-vec layout")
        }
        let zero = Int8Vector(quantizing: try FloatVector([0, 0, 0]))
        #expect(zero.scale == 0 && zero.values == [0, 0, 0])
        #expect(Int8Vector(quantizing: try FloatVector([1, -0.5, 0.25])).values == [127, -64, 32])
        #expect(throws: VectorError.invalidScale(-1)) { try Int8Vector(values: [1], scale: -1) }
        #expect(throws: VectorError.invalidScale(.infinity)) { try Int8Vector(values: [1], scale: .infinity) }
        // The largest float quantizes to a scale that still reads back.
        let extreme = Int8Vector(quantizing: try FloatVector([.greatestFiniteMagnitude, -.greatestFiniteMagnitude]))
        #expect(try Int8Vector(blob: extreme.blob) == extreme)
        #expect(extreme.dequantized.values.allSatisfy { $0.isFinite })
    }

    @Test func bitQuantizationMatchesSqliteVecPacking() throws {
        // vec_quantize_binary: bit i set when x[i] > 0, least significant bit first.
        let vector = try FloatVector([1, -1, 0, 2, -0.0, 3, -3, 0.5, 0.1])
        let bits = BitVector(quantizing: vector)
        #expect(bits.bytes == [0b1010_1001, 0b0000_0001])
        #expect(bits.dimensions == 16)
        #expect((0..<9).map { bits[$0] } == vector.values.map { $0 > 0 })
        #expect(try BitVector(blob: bits.blob) == bits)
        try PropertyCheck.run("Hamming distance counts differing signs", cases: 40) { random in
            let dimensions = VectorGen.dimension(&random)
            let a = try VectorGen.vector(dimensions, &random), b = try VectorGen.vector(dimensions, &random)
            let expected = zip(a.values, b.values).filter { ($0 > 0) != ($1 > 0) }.count
            let distance = try BitVector(quantizing: a).hammingDistance(to: BitVector(quantizing: b))
            try require(distance == expected, "hamming \(distance), expected \(expected)")
        }
        #expect(throws: VectorError.wrongDimension(expected: 8, actual: 16)) {
            try BitVector(bytes: [1]).hammingDistance(to: BitVector(bytes: [1, 2]))
        }
    }

    @Test func quantizedVectorsBindAsBlobs() throws {
        let db = try Connection()
        let int8 = Int8Vector(quantizing: try FloatVector([0.5, -1, 0.25]))
        let bits = BitVector(quantizing: try FloatVector([0.5, -1, 0.25]))
        let readInt8: Int8Vector? = try db.query(literal: "SELECT \(int8)")
        let readBits: BitVector? = try db.query(literal: "SELECT \(bits)")
        #expect(readInt8 == int8)
        #expect(readBits == bits)
        let types: String? = try db.query(literal: "SELECT typeof(\(int8)) || typeof(\(bits))")
        #expect(types == "blobblob")
    }
}
