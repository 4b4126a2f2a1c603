// The distance loops, on raw BLOB bytes: no Array per row. Float32 components are loaded as
// SIMD16 chunks (16 lanes, so the loop keeps 16 partial sums) with a scalar tail; sums are kept
// in float32, as sqlite-vec keeps them. The chunks use SIMD's `+` and `*`, which compile to
// vector instructions; `SIMD.addProduct` goes lane by lane (13 times slower at 384 dimensions).
import StrataCore

// sqlite-vec's layout is little-endian; on a little-endian machine the bytes are the floats.
#if _endian(big)
#error("Strata's vector kernels load float32 BLOBs natively and need a little-endian target")
#endif

/// How far apart two float vectors are, for ``FloatVector/distance(to:metric:)``, the
/// `strata_vec_*` SQL functions and typed nearest-neighbour queries.
public enum VectorMetric: String, Sendable, Hashable, CaseIterable {
    /// Euclidean distance, √Σ(aᵢ − bᵢ)², as sqlite-vec's `vec_distance_L2`.
    case l2
    /// 1 − cos θ, in 0…2, as sqlite-vec's `vec_distance_cosine`. A zero vector has no direction:
    /// its cosine distance to anything is 1 (as for orthogonal vectors), never NaN.
    case cosine
    /// The negated dot product, −Σaᵢbᵢ, so that smaller is nearer as for the other metrics
    /// (the SQL function `strata_vec_inner_product` returns the dot product itself).
    case innerProduct
}

