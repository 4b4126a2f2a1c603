import Foundation

/// The formatter `Date` binding uses to store dates as TEXT (and `FunctionValue.date`,
/// `FunctionResult.date` and the Migrator's timestamps use to read and write them).
///
/// The default format is `yyyy-MM-dd'T'HH:mm:ss.SSS` in GMT with the `en_US_POSIX` locale, which
/// SQLite's date functions understand. Replace it (or change its settings) with care: date range
/// queries only work with formats SQLite can compare.
///
/// While the default is in place, Strata parses that exact format by hand, which is much faster
/// than `DateFormatter` and gives identical results.
// A settable global is SQift's documented API. `nonisolated(unsafe)`: it is meant to be set once at
// startup, before any connection uses it; DateFormatter itself is thread-safe for formatting.
nonisolated(unsafe) public var bindingDateFormatter: DateFormatter = BindingDateFormat.makeDefaultFormatter()

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
        (formatter as? DefaultBindingDateFormatter)?.isPristine == true
    }

    /// Formatting always goes through the formatter: Foundation's sub-millisecond rounding is not
    /// specified, and stored text must match what SQift would have written.
    static func string(from date: Date) -> String { string(from: date, formatter: bindingDateFormatter) }

    static func string(from date: Date, formatter: DateFormatter) -> String {
        formatter.string(from: date)
    }

    static func date(from text: String) -> Date? { date(from: text, formatter: bindingDateFormatter) }

    static func date(from text: String, formatter: DateFormatter) -> Date? {
        if fastPathEnabled(for: formatter) {
            var text = text
            if let date = text.withUTF8({ fastDate(fromUTF8: $0) }) { return date }
        }
        return formatter.date(from: text)
    }

    static func date(fromUTF8 buffer: UnsafeBufferPointer<UInt8>) -> Date? {
        if defaultFormatterIsPristine, let date = fastDate(fromUTF8: buffer) { return date }
        return bindingDateFormatter.date(from: String(decoding: buffer, as: UTF8.self))
    }

    /// Whether the global formatter is the default one, unchanged (read without keeping it).
    @inline(__always)
    static var defaultFormatterIsPristine: Bool {
        (bindingDateFormatter as? DefaultBindingDateFormatter)?.isPristine == true
    }

    static func date(fromUTF8 buffer: UnsafeBufferPointer<UInt8>, formatter: DateFormatter) -> Date? {
        if fastPathEnabled(for: formatter), let date = fastDate(fromUTF8: buffer) { return date }
        return formatter.date(from: String(decoding: buffer, as: UTF8.self))
    }

    // MARK: - Parsing the default format (proleptic Gregorian; Howard Hinnant's days_from_civil)

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
        guard bytes.count == 23, let p = bytes.baseAddress,
              p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"), p[10] == UInt8(ascii: "T"),
              p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":"), p[19] == UInt8(ascii: ".")
        else { return nil }
        // Digits are read without per-digit branches; any non-digit sets a bit in `invalid`.
        var invalid: UInt8 = 0
        @inline(__always) func digits(_ start: Int, _ count: Int) -> Int64 {
            var value: Int64 = 0
            for index in start..<(start + count) {
                let digit = p[index] &- UInt8(ascii: "0")
                invalid |= digit > 9 ? 1 : 0
                value = value &* 10 &+ Int64(digit)
            }
            return value
        }
        let year = digits(0, 4), month = digits(5, 2), day = digits(8, 2)
        let hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2), millisecond = digits(20, 3)
        guard invalid == 0, year >= 1583, (1...12).contains(month), hour < 24, minute < 60, second < 60,
              day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        let dayNumber = days(year: year, month: month, day: day)
        let total = ((dayNumber * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return Date(timeIntervalSinceReferenceDate: Double(total) / 1000 - referenceOffset)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
