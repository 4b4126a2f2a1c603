import Foundation

/// The formatter `Date` binding uses to store dates as TEXT (and `FunctionValue.date`,
/// `FunctionResult.date` and the Migrator's timestamps use to read and write them).
///
/// The default format is `yyyy-MM-dd'T'HH:mm:ss.SSS` in GMT with the `en_US_POSIX` locale, which
/// SQLite's date functions understand. Replace it (or change its settings) with care: date range
/// queries only work with formats SQLite can compare.
///
/// While the default is in place, dates are written and read in the proleptic Gregorian
/// calendar, the one SQLite's date functions count in, for the years they accept (0000 to
/// 9999, UTC): `strftime`, `julianday` and `unixepoch` give back the instant that was bound.
/// Years 1583 to 9999 are written by the formatter, byte for byte as SQift wrote them; earlier
/// years by hand (DateFormatter would switch to the Julian calendar before 1582-10-15). Binding
/// a date outside those years throws ``DateOutOfRangeError`` rather than storing text that sorts
/// among other dates wrongly and that SQLite's functions read as NULL. Text with a signed or
/// five-digit year, which Strata 5.x wrote, still reads (in the same calendar). Strata parses
/// the default format by hand, which is much faster than `DateFormatter`. A replaced formatter
/// reads and writes what its format says, in its own calendar, with no range check.
///
/// `Date`'s own extraction reads this format only, from TEXT only (SQift's contract). Records and
/// the ORM read this format first and then every layout SQLite's date functions accept, and
/// numbers as Unix seconds, since they read what other programs wrote.
// A settable global is SQift's documented API. `nonisolated(unsafe)`: it is meant to be set once at
// startup, before any connection uses it; DateFormatter itself is thread-safe for formatting.
// `@exclusivity(unchecked)`: every date read and written reads it, and the runtime's access
// tracking of a global cost 5% of a date column's read; the one-writer-at-startup rule above is
// what keeps accesses from overlapping, as it already was.
@exclusivity(unchecked) nonisolated(unsafe) public var bindingDateFormatter: DateFormatter = BindingDateFormat.makeDefaultFormatter()

/// The default formatter; any change to a setting that affects output turns the fast path off.
// @unchecked Sendable: DateFormatter is a thread-safe Foundation class, and the one state added
// here is an AtomicFlag.
final class DefaultBindingDateFormatter: DateFormatter, @unchecked Sendable {
    /// Whether the settings are still the defaults the hand-written parser assumes.
    private let pristine = AtomicFlag(false)

    var isPristine: Bool {
        @inline(__always) get { pristine.load() }
        set { pristine.store(newValue) }
    }

    override var dateFormat: String! { didSet { isPristine = false } }
    override var timeZone: TimeZone! { didSet { isPristine = false } }
    override var locale: Locale! { didSet { isPristine = false } }
    override var calendar: Calendar! { didSet { isPristine = false } }
    override var isLenient: Bool { didSet { isPristine = false } }
    // These change what the formatter reads without going through `dateFormat`'s setter.
    override var dateStyle: DateFormatter.Style { didSet { isPristine = false } }
    override var timeStyle: DateFormatter.Style { didSet { isPristine = false } }
    override var defaultDate: Date? { didSet { isPristine = false } }
    override var twoDigitStartDate: Date? { didSet { isPristine = false } }
    override var generatesCalendarDates: Bool { didSet { isPristine = false } }
    override var doesRelativeDateFormatting: Bool { didSet { isPristine = false } }
}

