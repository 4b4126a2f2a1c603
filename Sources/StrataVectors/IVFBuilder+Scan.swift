import Foundation
#if canImport(SQLite3)
import SQLite3
#endif
import StrataCore

// Scanning filed chunks: float32 and quantized distances, in place.
extension IVFBuilder {
    /// Calls `body` with each filed entry of the chunks `literal` selects (rows, codes): its
    /// rowid and a pointer to its code, in place.
    static func scanChunks(
        _ literal: SQLFragment, _ index: IVFIndex, _ db: Connection,
        _ body: (Int64, UnsafeRawPointer) throws -> Void
    ) throws {
        let codeBytes = codeBytes(index)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                let chunk = try chunkBlobs(handle, 0, index, codeBytes: codeBytes)
                guard let rows = chunk.rows, let codes = chunk.codes else { continue }
                for entry in 0..<chunk.count {
                    try body(Int64(littleEndian: rows.loadUnaligned(fromByteOffset: entry &* 8, as: Int64.self)), codes + entry &* codeBytes)
                }
            }
        }
    }

    /// Ranks the rows of `literal` (rowid, float32 vector) by their exact distance to `vector`,
    /// passing over a vector with a NaN or an infinity (the query vector has none).
    static func scanFloat(
        _ literal: SQLFragment, _ vector: FloatVector, _ index: IVFIndex, _ db: Connection,
        _ offer: (Double, Int64) -> Void
    ) throws {
        let prepared = PreparedVectorTarget(vector, metric: index.metric)
        try db.withStatement(literal: literal) { statement in
            let handle = statement.handle
            while try statement.step() {
                guard sqlite3_column_type(handle, 1) == SQLITE_BLOB,
                    Int(sqlite3_column_bytes(handle, 1)) == index.dimensions * 4,
                    let bytes = sqlite3_column_blob(handle, 1)
                else {
                    throw VectorError.malformedBlob(bytes: Int(sqlite3_column_bytes(handle, 1)), layout: .float32)
                }
                let distance: Double
                do { distance = try prepared.distance(to: bytes) } catch VectorError.nonFinite { continue }
                offer(distance, sqlite3_column_int64(handle, 0))
            }
        }
    }

    /// Which of `rowIDs` the indexed table still has with a vector.
    static func existingRows(_ rowIDs: [Int64], in index: IVFIndex, _ db: Connection) throws -> Set<Int64> {
        var present = Set<Int64>()
        for start in stride(from: 0, to: rowIDs.count, by: 500) {
            let slice = rowIDs[start..<min(start + 500, rowIDs.count)].map { SQLFragment.value($0) }.joined(separator: ", ")
            let rows: [Int64] = try db.query(
                literal: "SELECT \(index.rowID) FROM \(index.rowSource) WHERE \(index.rowID) IN (\(slice)) AND t.\(identifier: index.column) IS NOT NULL")
            present.formUnion(rows)
        }
        return present
    }

    /// Ranks the filed codes of the chunks `literal` selects by their approximate distance to
    /// `vector`.
    static func scanCodes(
        _ literal: SQLFragment, _ vector: FloatVector, _ index: IVFIndex, _ db: Connection,
        _ offer: (Double, Int64) -> Void
    ) throws {
        switch index.quantization {
        case .int8:
            let query = Int8Query(vector)
            try query.widened.withUnsafeBytes { widened in
                guard let widened = widened.baseAddress else { throw VectorError.empty }
                switch index.metric {
                case .l2:
                    try scanChunks(literal, index, db) { row, code in offer(query.l2(widened, code, dimensions: index.dimensions), row) }
                case .cosine:
                    try scanChunks(literal, index, db) { row, code in offer(query.cosine(widened, code, dimensions: index.dimensions), row) }
                case .innerProduct:
                    try scanChunks(literal, index, db) { row, code in offer(query.innerProduct(widened, code, dimensions: index.dimensions), row) }
                }
            }
        case .bit, .none:
            let bits = BitVector(quantizing: vector)
            let byteCount = bits.bytes.count
            try bits.bytes.withUnsafeBytes { queryBits in
                guard let targetBits = queryBits.baseAddress else { throw VectorError.empty }
                try scanChunks(literal, index, db) { row, code in
                    offer(Double(VectorKernels.hamming(targetBits, code, byteCount: byteCount)), row)
                }
            }
        }
    }

    /// A query made ready for int8 codes: quantized to int8 itself, so each code is compared in
    /// integers (sixteen products and sums per step, with no conversion to float), which is most
    /// of a flat quantized search's work. Its own rounding only orders candidates, which are
    /// rescored exactly.
    struct Int8Query {
        /// The query's int8 values widened to Int16, zero-padded to a multiple of 16.
        let widened: [Int16]
        /// The query's scale: its components are about `scale × value`.
        let scale: Double
        /// Σq² and ‖q‖ of the float32 query, in Double: float32 would overflow for components
        /// beyond about 1e19 (and lose a tiny query's norm).
        let squares: Double
        let norm: Double

        init(_ vector: FloatVector) {
            let quantized = Int8Vector(quantizing: vector)
            var widened = quantized.values.map { Int16($0) }
            widened.append(contentsOf: repeatElement(0, count: (16 - widened.count % 16) % 16))
            self.widened = widened
            scale = Double(quantized.scale)
            squares = vector.values.reduce(0.0) { $0 + Double($1) * Double($1) }
            norm = squares.squareRoot()
        }

        // The terms are combined in Double: in float32, s²·Σc² and Σq² overflow to infinity for
        // large finite vectors, and their difference would be NaN for every code.

        /// ‖q − s·c‖² as Σq² − 2·s·t·Σq′c + s²·Σc².
        @inline(__always)
        func l2(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int) -> Double {
            let sums = Self.sums(widened, code, dimensions: dimensions, norm: true)
            let s = Self.codeScale(code, dimensions: dimensions)
            return squares - 2 * s * scale * Double(sums.dot) + s * s * Double(sums.norm)
        }

        @inline(__always)
        func cosine(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int) -> Double {
            let sums = Self.sums(widened, code, dimensions: dimensions, norm: true)
            let denominator = norm * Double(sums.norm).squareRoot()
            return denominator > 0 ? 1 - scale * Double(sums.dot) / denominator : 1
        }

        @inline(__always)
        func innerProduct(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int) -> Double {
            let sums = Self.sums(widened, code, dimensions: dimensions, norm: false)
            return -(Self.codeScale(code, dimensions: dimensions) * scale * Double(sums.dot))
        }

        @inline(__always)
        static func codeScale(_ code: UnsafeRawPointer, dimensions: Int) -> Double {
            Double(Float(bitPattern: UInt32(littleEndian: code.loadUnaligned(fromByteOffset: dimensions, as: UInt32.self))))
        }

        /// How many steps of 16 values the Int32 lanes add before they are moved to Int64: at
        /// most 32,258 a lane a step, 4,096 steps stay below Int32's limit, and so do 8 lanes summed.
        static let stepsPerBlock = 4_096

        /// Σq′ᵢcᵢ and (when `norm`) Σcᵢ² in integers. Each product of values within ±127 is at
        /// most 16,129, so two added stay within Int16 before widening; wrapping arithmetic
        /// keeps a tampered code (a -128) from trapping, only from ranking well.
        @inline(__always)
        static func sums(_ widened: UnsafeRawPointer, _ code: UnsafeRawPointer, dimensions: Int, norm computeNorm: Bool) -> (dot: Int64, norm: Int64) {
            var dot: Int64 = 0, norm: Int64 = 0
            var dots = SIMD8<Int32>(), norms = SIMD8<Int32>()
            @inline(__always) func add(_ q: SIMD16<Int16>, _ c: SIMD16<Int16>) {
                let products = q &* c
                dots &+= SIMD8<Int32>(truncatingIfNeeded: products.evenHalf &+ products.oddHalf)
                if computeNorm {
                    let squares = c &* c
                    norms &+= SIMD8<Int32>(truncatingIfNeeded: squares.evenHalf &+ squares.oddHalf)
                }
            }
            let steps = dimensions / 16
            var step = 0
            while step < steps {
                let end = min(steps, step &+ stepsPerBlock)
                while step < end {
                    add(
                        widened.loadUnaligned(fromByteOffset: step &* 32, as: SIMD16<Int16>.self),
                        SIMD16<Int16>(truncatingIfNeeded: code.loadUnaligned(fromByteOffset: step &* 16, as: SIMD16<Int8>.self)))
                    step &+= 1
                }
                dot &+= Int64(dots.wrappedSum())
                norm &+= Int64(norms.wrappedSum())
                dots = SIMD8<Int32>()
                norms = SIMD8<Int32>()
            }
            // The last values, padded with zeros (the query's padding is zero too); a code is
            // followed by its scale, so it is not read past its end.
            if steps &* 16 < dimensions {
                var c = SIMD16<Int16>()
                for lane in 0..<(dimensions - steps &* 16) { c[lane] = Int16(code.load(fromByteOffset: steps &* 16 &+ lane, as: Int8.self)) }
                add(widened.loadUnaligned(fromByteOffset: steps &* 32, as: SIMD16<Int16>.self), c)
                dot &+= Int64(dots.wrappedSum())
                norm &+= Int64(norms.wrappedSum())
            }
            return (dot, norm)
        }
    }
}
