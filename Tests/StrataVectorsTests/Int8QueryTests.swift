import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataVectors

/// The integer int8 kernel of quantized IVF search against the same sums in Double, on generated
/// vectors of every dimension up to 70 (so every tail length), extremes and zero vectors included.
@Suite struct Int8QueryTests {
    @Test func integerSumsEqualTheSumsComputedDirectly() throws {
        try PropertyCheck.run("Int8Query sums", cases: 300) { random in
            let dimensions = random.int(1...70)
            func component() -> Float {
                switch random.int(0...5) {
                case 0: return 0
                case 1: return random.oneIn(2) ? 1e-30 : -3e4
                default: return Float(random.int(-1000...1000)) / 37
                }
            }
            let query = try FloatVector((0..<dimensions).map { _ in component() })
            let stored = try FloatVector((0..<dimensions).map { _ in component() })
            let code = Int8Vector(quantizing: stored)
            let prepared = IVFBuilder.Int8Query(query)
            let quantizedQuery = Int8Vector(quantizing: query)
            // Σq′c and Σc² exactly, in Int64.
            let dot = zip(quantizedQuery.values, code.values).reduce(Int64(0)) { $0 + Int64($1.0) * Int64($1.1) }
            let norm = code.values.reduce(Int64(0)) { $0 + Int64($1) * Int64($1) }
            let squares = query.values.reduce(0.0) { $0 + Double($1) * Double($1) }
            let (s, t) = (Double(code.scale), Double(quantizedQuery.scale))
            let blob = code.blob
            try prepared.widened.withUnsafeBytes { widened in
                try blob.withUnsafeBytes { codeBytes in
                    let (w, c) = (try #require(widened.baseAddress), try #require(codeBytes.baseAddress))
                    let sums = IVFBuilder.Int8Query.sums(w, c, dimensions: dimensions, norm: true)
                    try require(Int64(sums.dot) == dot && Int64(sums.norm) == norm, "dims \(dimensions): \(sums) vs \(dot), \(norm)")
                    let l2 = squares - 2 * s * t * Double(dot) + s * s * Double(norm)
                    let tolerance = 1e-4 * max(1, squares + s * s * Double(norm))
                    try require(abs(prepared.l2(w, c, dimensions: dimensions) - l2) <= tolerance, "l2, dims \(dimensions)")
                    try require(
                        abs(prepared.innerProduct(w, c, dimensions: dimensions) + s * t * Double(dot)) <= tolerance, "inner product, dims \(dimensions)")
                    let denominator = squares.squareRoot() * Double(norm).squareRoot()
                    let cosine = denominator > 0 ? 1 - t * Double(dot) / denominator : 1
                    try require(abs(prepared.cosine(w, c, dimensions: dimensions) - cosine) <= 1e-4, "cosine, dims \(dimensions)")
                }
            }
        }
    }
}