/// Formatting and parsing of `Date` binding text, with a hand-written parser for the default format.
package enum BindingDateFormat {
    static let defaultFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS"
    /// Seconds from 1970 to 2001, Foundation's reference date.
    static let referenceOffset: Double = 978_307_200
    // Before the Gregorian reform (1583) DateFormatter switches calendars; those years take its path.

    static func makeDefaultFormatter() -> DateFormatter {
        let formatter = DefaultBindingDateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = defaultFormat
        formatter.isPristine = true
        return formatter
    }

    /// Whether `formatter` is the default one, unchanged, so the hand-written parser applies.
    @inline(__always)
    static func fastPathEnabled(for formatter: DateFormatter) -> Bool {
        // The class is final, so its exact type answers without a cast's walk; the cast stays
        // for an instance whose runtime class is another (Objective-C's key-value observing
        // swaps in a hidden subclass), which must keep the same fast path and signed years.
        if type(of: formatter) == DefaultBindingDateFormatter.self {
            return unsafeDowncast(formatter, to: DefaultBindingDateFormatter.self).isPristine
        }
        return (formatter as? DefaultBindingDateFormatter)?.isPristine == true
    }

    /// 0000-01-01T00:00:00.000 and 10000-01-01T00:00:00.000, proleptic Gregorian, in
    /// milliseconds from 1970: the instants the default format writes, as SQLite reads them.
    static let firstWritableMillisecond: Int64 = -62_167_219_200_000
    static let endWritableMillisecond: Int64 = 253_402_300_800_000
    /// 1583-01-01T00:00:00.000: from here on the formatter's calendar is Gregorian, and the
    /// formatter writes (SQift's text, byte for byte); before it, the hand-written calendar does.
    static let formatterStartMillisecond: Int64 = -12_212_553_600_000

    /// The date as `bindingDateFormatter` writes it.
    /// - Throws: ``DateOutOfRangeError`` when the default format is in place and the date is
    ///   outside years 0000 to 9999.
    package static func string(from date: Date) throws -> String { try string(from: date, formatter: bindingDateFormatter) }

    static func string(from date: Date, formatter: DateFormatter) throws -> String {
        guard fastPathEnabled(for: formatter) else { return formatter.string(from: date) }
        // To the nearest millisecond, as the formatter rounds; NaN fails both comparisons.
        let scaled = (date.timeIntervalSince1970 * 1000).rounded()
        guard scaled >= Double(firstWritableMillisecond), scaled < Double(endWritableMillisecond) else {
            throw DateOutOfRangeError(date: date)
        }
        if scaled < Double(formatterStartMillisecond) { return gregorianString(milliseconds: Int64(scaled)) }
        // Formatting goes through the formatter: Foundation's sub-millisecond rounding is not
        // specified, and stored text must match what SQift would have written. Where its
        // rounding carries into year 10000 and the check above did not, the length says so.
        let text = formatter.string(from: date)
        guard text.utf8.count == 23 else { throw DateOutOfRangeError(date: date) }
        return text
    }

    static func date(from text: String) -> Date? { date(from: text, formatter: bindingDateFormatter) }

    static func date(from text: String, formatter: DateFormatter) -> Date? {
        if fastPathEnabled(for: formatter) {
            var text = text
            return text.withUTF8 { defaultFormatDate(fromUTF8: $0, formatter: formatter) }
        }
        return formatter.date(from: text)
    }

    static func date(fromUTF8 buffer: UnsafeBufferPointer<UInt8>) -> Date? {
        if defaultFormatterIsPristine {
            if let date = fastDate(fromUTF8: buffer) { return date }
            if let date = expandedYearDate(fromUTF8: buffer) { return date }
            guard isPrintableASCII(buffer) else { return nil }
        }
        return bindingDateFormatter.date(from: String(decoding: buffer, as: UTF8.self))
    }

    /// Whether every byte is printable ASCII: text in the default format always is, and other
    /// text (a combining mark after a date, a NUL) made Foundation's formatter trap on Linux.
    static func isPrintableASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        buffer.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Default-format text read by hand (every year, proleptic Gregorian), else by `formatter`
    /// (text the hand-written parser does not take, which DateFormatter may still read).
    private static func defaultFormatDate(fromUTF8 buffer: UnsafeBufferPointer<UInt8>, formatter: DateFormatter) -> Date? {
        if let date = fastDate(fromUTF8: buffer) ?? expandedYearDate(fromUTF8: buffer) { return date }
        guard isPrintableASCII(buffer) else { return nil }
        return formatter.date(from: String(decoding: buffer, as: UTF8.self))
    }

    /// Whether the global formatter is the default one, unchanged (read without keeping it).
    @inline(__always)
    static var defaultFormatterIsPristine: Bool { fastPathEnabled(for: bindingDateFormatter) }

    static func date(fromUTF8 buffer: UnsafeBufferPointer<UInt8>, formatter: DateFormatter) -> Date? {
        if fastPathEnabled(for: formatter) { return defaultFormatDate(fromUTF8: buffer, formatter: formatter) }
        return formatter.date(from: String(decoding: buffer, as: UTF8.self))
    }

    // MARK: - Parsing the default format (proleptic Gregorian; Howard Hinnant's days_from_civil)

    @inline(__always)
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func fastDate(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 23, let base = bytes.baseAddress else { return nil }
        // Three unaligned little-endian loads cover the 23 bytes (the last two overlap by one),
        // and each is checked whole: its separators by one comparison, its digits by two (every
        // digit byte's high nibble is 3, and stays 3 when 6 is added to it). About half the
        // instructions of a byte-at-a-time parse, which matters at one date per row.
        let p = UnsafeRawPointer(base)
        let a = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) // yyyy-MM-
        let b = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) // ddTHH:mm
        let c = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 15, as: UInt64.self)) // m:ss.SSS
        guard a & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000, // '-' at 4 and 7
            b & 0x0000_FF00_00FF_0000 == 0x0000_3A00_0054_0000, // 'T' at 10, ':' at 13
            c & 0x0000_00FF_0000_FF00 == 0x0000_002E_0000_3A00, // ':' at 16, '.' at 19
            areDigits(a, at: 0x00FF_FF00_FFFF_FFFF), areDigits(b, at: 0xFFFF_00FF_FF00_FFFF),
            areDigits(c, at: 0xFFFF_FF00_FFFF_00FF)
        else { return nil }
        @inline(__always) func digit(_ word: UInt64, _ byte: UInt64) -> Int64 { Int64(truncatingIfNeeded: (word >> (byte * 8)) & 0xF) }
        let year = digit(a, 0) * 1000 + digit(a, 1) * 100 + digit(a, 2) * 10 + digit(a, 3)
        let month = digit(a, 5) * 10 + digit(a, 6), day = digit(b, 0) * 10 + digit(b, 1)
        let hour = digit(b, 3) * 10 + digit(b, 4), minute = digit(b, 6) * 10 + digit(b, 7)
        let second = digit(c, 2) * 10 + digit(c, 3), millisecond = digit(c, 5) * 100 + digit(c, 6) * 10 + digit(c, 7)
        guard (1...12).contains(month), hour < 24, minute < 60, second < 60,
            day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        let dayNumber = days(year: year, month: month, day: day)
        let total = ((dayNumber * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return Date(timeIntervalSinceReferenceDate: Double(total) / 1000 - referenceOffset)
    }

    /// Whether every byte of `word` that `mask` selects is an ASCII digit.
    @inline(__always)
    static func areDigits(_ word: UInt64, at mask: UInt64) -> Bool {
        let highNibbles = mask & 0xF0F0_F0F0_F0F0_F0F0
        let threes = mask & 0x3030_3030_3030_3030
        // A byte past '9' gains a high nibble of 4 when 6 is added; a byte that carries out of
        // itself already failed the first test, so what it carries into does not matter.
        return word & highNibbles == threes && ((word & mask) &+ (mask & 0x0606_0606_0606_0606)) & highNibbles == threes
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

// MARK: - Years before 1583 and outside 0000-9999 (proleptic Gregorian, as SQLite counts)

extension BindingDateFormat {
    /// Division rounding toward negative infinity, which calendar arithmetic over negative
    /// days needs.
    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// civil_from_days; astronomical years, so 1 BC is 0).
    static func civilDate(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The default format's text of an instant in years 0000 to 9999, in milliseconds from 1970.
    static func gregorianString(milliseconds total: Int64) -> String {
        let days = floorDivide(total, 86_400_000)
        let (year, month, day) = civilDate(days: days)
        let inDay = total - days * 86_400_000
        var bytes = [UInt8](repeating: 0, count: 23)
        func put(_ value: Int64, at offset: Int, width: Int) {
            var value = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            }
        }
        put(year, at: 0, width: 4)
        put(month, at: 5, width: 2)
        put(day, at: 8, width: 2)
        put(inDay / 3_600_000, at: 11, width: 2)
        put(inDay / 60_000 % 60, at: 14, width: 2)
        put(inDay / 1000 % 60, at: 17, width: 2)
        put(inDay % 1000, at: 20, width: 3)
        for (offset, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, ".")] as [(Int, Unicode.Scalar)] {
            bytes[offset] = UInt8(ascii: separator)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Default-format text with a year `yyyy` cannot read back: before 0 (`-0199`) or past 9999
    /// (`12053`; DateFormatter reads it as 1953), as Strata 5.x wrote them. Read in the proleptic
    /// Gregorian calendar, as every other year is. Nil for other text and for years 0 to 9999,
    /// which ``fastDate(fromUTF8:)`` takes.
    static func expandedYearDate(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        // Digits at `index`: as many as `count` allows (a year has 4 to 8, so no sum overflows).
        func number(_ count: ClosedRange<Int>) -> Int64? {
            var value: Int64 = 0
            var read = 0
            while index < bytes.count, read < count.upperBound, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                index += 1
                read += 1
            }
            return count.contains(read) ? value : nil
        }
        func separator(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let magnitude = number(4...8), separator(UInt8(ascii: "-")), let month = number(2...2), separator(UInt8(ascii: "-")),
            let day = number(2...2), separator(UInt8(ascii: "T")), let hour = number(2...2), separator(UInt8(ascii: ":")),
            let minute = number(2...2), separator(UInt8(ascii: ":")), let second = number(2...2), separator(UInt8(ascii: ".")),
            let millisecond = number(3...3), index == bytes.count
        else { return nil }
        let year = negative ? -magnitude : magnitude
        guard year < 0 || year >= 10_000, (1...12).contains(month), hour < 24, minute < 60, second < 60,
            day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        let total = ((days(year: year, month: month, day: day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return Date(timeIntervalSinceReferenceDate: Double(total) / 1000 - referenceOffset)
    }
}

/// A `Date` the default date format cannot store: outside years 0000 to 9999 (proleptic
/// Gregorian, UTC), the years SQLite's date functions read. Its text would sort wrongly among
/// other dates and read as NULL in `strftime` and `unixepoch`, so binding it throws instead.
public struct DateOutOfRangeError: Error, LocalizedError, Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The date that was bound.
    public let date: Date

    // Seconds, never the Date itself: Foundation traps describing an infinite or NaN Date, and
    // printing or reflecting this error (a test's failure message) must not.
    public var description: String { errorDescription ?? "" }
    public var customMirror: Mirror { Mirror(self, children: ["secondsSince1970": date.timeIntervalSince1970]) }

    public var errorDescription: String? {
        "the date \(date.timeIntervalSince1970) seconds from 1970 is outside years 0000 to 9999 (UTC), "
            + "the dates SQLite's date functions read; store it as a number (timeIntervalSince1970) "
            + "or limit it to that range"
    }
}
