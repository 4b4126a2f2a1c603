import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata

/// Distances against a direct Double computation, and the SQL functions against the Swift ones.
@Suite struct VectorDistanceTests {
    @Test func distancesMatchADoubleReference() throws {
        try PropertyCheck.run("float32 SIMD distances match a Double reference", cases: 60) { random in
            let dimensions = VectorGen.dimension(&random)
            let a = try VectorGen.vector(dimensions, &random)
            // Sometimes the same vector, a scaled copy, or a mix of kinds on each side.
            let b: FloatVector
            switch random.int(0...5) {
            case 0: b = a
            case 1: b = try FloatVector(a.values.map { $0 * 3 })
            default: b = try VectorGen.vector(dimensions, &random)
            }
            for metric in VectorMetric.allCases {
                let ours = try a.distance(to: b, metric: metric)
                let expected = VectorGen.reference(metric, a.values, b.values)
                let tolerance = VectorGen.tolerance(metric, a.values, b.values, reference: expected)
                try require(ours.isFinite, "\(metric) is \(ours) for \(dimensions) dims")
                try require(
                    abs(ours - expected) <= tolerance,
                    "\(metric): \(ours), expected \(expected) ± \(tolerance) (\(dimensions) dims)")
            }
        }
    }

    @Test func definedValuesAtTheEdges() throws {
        let zero = try FloatVector([0, 0, 0]), x = try FloatVector([1, 0, 0]), y = try FloatVector([0, 2, 0])
        #expect(try zero.distance(to: x, metric: .cosine) == 1)
        #expect(try zero.distance(to: zero, metric: .cosine) == 1)
        #expect(try x.distance(to: y, metric: .cosine) == 1)
        #expect(try x.distance(to: x, metric: .cosine) == 0)
        #expect(try x.distance(to: try FloatVector([-3, 0, 0]), metric: .cosine) == 2)
        #expect(try x.distance(to: y, metric: .l2) == Double(Float(5).squareRoot())) // float32, as sqlite-vec
        #expect(try x.distance(to: try FloatVector([4, 1, 0]), metric: .innerProduct) == -4)
        #expect(try zero.distance(to: zero, metric: .l2) == 0)
        // Float32 overflow is computed again in Double: finite vectors have finite distances.
        let big = try FloatVector([3e38, -3e38]), small = try FloatVector([-3e38, 3e38])
        let side = 2 * Double(Float(3e38))
        #expect(try big.distance(to: small, metric: .l2) == (2 * side * side).squareRoot())
        #expect(try big.distance(to: small, metric: .cosine) == 2)
        // Subnormals: float32 squares underflow, the Double pass does not.
        let tiny = try FloatVector([Float.leastNonzeroMagnitude * 4, 0]), tinier = try FloatVector([0, Float.leastNonzeroMagnitude * 3])
        #expect(try tiny.distance(to: tinier, metric: .l2) == Double(Float.leastNonzeroMagnitude) * 5)
        #expect(try tiny.distance(to: tinier, metric: .cosine) == 1)
    }

    @Test func kernelsRefuseNonFiniteComponentsInBlobs() throws {
        // A BLOB written by another program may hold NaN: the in-place distance names it.
        var values: [Float] = [1, 2, 3, 4]
        let other: [Float] = [1, 1, 1, 1]
        for (index, bad) in [(2, Float.nan), (0, Float.infinity), (3, -Float.infinity)] {
            values = [1, 2, 3, 4]
            values[index] = bad
            for metric in VectorMetric.allCases {
                #expect(throws: VectorError.nonFinite(index: index)) {
                    try values.withUnsafeBytes { a in
                        try other.withUnsafeBytes { b in
                            try VectorKernels.distance(metric, a.baseAddress!, b.baseAddress!, dimensions: 4)
                        }
                    }
                }
            }
        }
    }

    @Test func sqlFunctionsAgreeWithSwift() throws {
        let db = try Connection()
        try db.addVectorFunctions()
        try PropertyCheck.run("strata_vec_* agree with FloatVector.distance", cases: 40) { random in
            let dimensions = VectorGen.dimension(&random)
            let a = try VectorGen.vector(dimensions, &random), b = try VectorGen.vector(dimensions, &random)
            let l2: Double? = try db.query(literal: "SELECT strata_vec_distance_l2(\(a), \(b))")
            let cosine: Double? = try db.query(literal: "SELECT strata_vec_distance_cosine(\(a), \(b))")
            let inner: Double? = try db.query(literal: "SELECT strata_vec_inner_product(\(a), \(b))")
            let dims: Int? = try db.query(literal: "SELECT strata_vec_dims(\(a))")
            try require(l2 == (try a.distance(to: b, metric: .l2)), "l2 \(String(describing: l2))")
            try require(cosine == (try a.distance(to: b, metric: .cosine)), "cosine \(String(describing: cosine))")
            try require(inner == -(try a.distance(to: b, metric: .innerProduct)), "inner \(String(describing: inner))")
            try require(dims == dimensions, "dims \(String(describing: dims))")
            let bitsA = BitVector(quantizing: a), bitsB = BitVector(quantizing: b)
            let hamming: Int? = try db.query(literal: "SELECT strata_vec_distance_hamming(\(bitsA), \(bitsB))")
            try require(hamming == (try bitsA.hammingDistance(to: bitsB)), "hamming \(String(describing: hamming))")
        }
    }

    @Test func sqlFunctionsRefuseWrongInputWithAMessage() throws {
        let db = try Connection()
        try db.addVectorFunctions()
        let three = try FloatVector([1, 2, 3]), two = try FloatVector([1, 2])
        func message(_ sql: SQLFragment) -> String? {
            do {
                let _: Double? = try db.query(literal: sql)
                return nil
            } catch let error as SQLiteError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("SELECT strata_vec_distance_l2(\(three), \(two))")?.contains("expected 3, got 2") == true)
        #expect(message("SELECT strata_vec_distance_l2('[1,2,3]', \(three))")?.contains("argument 1 is TEXT") == true)
        #expect(message("SELECT strata_vec_distance_cosine(\(three), 42)")?.contains("argument 2 is INTEGER") == true)
        #expect(message("SELECT strata_vec_inner_product(x'01020304050607', \(three))")?.contains("7 bytes is not a float32 vector") == true)
        #expect(message("SELECT strata_vec_dims(x'')")?.contains("0 bytes") == true)
        #expect(message("SELECT strata_vec_distance_hamming(x'01', x'0102')")?.contains("expected 8, got 16") == true)
        #expect(message("SELECT strata_vec_distance_l2(x'0000c07f0000803f', x'0000803f0000803f')")?.contains("component 0 is NaN") == true)
        let null: Double? = try db.query(literal: "SELECT strata_vec_distance_l2(NULL, \(three))")
        #expect(null == nil)
        let dimsOfNull: Int? = try db.query("SELECT strata_vec_dims(NULL)")
        #expect(dimsOfNull == nil)
    }

    @Test func databaseAddsTheFunctionsToEveryConnection() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let before: Int? = try database.executeRead { try $0.query("SELECT 1") }
        #expect(before == 1)
        try database.addVectorFunctions()
        let vector = try FloatVector([3, 4]), origin = try FloatVector([0, 0])
        let written: Int? = try database.executeWrite { try $0.query(literal: "SELECT strata_vec_dims(\(vector))") }
        let read: Double? = try database.executeRead { try $0.query(literal: "SELECT strata_vec_distance_l2(\(vector), \(origin))") }
        #expect(written == 2)
        #expect(read == 5)
    }
}
