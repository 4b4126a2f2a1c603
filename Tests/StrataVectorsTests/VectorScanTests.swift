import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataVectors

/// The scan's prepared target and top-k heap: the same distances as `FloatVector.distance`, bit
/// for bit, and the same top k whatever the order or split rows are offered in.
@Suite struct VectorScanTests {
    @Test func preparedTargetDistancesAreFloatVectorDistancesBitForBit() throws {
        try PropertyCheck.run("PreparedVectorTarget.distance == FloatVector.distance", cases: 80) { random in
            let dimensions = VectorGen.dimension(&random)
            let target = try VectorGen.vector(dimensions, &random)
            let row = random.oneIn(6) ? target : try VectorGen.vector(dimensions, &random)
            for metric in VectorMetric.allCases {
                let prepared = PreparedVectorTarget(target, metric: metric)
                let scanned = try row.values.withUnsafeBytes { bytes in
                    try prepared.distance(to: try #require(bytes.baseAddress))
                }
                let expected = try target.distance(to: row, metric: metric)
                try require(scanned.bitPattern == expected.bitPattern, "\(metric), \(dimensions) dims: \(scanned) vs \(expected)")
            }
        }
    }

    @Test func nonFiniteRowComponentsThrowAsTheKernelDoes() throws {
        let prepared = PreparedVectorTarget(try FloatVector([1, 2, 3]), metric: .cosine)
        let row: [Float] = [1, .nan, 3]
        #expect(throws: VectorError.nonFinite(index: 1)) {
            try row.withUnsafeBytes { try prepared.distance(to: try #require($0.baseAddress)) }
        }
    }

    @Test func topKIsTheSortedPrefixWhateverTheOrderAndSplit() throws {
        try PropertyCheck.run("VectorTopK keeps the k smallest (distance, rowid)", cases: 100) { random in
            let count = random.int(0...200)
            // Few distinct distances, so ties are decided by rowid.
            let candidates = (0..<count).map { index in
                VectorCandidate(distance: Double(random.int(0...6)) / 2, rowID: Int64(index) * 3 - 50)
            }.shuffled(using: &random)
            let k = random.int(0...count + 3)
            let expected = candidates.sorted { ($0.distance, $0.rowID) < ($1.distance, $1.rowID) }.prefix(k)

            var whole = VectorTopK(capacity: k)
            for candidate in candidates { whole.offer(distance: candidate.distance, rowID: candidate.rowID) }
            try require(whole.nearestFirst == Array(expected), "one pass: \(whole.nearestFirst) vs \(Array(expected))")

            // Split into parts, each kept to k, then merged in a random order: the same k.
            let cut = random.int(0...count)
            var merged = VectorTopK(capacity: k)
            var parts = [Array(candidates[..<cut]), Array(candidates[cut...])].map { part in
                var top = VectorTopK(capacity: k)
                for candidate in part { top.offer(distance: candidate.distance, rowID: candidate.rowID) }
                return top.nearestFirst
            }
            parts.shuffle(using: &random)
            for part in parts { merged.merge(part) }
            try require(merged.nearestFirst == Array(expected), "merged: \(merged.nearestFirst) vs \(Array(expected))")
        }
    }
}