package enum VectorKernels {
    @inline(__always)
    static func chunk(_ base: UnsafeRawPointer, _ index: Int) -> SIMD16<Float> {
        base.loadUnaligned(fromByteOffset: index &* 64, as: SIMD16<Float>.self)
    }

    @inline(__always)
    static func scalar(_ base: UnsafeRawPointer, _ index: Int) -> Float {
        base.loadUnaligned(fromByteOffset: index &* 4, as: Float.self)
    }

    /// Σ(aᵢ − bᵢ)² over `count` float32s.
    static func sumOfSquaredDifferences(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        var sum = SIMD16<Float>()
        let chunks = count / 16
        var index = 0
        while index < chunks {
            let difference = chunk(a, index) - chunk(b, index)
            sum += difference * difference
            index &+= 1
        }
        var total = sum.sum()
        var tail = chunks &* 16
        while tail < count {
            let difference = scalar(a, tail) - scalar(b, tail)
            total.addProduct(difference, difference)
            tail &+= 1
        }
        return total
    }

    /// Σaᵢbᵢ over `count` float32s.
    package static func dot(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Float {
        var sum = SIMD16<Float>()
        let chunks = count / 16
        var index = 0
        while index < chunks {
            sum += chunk(a, index) * chunk(b, index)
            index &+= 1
        }
        var total = sum.sum()
        var tail = chunks &* 16
        while tail < count {
            total.addProduct(scalar(a, tail), scalar(b, tail))
            tail &+= 1
        }
        return total
    }

    /// Σaᵢbᵢ, Σaᵢ² and Σbᵢ² in one pass.
    static func dotAndNorms(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> (dot: Float, a: Float, b: Float) {
        sums(a, b, count: count, summingA: true)
    }

    /// The one loop of ``dotAndNorms(_:_:count:)`` and ``dotAndNorm(_:_:count:)``. Inlined with a
    /// constant `summingA`, the Σaᵢ² lanes vanish where they are not wanted, and each lane adds
    /// in the same order either way, so both give the same bits.
    @inline(__always)
    static func sums(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int, summingA: Bool) -> (dot: Float, a: Float, b: Float) {
        var dot = SIMD16<Float>(), aa = SIMD16<Float>(), bb = SIMD16<Float>()
        let chunks = count / 16
        var index = 0
        while index < chunks {
            let x = chunk(a, index), y = chunk(b, index)
            dot += x * y
            if summingA { aa += x * x }
            bb += y * y
            index &+= 1
        }
        var result = (dot: dot.sum(), a: aa.sum(), b: bb.sum())
        var tail = chunks &* 16
        while tail < count {
            let x = scalar(a, tail), y = scalar(b, tail)
            result.dot.addProduct(x, y)
            if summingA { result.a.addProduct(x, x) }
            result.b.addProduct(y, y)
            tail &+= 1
        }
        return result
    }

    /// The number of differing bits of two `byteCount`-byte bit vectors.
    package static func hamming(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, byteCount: Int) -> Int {
        var total = 0
        let words = byteCount / 8
        var index = 0
        while index < words {
            let x = a.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self)
            let y = b.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self)
            total &+= (x ^ y).nonzeroBitCount
            index &+= 1
        }
        var tail = words &* 8
        while tail < byteCount {
            total &+= (a.load(fromByteOffset: tail, as: UInt8.self) ^ b.load(fromByteOffset: tail, as: UInt8.self)).nonzeroBitCount
            tail &+= 1
        }
        return total
    }

    /// The index of the first NaN or infinite float32 of `count`, or nil.
    static func firstNonFinite(_ base: UnsafeRawPointer, count: Int) -> Int? {
        for index in 0..<count where !scalar(base, index).isFinite { return index }
        return nil
    }

    /// Sums below this may have lost precision in float32 (their terms are subnormal or
    /// underflow to 0), so they are computed again in Double (so is an exact 0, rarely met).
    static let smallestPreciseSum: Float = 1e-28

    /// The distance between two `dimensions`-float32 vectors under `metric`.
    ///
    /// Float32 sums are checked once at the end, never per component: a non-finite result with a
    /// NaN or infinite component throws; otherwise a non-finite result (float32 overflow, for
    /// components beyond about 1e18) or a sum too small for float32 (components below about
    /// 1e-14) is computed again in Double. So finite vectors always have a finite distance,
    /// tiny ones an accurate one, and a zero vector's cosine distance is exactly 1.
    /// - Throws: ``VectorError/nonFinite(index:)``.
    package static func distance(_ metric: VectorMetric, _ a: UnsafeRawPointer, _ b: UnsafeRawPointer, dimensions: Int) throws -> Double {
        let raw: Float
        switch metric {
        case .l2:
            let squares = sumOfSquaredDifferences(a, b, count: dimensions)
            raw = squares < smallestPreciseSum ? .nan : squares.squareRoot()
        case .innerProduct:
            let product = dot(a, b, count: dimensions)
            raw = abs(product) < smallestPreciseSum ? .nan : -product
        case .cosine:
            let sums = dotAndNorms(a, b, count: dimensions)
            if sums.a >= smallestPreciseSum, sums.b >= smallestPreciseSum, sums.a.isFinite, sums.b.isFinite, sums.dot.isFinite {
                let cosine = sums.dot / (sums.a.squareRoot() * sums.b.squareRoot())
                raw = 1 - min(max(cosine, -1), 1)
            } else {
                raw = .nan
            }
        }
        if raw.isFinite { return Double(raw) }
        if let index = firstNonFinite(a, count: dimensions) ?? firstNonFinite(b, count: dimensions) {
            throw VectorError.nonFinite(index: index)
        }
        return distanceInDouble(metric, a, b, dimensions: dimensions)
    }

    /// The same distance with Double sums: the slow path for float32 overflow.
    static func distanceInDouble(_ metric: VectorMetric, _ a: UnsafeRawPointer, _ b: UnsafeRawPointer, dimensions: Int) -> Double {
        var dot = 0.0, aa = 0.0, bb = 0.0, squares = 0.0
        for index in 0..<dimensions {
            let x = Double(scalar(a, index)), y = Double(scalar(b, index))
            dot += x * y
            aa += x * x
            bb += y * y
            squares += (x - y) * (x - y)
        }
        switch metric {
        case .l2: return squares.squareRoot()
        case .innerProduct: return -dot
        case .cosine:
            if aa == 0 || bb == 0 { return 1 }
            return 1 - min(max(dot / (aa.squareRoot() * bb.squareRoot()), -1), 1)
        }
    }
}
