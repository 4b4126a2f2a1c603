// What an exact top-k scan needs beside the kernels: a query vector prepared once for many rows,
// and the candidates kept so far. Records, the reader pool and SQL functions build on these; the
// scan itself is the caller's loop over `sqlite3_column_blob` pointers.
import StrataCore

/// A float query vector prepared for comparing with many float32 BLOBs: its bytes copied once,
/// its squared norm computed once for cosine (the same SIMD sum, lane for lane, as
/// ``VectorKernels/dotAndNorms(_:_:count:)``, so distances are bit-identical to
/// ``FloatVector/distance(to:metric:)``'s).
package final class PreparedVectorTarget: @unchecked Sendable {
    // @unchecked: the buffer is written once in init and only read afterwards; it is freed in deinit.
    let storage: UnsafeMutableRawPointer
    package let dimensions: Int
    package let metric: VectorMetric
    /// Σtᵢ² in float32, for cosine.
    let squaredNorm: Float

    package init(_ target: FloatVector, metric: VectorMetric) {
        dimensions = target.dimensions
        self.metric = metric
        // 64-byte aligned: the kernels load SIMD16<Float> chunks of the target on every row.
        let storage = UnsafeMutableRawPointer.allocate(byteCount: target.dimensions * 4, alignment: 64)
        target.values.withUnsafeBytes { UnsafeMutableRawBufferPointer(start: storage, count: $0.count).copyMemory(from: $0) }
        self.storage = storage
        squaredNorm = VectorKernels.dotAndNorms(storage, storage, count: target.dimensions).a
    }

    deinit { storage.deallocate() }

    /// The distance from the target to the `dimensions`-float32 vector at `row` (a BLOB's bytes
    /// in place), as ``VectorKernels/distance(_:_:_:dimensions:)`` computes it.
    /// - Throws: ``VectorError/nonFinite(index:)``.
    @inline(__always)
    package func distance(to row: UnsafeRawPointer) throws -> Double {
        let raw: Float
        switch metric {
        case .l2:
            let squares = VectorKernels.sumOfSquaredDifferences(storage, row, count: dimensions)
            raw = squares < VectorKernels.smallestPreciseSum ? .nan : squares.squareRoot()
        case .innerProduct:
            let product = VectorKernels.dot(storage, row, count: dimensions)
            raw = abs(product) < VectorKernels.smallestPreciseSum ? .nan : -product
        case .cosine:
            let sums = VectorKernels.dotAndNorm(storage, row, count: dimensions)
            let smallest = VectorKernels.smallestPreciseSum
            if squaredNorm >= smallest, sums.b >= smallest, squaredNorm.isFinite, sums.b.isFinite, sums.dot.isFinite {
                let cosine = sums.dot / (squaredNorm.squareRoot() * sums.b.squareRoot())
                raw = 1 - min(max(cosine, -1), 1)
            } else {
                raw = .nan
            }
        }
        if raw.isFinite { return Double(raw) }
        // The rare slow path (NaN, overflow, underflow) is the shared one, so its rules stay in one place.
        return try VectorKernels.distance(metric, storage, row, dimensions: dimensions)
    }
}

extension VectorKernels {
    /// Σaᵢbᵢ and Σbᵢ² in one pass: ``dotAndNorms(_:_:count:)`` without Σaᵢ², for a target whose
    /// norm is known. Each lane adds in the same order, so the sums are the same bits.
    static func dotAndNorm(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> (dot: Float, b: Float) {
        let result = sums(a, b, count: count, summingA: false)
        return (result.dot, result.b)
    }
}

/// One row a nearest-neighbour scan ranked: its distance and rowid, the record read later. Made
/// only inside the kernel (and by tests through `@testable`), so the memberwise initializer serves.
package struct VectorCandidate: Sendable, Hashable {
    package let distance: Double
    package let rowID: Int64

    /// Whether `self` ranks after `other`: farther, or as far with a larger rowid (so the order
    /// is total and a result never depends on the order rows were visited in).
    @inline(__always)
    func ranksAfter(_ other: VectorCandidate) -> Bool {
        distance > other.distance || (distance == other.distance && rowID > other.rowID)
    }
}

/// The best `capacity` candidates seen so far: a max-heap on (distance, rowid), so the worst kept
/// is at the root and most rows are compared with it once and dropped.
package struct VectorTopK: Sendable {
    package let capacity: Int
    private var entries: [VectorCandidate] = []

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
        entries.reserveCapacity(min(self.capacity, 1 << 16))
    }

    /// Keeps (`distance`, `rowID`) if it ranks among the best `capacity`.
    @inline(__always)
    package mutating func offer(distance: Double, rowID: Int64) {
        let candidate = VectorCandidate(distance: distance, rowID: rowID)
        if entries.count < capacity {
            entries.append(candidate)
            var child = entries.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard entries[child].ranksAfter(entries[parent]) else { break }
                entries.swapAt(child, parent)
                child = parent
            }
        } else if let worst = entries.first, worst.ranksAfter(candidate) {
            entries[0] = candidate
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < entries.count, entries[left].ranksAfter(entries[largest]) { largest = left }
                if right < entries.count, entries[right].ranksAfter(entries[largest]) { largest = right }
                guard largest != parent else { break }
                entries.swapAt(parent, largest)
                parent = largest
            }
        }
    }

    /// Offers every candidate of `other` (another chunk's best): the merge of two scans is the
    /// scan of both, since the order is total.
    package mutating func merge(_ other: [VectorCandidate]) {
        for candidate in other { offer(distance: candidate.distance, rowID: candidate.rowID) }
    }

    /// The kept candidates, nearest first (ties by rowid ascending).
    package var nearestFirst: [VectorCandidate] {
        entries.sorted { $1.ranksAfter($0) }
    }
}

/// `range` cut into at most `count` contiguous spans of equal width (the last takes the rest),
/// in order; computed in UInt64 so a range across all of Int64 does not overflow.
package func splitRowIDRange(_ range: ClosedRange<Int64>, into count: Int) -> [ClosedRange<Int64>] {
    let width = UInt64(bitPattern: range.upperBound &- range.lowerBound) // rows - 1
    let parts = UInt64(max(1, count))
    // One span is the range itself; and for Int64.min...Int64.max the step below, the width
    // plus one, would overflow (a trap that ended a test process now and then, a generated
    // range reaching it).
    guard parts > 1 else { return [range] }
    let step = width / parts + 1
    var spans: [ClosedRange<Int64>] = []
    var start = range.lowerBound
    while true {
        let remaining = UInt64(bitPattern: range.upperBound &- start)
        if remaining < step || spans.count == Int(parts) - 1 {
            spans.append(start...range.upperBound)
            return spans
        }
        let end = start &+ Int64(bitPattern: step &- 1)
        spans.append(start...end)
        start = end &+ 1
    }
}
