import Foundation

/// The formatter `Date` binding uses to store dates as TEXT (and `FunctionValue.date`,
/// `FunctionResult.date` and the Migrator's timestamps use to read and write them).
///
/// The default format is `yyyy-MM-dd'T'HH:mm:ss.SSS` in GMT with the `en_US_POSIX` locale, which
/// SQLite's date functions understand. Replace it (or change its settings) with care: date range
/// queries only work with formats SQLite can compare.
///
/// While the default is in place, Strata parses that exact format by hand, which is much faster
/// than `DateFormatter` and gives identical results. The default format also keeps dates before
/// year 1: they are written with a signed astronomical year (ISO 8601's expanded form, 1 BC is
/// `0000`, 200 BC is `-0199`), which `yyyy` alone cannot tell from years AD; other dates are
/// written exactly as `yyyy` writes them, and years past 9999 (five digits and more) are read by
/// hand too. A replaced formatter reads and writes what its format says.
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
enum BindingDateFormat {
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

    /// 0001-01-01T00:00:00.000 in the calendar the default formatter uses (Julian before 1582),
    /// in seconds from 1970: earlier dates need a signed year, which `yyyy` cannot write.
    static let firstInstantOfYearOne: Double = -62_135_769_600

    /// Formatting always goes through the formatter: Foundation's sub-millisecond rounding is not
    /// specified, and stored text must match what SQift would have written.
    static func string(from date: Date) -> String { string(from: date, formatter: bindingDateFormatter) }

    static func string(from date: Date, formatter: DateFormatter) -> String {
        if date.timeIntervalSince1970 < firstInstantOfYearOne, fastPathEnabled(for: formatter),
            let text = signedYearString(from: date)
        {
            return text
        }
        return formatter.string(from: date)
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

    /// Default-format text read by hand when it can be (years from 1583, and years before 1),
    /// else by `formatter` (years 1 to 1582, in the Julian calendar).
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
        guard year >= 1583, (1...12).contains(month), hour < 24, minute < 60, second < 60,
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

// MARK: - Years before 1 (proleptic Julian, as DateFormatter's calendar is before 1582)

extension BindingDateFormat {
    /// Milliseconds a signed-year text can hold (about ±285,000 years), so the arithmetic
    /// cannot overflow; dates past it are left to the formatter.
    static let signedYearLimit: Int64 = 9_000_000_000_000_000

    /// Division rounding toward negative infinity, which calendar arithmetic over negative
    /// days needs.
    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// Days from 1970-01-01 of a date of the proleptic Julian calendar (astronomical years: 1 BC
    /// is 0); the Julian day number formula with floor division, valid for every year.
    static func julianDays(year: Int64, month: Int64, day: Int64) -> Int64 {
        let a = floorDivide(14 - month, 12)
        let y = year + 4800 - a
        let m = month + 12 * a - 3
        let julianDayNumber = day + floorDivide(153 * m + 2, 5) + 365 * y + floorDivide(y, 4) - 32_083
        return julianDayNumber - 2_440_588
    }

    /// The proleptic Julian date (astronomical year) of a day counted from 1970-01-01.
    static func julianDate(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let c = days + 2_440_588 + 32_082
        let d = floorDivide(4 * c + 3, 1461)
        let e = c - floorDivide(1461 * d, 4)
        let m = floorDivide(5 * e + 2, 153)
        let day = e - floorDivide(153 * m + 2, 5) + 1
        let month = m + 3 - 12 * floorDivide(m, 10)
        return (d - 4800 + floorDivide(m, 10), month, day)
    }

    /// The default format's text for a date before year 1, with a signed astronomical year
    /// (ISO 8601's expanded years: 1 BC is `0000`, 200 BC is `-0199`), to the nearest
    /// millisecond; nil past ``signedYearLimit``.
    static func signedYearString(from date: Date) -> String? {
        let scaled = (date.timeIntervalSince1970 * 1000).rounded()
        guard scaled.isFinite, abs(scaled) < Double(signedYearLimit) else { return nil }
        let total = Int64(scaled)
        let days = floorDivide(total, 86_400_000)
        var rest = total - days * 86_400_000
        let (year, month, day) = julianDate(days: days)
        let hour = rest / 3_600_000
        rest -= hour * 3_600_000
        let minute = rest / 60_000
        rest -= minute * 60_000
        let second = rest / 1000
        let millisecond = rest - second * 1000
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return (year < 0 ? "-" : "") + padded(abs(year), 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
            + padded(hour, 2) + ":" + padded(minute, 2) + ":" + padded(second, 2) + "." + padded(millisecond, 3)
    }

    /// Default-format text whose year `yyyy` cannot read back: before 1 (`0000`, `-0199`, as
    /// ``signedYearString(from:)`` writes them, proleptic Julian) or past 9999 (`12053`, as
    /// `yyyy` writes them, Gregorian; DateFormatter reads `12053` as 1953). Nil for other text
    /// and for years 1 to 9999, which the other readers take.
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
        guard year <= 0 || year >= 10_000, (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let dayNumber: Int64
        if year <= 0 {
            let leap = floorDivide(year, 4) * 4 == year
            guard day >= 1, day <= (month == 2 ? (leap ? 29 : 28) : daysInMonth(year: 2001, month: month)) else { return nil }
            dayNumber = julianDays(year: year, month: month, day: day)
        } else {
            guard day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
            dayNumber = days(year: year, month: month, day: day)
        }
        let total = ((dayNumber * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return Date(timeIntervalSinceReferenceDate: Double(total) / 1000 - referenceOffset)
    }
}
