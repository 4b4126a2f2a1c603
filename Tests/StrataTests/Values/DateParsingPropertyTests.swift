import Foundation
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
import StrataTestSupport
import Testing

/// The hand-written parser of the default date format checks whole 8-byte words at once; against
/// `DateFormatter` on generated text: default-format dates, then the same text with bytes
/// replaced (separators, bytes just outside '0'...'9', NUL, invalid UTF-8), cut or lengthened.
/// The parser may decline (the formatter then reads the text), but never returns another date
/// (before 1583, another than SQLite's calendar gives).
@Suite struct DateParsingPropertyTests {
    static let replacements: [UInt8] = [0x00, 0x2F, 0x3A, 0x40, 0x30, 0x39, 0x2D, 0x54, 0x3A, 0x2E, 0x20, 0x7F, 0x80, 0xC3, 0xFF, 0x35, 0x36]

    @Test func theFastParserReadsWhatDateFormatterReadsOrDeclines() throws {
        let reference = utcPOSIXDateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS")
        try PropertyCheck.run("default-format date parsing", cases: 300) { random in
            // From 1583 (the parser's first year) to 9999, whole milliseconds.
            let milliseconds = Int64.random(in: -12_212_553_600_000...253_402_300_799_999, using: &random)
            let text = reference.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            var bytes = Array(text.utf8)
            let parsed = bytes.withUnsafeBufferPointer { BindingDateFormat.fastDate(fromUTF8: $0) }
            try require(parsed != nil && parsed == reference.date(from: text), "\(text) read as \(String(describing: parsed))")
            switch random.int(0...5) {
            case 0: bytes.removeLast(random.int(1...3))
            case 1: bytes.append(random.pick(Self.replacements))
            default:
                for _ in 0..<random.int(1...3) {
                    bytes[random.int(0...(bytes.count - 1))] = random.pick(Self.replacements)
                }
            }
            let mutated = bytes.withUnsafeBufferPointer { BindingDateFormat.fastDate(fromUTF8: $0) }
            if let mutated {
                // Before 1583 DateFormatter's calendar is Julian and SQLite's (and Strata's) is
                // Gregorian: there SQLite's layouts reader, written separately, is the reference.
                let year = bytes.prefix(4).reduce(0) { $0 * 10 + Int($1) - 48 }
                let expected =
                    year < 1583
                    ? bytes.withUnsafeBufferPointer { SQLiteDateText.sqliteDate(fromUTF8: $0) }
                    : reference.date(from: String(decoding: bytes, as: UTF8.self))
                try require(mutated == expected, "\(bytes) read as \(mutated), DateFormatter reads \(String(describing: expected))")
            }
        }
    }

    /// Each byte of each field, one at a time, set to the bytes either side of the digits and to
    /// every separator: the parser declines all of them.
    @Test func everyPositionRejectsEveryNonDigit() {
        let text = Array("2024-02-29T23:59:59.999".utf8)
        let separators: [Int: UInt8] = [4: 0x2D, 7: 0x2D, 10: 0x54, 13: 0x3A, 16: 0x3A, 19: 0x2E]
        for position in text.indices {
            for byte in [0x00, 0x2F, 0x3A, 0x2D, 0x54, 0x2E, 0x40, 0x7F, 0xB0, 0xFF] as [UInt8] {
                var bytes = text
                bytes[position] = byte
                let accepted = separators[position] == byte || (separators[position] == nil && (0x30...0x39).contains(byte))
                let parsed = bytes.withUnsafeBufferPointer { BindingDateFormat.fastDate(fromUTF8: $0) }
                if !accepted { #expect(parsed == nil, "byte \(byte) at \(position)") }
            }
        }
        #expect(text.withUnsafeBufferPointer { BindingDateFormat.fastDate(fromUTF8: $0) } != nil)
    }

    /// Well-formed text out of range: the parser declines impossible fields, and accepts the
    /// edges just inside, years 0000 to 1582 included (proleptic Gregorian, as SQLite reads them).
    @Test func fieldsOutOfRangeAreDeclined() {
        func parses(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { BindingDateFormat.fastDate(fromUTF8: $0) } != nil
        }
        for text in [
            // 1500 is a leap year in the Julian calendar only.
            "1500-02-29T00:00:00.000", "2023-02-29T00:00:00.000", "2024-02-30T00:00:00.000", "1900-02-29T00:00:00.000",
            "2024-04-31T00:00:00.000", "2024-06-31T00:00:00.000", "2024-09-31T00:00:00.000",
            "2024-11-31T00:00:00.000", "2024-01-32T00:00:00.000", "2024-01-00T00:00:00.000",
            "2024-00-10T00:00:00.000", "2024-13-10T00:00:00.000", "2024-01-10T24:00:00.000",
            "2024-01-10T00:60:00.000", "2024-01-10T00:00:60.000"
        ] {
            #expect(!parses(text), "\(text)")
        }
        for text in [
            "1583-01-01T00:00:00.000", "1582-12-31T23:59:59.999", "1000-01-01T00:00:00.000", "0000-01-01T00:00:00.000", "2000-02-29T00:00:00.000",
            "2024-02-29T23:59:59.999",
            "2024-04-30T00:00:00.000", "2024-12-31T00:00:00.000", "9999-12-31T23:59:59.999"
        ] {
            #expect(parses(text), "\(text)")
        }
    }
}
