import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The `Date` read of the layers that read what other programs wrote (records and the ORM): a
/// backend writing through psql, a trigger's `datetime('now')`, a script's Unix time. Those
/// layers would otherwise refuse every row holding a date in any layout but the one Strata
/// writes; the core's `Date.extract` keeps SQift's contract (TEXT in `bindingDateFormatter`'s
/// format only) and does not use this.
///
/// Accepted, as SQLite's date and time functions accept them:
/// - TEXT `YYYY-MM-DD`, optionally followed by spaces or `T` and `HH:MM`, `HH:MM:SS` or
///   `HH:MM:SS.fff…` (any number of fraction digits), then optionally (with or without spaces
///   before it) `Z` or `±HH:MM`; no suffix means UTC. Surrounding whitespace after the date is
///   allowed as SQLite allows it.
/// - INTEGER or REAL, and TEXT that is a plain decimal number: Unix time in seconds (SQLite's
///   `'unixepoch'` modifier; SQLite alone would take such a number as a Julian day number).
///
/// Text in the layout Strata writes is read by the core's reader first, so a written date
/// always reads back as the same instant; both readers count in the proleptic Gregorian
/// calendar, as SQLite does, so text SQLite wrote for any year reads as SQLite means it.
///
/// Refused (nil, which the callers report as their own typed error): anything else, and dates
/// SQLite would roll over rather than refuse (February 30, hour 24), since they are bad data,
/// not a layout. Time-only text and `'now'` are refused too: neither is a stored instant.
@usableFromInline
package enum SQLiteDateText {
    /// What the lenient read takes, for the errors of the layers that use it.
    package static let acceptedLayouts =
        "a date is TEXT YYYY-MM-DD, optionally with ' ' or 'T' and HH:MM[:SS[.fff]], then optionally Z or ±HH:MM, or a number of Unix seconds"

    /// `value` (a non-NULL `sqlite3_value *` of storage class `type`) as a date, or nil.
    @usableFromInline
    package static func date(from value: SQLiteValueHandle, type: Int32) -> Date? {
        switch type {
        case SQLITE_TEXT:
            guard let pointer = sqlite3_value_text(value) else { return nil }
            return date(fromUTF8: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))))
        case SQLITE_INTEGER:
            return Date(timeIntervalSince1970: Double(sqlite3_value_int64(value)))
        case SQLITE_FLOAT:
            let seconds = sqlite3_value_double(value)
            return seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
        default:
            return nil
        }
    }

    /// Date text: the layout Strata writes as the core reads it, else any layout SQLite accepts.
    package static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard BindingDateFormat.defaultFormatterIsPristine else {
            // A replaced formatter writes its own layout, in its own time zone: it reads that.
            return BindingDateFormat.date(fromUTF8: bytes) ?? sqliteDate(fromUTF8: bytes)
        }
        if let date = BindingDateFormat.fastDate(fromUTF8: bytes) { return date }
        if let date = sqliteDate(fromUTF8: bytes) { return date }
        // What else the core reads (signed and five-digit years; what DateFormatter accepts of
        // its format) still reads. Only printable ASCII reaches DateFormatter: swift-corelibs-
        // foundation traps when its parse ends inside a grapheme cluster ("2026-11-27" + U+0301,
        // or "\r\n"), which the core's own extraction still risks.
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        return BindingDateFormat.date(fromUTF8: bytes)
    }

    // MARK: - SQLite's layouts

    /// Text in a layout SQLite's date functions accept (see the type's documentation), or nil.
    package static func sqliteDate(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = Scanner(bytes)
        guard let year = scanner.digits(4), scanner.skip(UInt8(ascii: "-")), let month = scanner.digits(2),
            scanner.skip(UInt8(ascii: "-")), let day = scanner.digits(2)
        else { return unixTime(fromUTF8: bytes) }
        guard (1...12).contains(month), day >= 1, day <= BindingDateFormat.daysInMonth(year: year, month: month) else { return nil }
        var seconds = BindingDateFormat.days(year: year, month: month, day: day) * 86_400
        // SQLite skips any run of whitespace and `T`s between the date and the time.
        while let byte = scanner.peek, isSpace(byte) || byte == UInt8(ascii: "T") { scanner.index += 1 }
        guard !scanner.atEnd else { return instant(seconds: seconds, fraction: Fraction()) }

        guard let hour = scanner.digits(2), hour < 24, scanner.skip(UInt8(ascii: ":")),
            let minute = scanner.digits(2), minute < 60
        else { return nil }
        var second: Int64 = 0
        var fraction = Fraction()
        if scanner.skip(UInt8(ascii: ":")) {
            guard let value = scanner.digits(2), value < 60 else { return nil }
            second = value
            // A '.' counts only before a digit, as in SQLite: "07:52:00." is refused below.
            if scanner.peek == UInt8(ascii: "."), let next = scanner.peek(at: 1), isDigit(next) {
                scanner.index += 1
                fraction = scanner.fraction()
            }
        }
        seconds += hour * 3600 + minute * 60 + second

        scanner.skipSpaces()
        if let sign = scanner.peek {
            scanner.index += 1
            switch sign {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                break
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let offsetHours = scanner.digits(2), offsetHours <= 14, scanner.skip(UInt8(ascii: ":")),
                    let offsetMinutes = scanner.digits(2), offsetMinutes < 60
                else { return nil }
                // Local time minus its offset is UTC.
                let offset = (offsetHours * 60 + offsetMinutes) * 60
                seconds += sign == UInt8(ascii: "+") ? -offset : offset
            default:
                return nil
            }
            scanner.skipSpaces()
            guard scanner.atEnd else { return nil }
        }
        return instant(seconds: seconds, fraction: fraction)
    }

    /// The fraction digits of a second: up to 18 kept exactly, later ones past what a `Date`
    /// (a Double of seconds) holds anyway.
    struct Fraction {
        var numerator: Int64 = 0
        var digits = 0
    }

    /// Seconds from 1970 plus a fraction, as a `Date`.
    static func instant(seconds: Int64, fraction: Fraction) -> Date {
        if fraction.digits <= 3 {
            // Milliseconds as the core's fast path computes them, so that the layout Strata
            // writes and its `Z`/offset/space variants read as the very same Double.
            var milliseconds = fraction.numerator
            for _ in fraction.digits..<3 { milliseconds *= 10 }
            return Date(timeIntervalSinceReferenceDate: Double(seconds * 1000 + milliseconds) / 1000 - BindingDateFormat.referenceOffset)
        }
        let scale = powersOfTen[fraction.digits]
        return Date(timeIntervalSinceReferenceDate: Double(seconds - Int64(BindingDateFormat.referenceOffset)) + Double(fraction.numerator) / scale)
    }

    /// 10^0 through 10^18, each exact as a Double.
    static let powersOfTen: [Double] = (0...18).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// Text that is a plain decimal number (what SQLite's own number parser takes: optional
    /// whitespace and sign, digits with an optional point, an optional exponent) as Unix seconds.
    static func unixTime(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = Scanner(bytes)
        scanner.skipSpaces()
        let start = scanner.index
        if scanner.peek == UInt8(ascii: "+") || scanner.peek == UInt8(ascii: "-") { scanner.index += 1 }
        var mantissaDigits = scanner.skipDigits()
        if scanner.skip(UInt8(ascii: ".")) { mantissaDigits += scanner.skipDigits() }
        guard mantissaDigits > 0 else { return nil }
        if scanner.peek == UInt8(ascii: "e") || scanner.peek == UInt8(ascii: "E") {
            scanner.index += 1
            if scanner.peek == UInt8(ascii: "+") || scanner.peek == UInt8(ascii: "-") { scanner.index += 1 }
            guard scanner.skipDigits() > 0 else { return nil }
        }
        let end = scanner.index
        scanner.skipSpaces()
        guard scanner.atEnd else { return nil }
        // The grammar is checked above, so Double's parser (locale-independent, correctly
        // rounded) sees only a plain decimal number; it returns ±infinity for one that overflows.
        guard let seconds = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)),
            seconds.isFinite
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// SQLite's whitespace (`sqlite3Isspace`): space, tab, line feed, vertical tab, form feed, return.
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// A cursor over UTF-8 bytes (never Characters: the layouts are ASCII, and a combining mark
    /// after a digit must not merge with it).
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
        func peek(at offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

        /// Exactly `count` digits, or nil (the index then says nothing).
        mutating func digits(_ count: Int) -> Int64? {
            guard bytes.count - index >= count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard isDigit(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpaces() {
            while let byte = peek, isSpace(byte) { index += 1 }
        }

        /// Skips a run of digits and returns how many there were.
        mutating func skipDigits() -> Int {
            let start = index
            while let byte = peek, isDigit(byte) { index += 1 }
            return index - start
        }

        /// A run of fraction digits (at least one is there).
        mutating func fraction() -> Fraction {
            var fraction = Fraction()
            while let byte = peek, isDigit(byte) {
                if fraction.digits < 18 {
                    fraction.numerator = fraction.numerator * 10 + Int64(byte - UInt8(ascii: "0"))
                    fraction.digits += 1
                }
                index += 1
            }
            return fraction
        }
    }
}

/// `T` read from a non-NULL value the way records and the ORM read it: a `Date` in any layout
/// SQLite accepts (``SQLiteDateText``), any other type by its own strict `extract`.
/// Specialized for the caller's `T`, the type check folds away.
@inlinable @inline(__always)
package func extractWithLenientDates<T: Extractable>(_ type: T.Type, from value: SQLiteValueHandle, type storageClass: Int32) -> T? {
    if T.self == Date.self { return SQLiteDateText.date(from: value, type: storageClass) as? T }
    return T.extractSelf(from: value, type: storageClass)
}

/// ``columnValue(of:at:as:)`` with dates read as ``extractWithLenientDates(_:from:type:)`` does.
@inlinable @inline(__always)
package func columnValueWithLenientDates<T: Extractable>(of handle: SQLiteStatementHandle, at index: Int32, as type: T.Type = T.self) -> T? {
    guard let value = sqlite3_column_value(handle, index) else { return nil }
    let storageClass = sqlite3_value_type(value)
    return storageClass == SQLITE_NULL ? nil : extractWithLenientDates(T.self, from: value, type: storageClass)
}
