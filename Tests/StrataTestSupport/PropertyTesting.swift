// Seeded, reproducible input generation for Strata's property-based and differential tests.
//
// Every property test runs `PropertyCheck.run`, which derives one seed per case from a base seed
// and, when a case fails, rethrows the failure with the seed that reproduces it:
//
//     STRATA_PROPERTY_SEED=0x1234ABCD swift test --filter QuotingPropertyTests
//
// `STRATA_PROPERTY_CASES` sets the case count; `STRATA_PROPERTY_SCALE` multiplies every test's own
// count (.ci/run runs a pass of its own at ten times).
// The generators lean on the inputs nobody thinks of: quotes before combining marks and
// variation selectors (one `Character` on Linux), NUL, `\r`, invalid UTF-8 as TEXT, ±0.0,
// subnormals, infinities, Int64 limits, keywords and empty names.
import Foundation
import Strata

/// SplitMix64: tiny, fast, and the same sequence on every platform for a seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `1/n`.
    public mutating func oneIn(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &self) == 0 }

    /// A random element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }

    /// An integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
}

/// A failing case of a property test, with the seed that reproduces it.
public struct PropertyFailure: Error, CustomStringConvertible {
    public let property: String
    public let seed: UInt64
    public let caseIndex: Int
    public let underlying: any Error

    public var description: String {
        "property '\(property)' failed at case \(caseIndex): \(underlying)\n"
            + "  reproduce with STRATA_PROPERTY_SEED=0x\(String(seed, radix: 16, uppercase: true)) STRATA_PROPERTY_CASES=1"
    }
}

/// A property that did not hold, with what was seen.
public struct PropertyViolation: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Throws a `PropertyViolation` when `condition` is false.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw PropertyViolation(message()) }
}

public enum PropertyCheck {
    /// Cases per property: `STRATA_PROPERTY_CASES`, else `defaultCases` (seconds in `swift test`)
    /// times `STRATA_PROPERTY_SCALE`.
    public static func caseCount(default defaultCases: Int) -> Int {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["STRATA_PROPERTY_CASES"], let count = Int(text), count > 0 {
            return count
        }
        if let text = environment["STRATA_PROPERTY_SCALE"], let scale = Int(text), scale > 0 {
            return defaultCases * scale
        }
        return defaultCases
    }

    /// `STRATA_PROPERTY_SEED` (decimal or 0x hex) fixes the first case's seed; otherwise it is random.
    public static var baseSeed: UInt64 {
        if let text = ProcessInfo.processInfo.environment["STRATA_PROPERTY_SEED"] {
            let trimmed = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
            if let seed = UInt64(trimmed, radix: text.lowercased().hasPrefix("0x") ? 16 : 10) { return seed }
        }
        return UInt64.random(in: .min ... .max)
    }

    /// Runs `body` once per case with a generator seeded for that case; the first failure is
    /// rethrown as a `PropertyFailure` naming its seed (and printed, for logs that drop errors).
    public static func run(_ property: String, cases defaultCases: Int = 25, _ body: (inout SeededRandom) throws -> Void) throws {
        for (index, seed) in caseSeeds(default: defaultCases).enumerated() {
            var random = SeededRandom(seed: seed)
            do { try body(&random) } catch { throw failure(property, seed: seed, caseIndex: index, error) }
        }
    }

    /// ``run(_:cases:_:)`` for an async body (a `Database`'s reads): the same seeds, the same report.
    public static func runAsync(_ property: String, cases defaultCases: Int = 25, _ body: (inout SeededRandom) async throws -> Void) async throws {
        for (index, seed) in caseSeeds(default: defaultCases).enumerated() {
            var random = SeededRandom(seed: seed)
            do { try await body(&random) } catch { throw failure(property, seed: seed, caseIndex: index, error) }
        }
    }

    /// Each case's seed: the base seed, then what a generator seeded with it draws.
    static func caseSeeds(default defaultCases: Int) -> [UInt64] {
        var seeds = SeededRandom(seed: baseSeed)
        return (0..<caseCount(default: defaultCases)).map { index in index == 0 ? seeds.state : seeds.next() }
    }

    /// The failure of one case, printed as well.
    static func failure(_ property: String, seed: UInt64, caseIndex: Int, _ underlying: any Error) -> PropertyFailure {
        let failure = PropertyFailure(property: property, seed: seed, caseIndex: caseIndex, underlying: underlying)
        FileHandle.standardError.write(Data((failure.description + "\n").utf8))
        return failure
    }
}

/// Generators of hard inputs.
public enum Gen {
    /// Pieces that break code which treats SQL text as Characters, or forgets a control character.
    public static let hardPieces: [String] = [
        "\"", "'", "\"\u{301}", "'\u{301}", "\"\u{20DD}", "'\u{20DD}", "\"\u{FE0F}", "'\u{FE0F}",
        "\u{301}", "e\u{301}", "\r", "\n", "\r\n", "\t", " ", "--", "/*", "*/", ";", "`", "[", "]",
        "\\", "%", "_", "*", "?", ":a", "$b", "@c", "()", ",", "NEAR", "AND", "OR", "NOT", "^",
        "SELECT", "order", "group", "table", "rowid", "x", "Ω", "日本", "🙂", "👩‍👩‍👧", "\u{200D}",
        "\u{FEFF}", "\u{7F}", "\u{1}", "0", "-1", "1e999"
    ]

