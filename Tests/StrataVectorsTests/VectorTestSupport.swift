import Foundation
import StrataSQift
import StrataTestSupport
import Strata
@testable import StrataCore

/// Generators and a Double reference for the vector tests.
enum VectorGen {
    /// How the components of a generated vector are drawn.
    enum Kind: CaseIterable { case unit, zero, subnormal, tiny, large, huge, mixed }

    static func dimension(_ random: inout SeededRandom) -> Int {
        switch random.int(0...9) {
        case 0: return random.int(1...3)
        case 1: return random.pick([15, 16, 17, 31, 32, 33, 384, 768, 1536, 4096])
        default: return random.int(1...600)
        }
    }

    static func component(_ kind: Kind, _ random: inout SeededRandom) -> Float {
        switch kind {
        case .unit: return Float.random(in: -1...1, using: &random)
        case .zero: return 0
        case .subnormal: return Float(bitPattern: UInt32.random(in: 1...0x007F_FFFF, using: &random)) * (random.oneIn(2) ? -1 : 1)
        case .tiny: return Float.random(in: -1...1, using: &random) * 1e-20
        case .large: return Float.random(in: -1...1, using: &random) * 1e15
        case .huge: return Float.random(in: -1...1, using: &random) * 1e30
        case .mixed:
            return component(random.pick([.unit, .zero, .subnormal, .large, .unit]), &random)
        }
    }

    static func values(_ dimensions: Int, _ kind: Kind, _ random: inout SeededRandom) -> [Float] {
        (0..<dimensions).map { _ in component(kind, &random) }
    }

    static func vector(_ dimensions: Int, _ random: inout SeededRandom) throws -> FloatVector {
        try FloatVector(values(dimensions, random.pick(Kind.allCases), &random))
    }

    /// The distance computed directly, in Double.
    static func reference(_ metric: VectorMetric, _ a: [Float], _ b: [Float]) -> Double {
        var dot = 0.0, aa = 0.0, bb = 0.0, squares = 0.0
        for (x, y) in zip(a.map(Double.init), b.map(Double.init)) {
            dot += x * y; aa += x * x; bb += y * y; squares += (x - y) * (x - y)
        }
        switch metric {
        case .l2: return squares.squareRoot()
        case .innerProduct: return -dot
        case .cosine:
            if aa == 0 || bb == 0 { return 1 }
            return 1 - min(max(dot / (aa.squareRoot() * bb.squareRoot()), -1), 1)
        }
    }

    /// How far a float32 result may be from the Double reference: relative for L2 (a sum of
    /// non-negative terms), relative to Σ|aᵢbᵢ| for the dot product (which may cancel), and
    /// absolute for cosine distance (in 0…2).
    static func tolerance(_ metric: VectorMetric, _ a: [Float], _ b: [Float], reference: Double) -> Double {
        switch metric {
        case .l2: return 1e-4 * reference
        case .innerProduct: return 1e-4 * zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) * Double($1.1)) }
        case .cosine: return 1e-4
        }
    }
}

/// An in-memory `doc` table made by `schema` and filled by `fill`, with the IVF index `doc_ivf` of
/// `lists` lists on its `embedding` column: the setup most IVF regression tests start from.
func indexedDoc(_ schema: String, lists: Int = 1, fill: (Connection) throws -> Void) throws -> Connection {
    let db = try Connection()
    try db.execute(schema)
    try fill(db)
    try db.createIVFIndex("doc_ivf", on: "doc", column: "embedding", options: IVFIndexOptions(lists: lists))
    return db
}
