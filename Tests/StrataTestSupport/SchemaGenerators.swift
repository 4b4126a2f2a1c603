// Generators for schema property tests: declared type names as people write them, and dates
// across the whole range a `Date` covers (before year 1 included).
import Foundation

extension Gen {
    /// Declared type names in every case and spacing SQLite accepts: the five affinities' usual
    /// names, ones SQLite maps by substring (`VARCHAR(20)`, `UNSIGNED BIG INT`), and none.
    public static let typeNameStems = [
        "INTEGER", "INT", "TEXT", "REAL", "BLOB", "NUMERIC", "VARCHAR(20)", "CHARACTER(4)", "CLOB",
        "DOUBLE", "DOUBLE PRECISION", "FLOAT", "BIGINT", "UNSIGNED BIG INT", "BOOLEAN", "DATE", "DATETIME",
        "DECIMAL(10,5)", "NVARCHAR(100)", ""
    ]

    /// A declared type name from ``typeNameStems`` with each ASCII letter's case chosen at random
    /// (`iNtEgEr`, `text`, `Varchar(20)`).
    public static func declaredType(_ random: inout SeededRandom) -> String {
        mixedCase(random.pick(typeNameStems), &random)
    }

    /// `text` with each ASCII letter upper or lower case at random.
    public static func mixedCase(_ text: String, _ random: inout SeededRandom) -> String {
        String(
            decoding: text.utf8.map { byte -> UInt8 in
                guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) else { return byte }
                return random.oneIn(2) ? byte | 0x20 : byte & ~0x20
            }, as: UTF8.self)
    }

    /// A date with whole milliseconds (what the text format keeps) anywhere from about 30,000 BC
    /// to 30,000 AD, often near the edges: year 1, 1 BC, the Gregorian reform, 1970.
    public static func date(_ random: inout SeededRandom) -> Date {
        let yearOne: Int64 = -62_135_769_600_000 // 0001-01-01T00:00:00.000 in milliseconds from 1970
        let milliseconds: Int64
        switch random.int(0...5) {
        case 0: milliseconds = yearOne + Int64(random.int(-3_000_000...3_000_000)) * random.pick([1, 1000, 86_400_000])
        case 1: milliseconds = Int64(random.int(-1_000_000...1_000_000)) * random.pick([1, 1000, 86_400_000])
        case 2: milliseconds = -12_219_292_800_000 + Int64(random.int(-400...400)) * 86_400_000 // 1582-10-15
        default: milliseconds = Int64.random(in: -1_000_000_000_000_000...885_000_000_000_000, using: &random)
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