    /// SQL keywords used as names.
    public static let keywords = ["select", "from", "where", "order", "group", "table", "index", "values", "key", "default", "check", "primary"]

    /// A string of hard pieces and plain letters; may be empty; never contains NUL unless `nul`.
    public static func text(_ random: inout SeededRandom, maxPieces: Int = 6, nul: Bool = true) -> String {
        let count = random.int(0...maxPieces)
        var result = ""
        for _ in 0..<count {
            switch random.int(0...9) {
            case 0...5: result += random.pick(hardPieces)
            case 6: result += nul ? "\0" : "n"
            case 7: result += random.pick(keywords)
            default:
                let scalar = Unicode.Scalar(UInt32(random.int(0x20...0x2FF))) ?? "a"
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A name for a table, column, index or savepoint: anything SQLite can store in its schema
    /// (no NUL, which a C string cannot carry), including keywords and the empty string.
    public static func identifier(_ random: inout SeededRandom) -> String {
        if random.oneIn(8) { return random.pick(keywords) }
        if random.oneIn(20) { return "" }
        return text(&random, maxPieces: 5, nul: false)
    }

    /// `count` distinct identifiers compared as SQLite does (ASCII case-insensitively).
    public static func distinctIdentifiers(_ random: inout SeededRandom, count: Int, prefix: String = "") -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        while names.count < count {
            var name = prefix + identifier(&random)
            if seen.contains(name.lowercased()) { name += "\(names.count)" }
            if seen.insert(name.lowercased()).inserted { names.append(name) }
        }
        return names
    }

    /// Doubles that lose information when printed carelessly.
    public static func double(_ random: inout SeededRandom) -> Double {
        switch random.int(0...9) {
        case 0: return random.pick([0.0, -0.0, .infinity, -.infinity])
        case 1:
            return random.pick([Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.leastNormalMagnitude.nextDown])
        case 2: return random.pick([Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 0.1, 1.0 / 3.0, Double(1 << 53).nextUp, 1e16, 1e-7])
        case 3...6:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while value.isNaN
            return value
        default: return Double(random.int(-1_000_000...1_000_000)) / Double(random.pick([1, 3, 7, 100, 1024]))
        }
    }

    public static func int64(_ random: inout SeededRandom) -> Int64 {
        switch random.int(0...5) {
        case 0: return random.pick([Int64.min, Int64.max, Int64.min + 1, Int64.max - 1, 0, -1, 1])
        case 1: return random.pick([Int64(Int32.max), Int64(Int32.min), 1 << 53, (1 << 53) + 1, -(1 << 53) - 1])
        case 2, 3: return Int64(bitPattern: random.next())
        default: return Int64(random.int(-1000...1000))
        }
    }

    /// Bytes, sometimes large, sometimes empty.
    public static func bytes(_ random: inout SeededRandom, huge: Bool = false) -> Data {
        let count = huge && random.oneIn(10) ? random.int(100_000...400_000) : random.int(0...40)
        var data = Data(count: count)
        for index in 0..<count { data[index] = UInt8(truncatingIfNeeded: random.next()) }
        return data
    }

    /// Bytes that are not valid UTF-8, to be stored as TEXT (`CAST(? AS TEXT)` on a blob).
    public static func invalidUTF8(_ random: inout SeededRandom) -> Data {
        var data = Data(text(&random, maxPieces: 3, nul: false).utf8)
        let bad: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x80], [0xF5, 0x80, 0x80, 0x80]]
        data.insert(contentsOf: random.pick(bad), at: random.int(0...data.count))
        return data
    }

    /// A value of any storage class, hard cases included.
    public static func value(_ random: inout SeededRandom, huge: Bool = false) -> BindingValue {
        switch random.int(0...4) {
        case 0: return .null
        case 1: return .integer(int64(&random))
        case 2: return .real(double(&random))
        case 3: return .text(text(&random))
        default: return .blob(bytes(&random, huge: huge))
        }
    }
}

extension BindingValue {
    /// The value as a parameter for `run(_:_:)` (nil for NULL).
    public var bindable: (any Bindable)? {
        switch self {
        case .null: return nil
        case .integer(let value): return value
        case .real(let value): return value
        case .text(let value): return value
        case .blob(let value): return value
        }
    }
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of the
/// cooperative pool.
///
/// Swift Testing runs every test on that pool, which has one thread per core: a long synchronous
/// test (a property run, a busy timeout, a child process) holds one of two threads on a two-core
/// machine, and the tests that measure time (a cancellation, a lock wait) stall behind it.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// A new empty folder in the temporary directory, named `prefix` and a UUID; the caller removes it.
public func temporaryFolder(_ prefix: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + "-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
