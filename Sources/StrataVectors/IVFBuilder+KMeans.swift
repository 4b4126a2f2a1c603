import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

/// k-means, filing and probing, on float32 arrays.
enum IVFBuilder {
    /// Vectors read from a table: their rowids and their components, back to back.
    struct Vectors {
        var rowIDs: [Int64] = []
        var components: [Float] = []
        var dimensions: Int?
        var count: Int { rowIDs.count }
    }

    /// Every row's vector from `literal` (rowid, vector); the first fixes the dimension unless
    /// `expecting` does. A vector with a NaN or an infinity is left out: it is never filed.
    static func vectors(literal: SQLFragment, expecting: Int?, _ db: Connection) throws -> Vectors {
        var result = Vectors(dimensions: expecting)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                guard sqlite3_column_type(handle, 1) != SQLITE_NULL else { continue }
                let bytes = Int(sqlite3_column_bytes(handle, 1))
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB, let pointer = sqlite3_column_blob(handle, 1) else {
                    throw VectorError.malformedBlob(bytes: bytes, layout: .float32)
                }
                let dimensions = try FloatVector.dimensions(ofBlobBytes: bytes)
                if let expected = result.dimensions, expected != dimensions {
                    throw VectorError.wrongDimension(expected: expected, actual: dimensions)
                }
                result.dimensions = dimensions
                // No distance to rank it by, and a trigger cannot afford to look for one per write.
                if VectorKernels.firstNonFinite(pointer, count: dimensions) != nil { continue }
                result.rowIDs.append(sqlite3_column_int64(handle, 0))
                let floats = UnsafeRawBufferPointer(start: pointer, count: bytes)
                result.components.append(contentsOf: floats.bindMemory(to: Float.self))
            }
        }
        return result
    }

    static func centroids(of index: IVFIndex, _ db: Connection) throws -> [Float] {
        var centroids = [Float](repeating: 0, count: index.lists * index.dimensions)
        var seen = 0
        try db.withStatement(literal: "SELECT list, centroid FROM main.\(identifier: index.centroidsTable) ORDER BY list") { statement in
            let handle = statement.handle
            while try statement.step() {
                let list = Int(sqlite3_column_int64(handle, 0))
                let bytes = Int(sqlite3_column_bytes(handle, 1))
                guard list >= 0, list < index.lists, bytes == index.dimensions * 4, let pointer = sqlite3_column_blob(handle, 1) else {
                    throw VectorIndexError.noSuchIndex("\(index.name) (its centroid \(list) is damaged)")
                }
                centroids.withUnsafeMutableBytes { target in
                    target.baseAddress!.advanced(by: list * bytes).copyMemory(from: pointer, byteCount: bytes)
                }
                seen += 1
            }
        }
        guard seen == index.lists else { throw VectorIndexError.noSuchIndex("\(index.name) (\(seen) of \(index.lists) centroids)") }
        return centroids
    }

    /// How well `vector` fits a centroid, smaller better: the squared distance for L2; for
    /// cosine (centroids normalized) and inner product, the negated dot product.
    @inline(__always)
    static func fit(_ vector: UnsafeRawPointer, _ centroid: UnsafeRawPointer, dimensions: Int, metric: VectorMetric) -> Float {
        switch metric {
        case .l2: return VectorKernels.sumOfSquaredDifferences(vector, centroid, count: dimensions)
        case .cosine, .innerProduct: return -VectorKernels.dot(vector, centroid, count: dimensions)
        }
    }

    /// The list whose centroid fits `vector` best (the lowest list on a tie, and for NaN fits).
    static func nearestList(_ vector: UnsafeRawPointer, centroids: UnsafeRawPointer, lists: Int, dimensions: Int, metric: VectorMetric) -> Int {
        var best = 0
        var bestFit = Float.infinity
        for list in 0..<lists {
            let fit = fit(vector, centroids + list * dimensions * 4, dimensions: dimensions, metric: metric)
            if fit < bestFit { bestFit = fit; best = list }
        }
        return best
    }

    /// The `count` lists whose centroids fit `vector` best, best first (ties by list).
    static func nearestLists(_ vector: UnsafeRawPointer, centroids: [Float], dimensions: Int, metric: VectorMetric, count: Int) -> [Int] {
        let lists = centroids.count / dimensions
        let fits = centroids.withUnsafeBytes { base in
            (0..<lists).map { list in fit(vector, base.baseAddress! + list * dimensions * 4, dimensions: dimensions, metric: metric) }
        }
        return (0..<lists).sorted { (fits[$0].isNaN ? .infinity : fits[$0], $0) < (fits[$1].isNaN ? .infinity : fits[$1], $1) }
            .prefix(count).map { $0 }
    }

    /// k-means (Lloyd's rounds) on a seeded sample; for cosine, on unit vectors with unit
    /// centroids (spherical k-means). A list left empty takes a sampled vector.
    static func train(
        _ vectors: Vectors, lists: Int, metric: VectorMetric, sampleSize: Int, iterations: Int,
        random: inout SeededGenerator
    ) -> [Float] {
        let dimensions = vectors.dimensions ?? 1
        var order = Array(0..<vectors.count)
        let size = min(max(sampleSize, lists), vectors.count)
        for position in 0..<size { order.swapAt(position, Int.random(in: position..<vectors.count, using: &random)) }
        var sample: [Float] = []; sample.reserveCapacity(size * dimensions)
        for position in 0..<size {
            let start = order[position] * dimensions
            var vector = Array(vectors.components[start..<start + dimensions])
            if metric == .cosine { normalize(&vector) }
            sample.append(contentsOf: vector)
        }
        // The first centroids: the first `lists` vectors of the shuffled sample.
        var centroids = Array(sample[0..<lists * dimensions])
        let assignMetric: VectorMetric = metric == .innerProduct ? .l2 : metric
        for _ in 0..<iterations {
            var sums = [Double](repeating: 0, count: lists * dimensions)
            var counts = [Int](repeating: 0, count: lists)
            sample.withUnsafeBytes { samples in
                centroids.withUnsafeBytes { centres in
                    for position in 0..<size {
                        let vector = samples.baseAddress! + position * dimensions * 4
                        let list = nearestList(vector, centroids: centres.baseAddress!, lists: lists, dimensions: dimensions, metric: assignMetric)
                        counts[list] += 1
                        for component in 0..<dimensions { sums[list * dimensions + component] += Double(sample[position * dimensions + component]) }
                    }
                }
            }
            for list in 0..<lists {
                if counts[list] == 0 {
                    let donor = Int.random(in: 0..<size, using: &random) * dimensions
                    for component in 0..<dimensions { centroids[list * dimensions + component] = sample[donor + component] }
                    continue
                }
                var centroid = (0..<dimensions).map { Float(sums[list * dimensions + $0] / Double(counts[list])) }
                if metric == .cosine { normalize(&centroid) }
                for component in 0..<dimensions { centroids[list * dimensions + component] = centroid[component] }
            }
        }
        return centroids
    }

    static func normalize(_ vector: inout [Float]) {
        let norm = vector.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 0, norm.isFinite else { return }
        for index in vector.indices { vector[index] = Float(Double(vector[index]) / norm) }
    }
}
