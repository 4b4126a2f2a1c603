import Foundation
import StrataSQift
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
import StrataTestSupport
import Testing

/// Dates are written and read in SQLite's calendar (proleptic Gregorian, years 0000 to 9999), so
/// `strftime`, `julianday` and `unixepoch` agree with Strata in both directions, and a date
/// outside those years is refused on write, never stored as text that sorts wrongly.
@Suite struct DateCalendarTests {
    func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// An instant in years 0000 to 9999, in milliseconds from 1970: anywhere, near the old
    /// Julian switch, near the ends, whole days and seconds or not.
    static func instant(_ random: inout SeededRandom) -> Int64 {
        let first = BindingDateFormat.firstWritableMillisecond, end = BindingDateFormat.endWritableMillisecond
        switch random.int(0...5) {
        case 0: return Int64.random(in: first...(-12_212_553_600_000), using: &random) // before 1583
        case 1: return -12_219_292_800_000 + Int64(random.int(-400...400)) * 86_400_000 + Int64(random.int(-1...1)) // 1582-10-15
        case 2: return random.pick([first, first + 1, end - 1, end - 1000, 0, -1, 1, -14_831_769_600_000, -62_135_596_800_000])
        case 3: return Int64(random.int(0...3000)) * 86_400_000 + first // year 0 and 1, leap year 0 included
        default: return Int64.random(in: first..<end, using: &random)
        }
    }

    /// Whole seconds and the millisecond rest of an instant, for SQLite's own arithmetic
    /// (`'unixepoch'` on an integer, then `+0.123 seconds`, both exact).
    static func sqliteArguments(_ ms: Int64) -> (seconds: Int64, modifier: String) {
        let seconds = BindingDateFormat.floorDivide(ms, 1000)
        let rest = ms - seconds * 1000
        return (seconds, "+0.\(String(repeating: "0", count: 3 - String(rest).count))\(rest) seconds")
    }

    @Test func writtenTextIsWhatStrftimeWritesAndSQLiteReadsItBack() throws {
        let db = try makeConnection(executing: "CREATE TABLE t (d TEXT)")
        try PropertyCheck.run("dates written as SQLite writes them", cases: 400) { random in
            let ms = Self.instant(&random)
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let (seconds, modifier) = Self.sqliteArguments(ms)
            try db.execute("DELETE FROM t")
            try db.run("INSERT INTO t VALUES (?)", date)
            let stored: String? = try db.query("SELECT d FROM t")
            let sqlite: String? = try db.query("SELECT strftime('%Y-%m-%dT%H:%M:%f', ?, 'unixepoch', ?)", seconds, modifier)
            try require(stored != nil && stored == sqlite, "\(ms) ms stored as \(stored ?? "nil"), strftime says \(sqlite ?? "nil")")
            let unix: Int64? = try db.query("SELECT unixepoch(d) FROM t")
            try require(unix == seconds, "unixepoch(\(stored ?? "")) is \(unix.map(String.init) ?? "NULL"), not \(seconds)")
            let julian: Int64? = try db.query("SELECT CAST(round((julianday(d) - 2440587.5) * 86400000.0) AS INTEGER) FROM t")
            try require(julian == ms, "julianday(\(stored ?? "")) is \(julian.map(String.init) ?? "NULL") ms, not \(ms)")
            // And back: the core reads its own text, and text SQLite wrote, as the same instant.
            let read: Date? = try db.query("SELECT d FROM t")
            try require(read.map(milliseconds) == ms, "\(stored ?? "") read back as \(read.map(milliseconds) ?? 0)")
            let fromSQLite: Date? = try db.query("SELECT strftime('%Y-%m-%dT%H:%M:%f', ?, 'unixepoch', ?)", seconds, modifier)
            try require(fromSQLite.map(milliseconds) == ms, "strftime's \(sqlite ?? "") read as \(fromSQLite.map(milliseconds) ?? 0)")
            let parsed = Date.fromBindingValue(sqlite ?? "")
            try require(parsed.map(milliseconds) == ms, "\(sqlite ?? "") parsed as \(parsed.map(milliseconds) ?? 0)")
        }
    }

    /// The issue's instants: 1500-01-01 was stored nine days early, `distantPast` two.
    @Test func earlyDatesAreStoredInSQLitesCalendar() throws {
        let db = try Connection(storageLocation: .inMemory)
        let year1500: String? = try db.query("SELECT ?", Date(timeIntervalSince1970: -14_831_769_600))
        #expect(year1500 == "1500-01-01T00:00:00.000")
        #expect(try db.query("SELECT unixepoch(?)", Date(timeIntervalSince1970: -14_831_769_600)) == Int64(-14_831_769_600))
        let distantPast: String? = try db.query("SELECT ?", Date.distantPast)
        let sqlite: String? = try db.query("SELECT strftime('%Y-%m-%dT%H:%M:%f', ?, 'unixepoch')", Int64(Date.distantPast.timeIntervalSince1970))
        #expect(distantPast == sqlite)
        // SQLite's text for 1500-01-01, read by the core, is that instant (it read nine days late).
        let read: Date? = try db.query("SELECT strftime('%Y-%m-%dT%H:%M:%f', -14831769600, 'unixepoch')")
        #expect(read == Date(timeIntervalSince1970: -14_831_769_600))
        // Year 0 is a leap year, as in SQLite.
        #expect(try db.query("SELECT ?", Date(timeIntervalSince1970: -62_162_121_600)) == "0000-02-29T00:00:00.000")
    }

    @Test func datesOutsideYearsZeroToNineThousandNineHundredNinetyNineAreRefused() throws {
        let db = try makeConnection(executing: "CREATE TABLE t (d TEXT)")
        try db.run("INSERT INTO t VALUES (?)", Date(timeIntervalSince1970: 0))
        let first = Double(BindingDateFormat.firstWritableMillisecond) / 1000, end = Double(BindingDateFormat.endWritableMillisecond) / 1000
        let refused: [Double] = [
            first - 0.001, first - 86_400, end, end - 0.0004, end + 1e9, -1e15 / 1000 * 1000, .infinity, -.infinity, .nan,
            Double(Int64.max), Double(Int64.min), .greatestFiniteMagnitude, -.greatestFiniteMagnitude
        ]
        for seconds in refused {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(throws: DateOutOfRangeError.self, "\(seconds)") { try db.run("INSERT INTO t VALUES (?)", date) }
            #expect(throws: DateOutOfRangeError.self, "\(seconds)") { try BindingDateFormat.string(from: date) }
            // Booleans only: Foundation traps describing a non-finite Date in a failure message.
            let bindsNull = date.bindingValue == .null
            #expect(bindsNull, "\(seconds)")
            let described = DateOutOfRangeError(date: date).localizedDescription.contains("0000 to 9999")
            #expect(described, "\(seconds)")
        }
        #expect(try db.query("SELECT count(*) FROM t") == 1, "a refused date wrote nothing")
        // The edges just inside are written.
        for seconds in [first, end - 0.001, end - 0.0006] {
            let text: String? = try db.query("SELECT ?", Date(timeIntervalSince1970: seconds))
            #expect(text?.utf8.count == 23, "\(seconds): \(text ?? "nil")")
        }
        // A function returning a date out of range fails its statement instead of returning text.
        try db.addScalarFunction(named: "far_future", argumentCount: 0) { _, _ in .date(Date(timeIntervalSince1970: 1e13)) }
        #expect(throws: SQLiteError.self) { let _: String? = try db.query("SELECT far_future()") }
        // A replaced formatter is the caller's layout: no range check applies to it.
        let custom = utcPOSIXDateFormatter("uuuuu-MM-dd")
        #expect(try BindingDateFormat.string(from: Date(timeIntervalSince1970: end + 86_400 * 400), formatter: custom) == "10001-02-04")
    }

    /// Text Strata 5.x wrote for years before 0 and after 9999 still reads, in the same calendar.
    @Test func signedAndFiveDigitYearsStillRead() throws {
        let db = try Connection(storageLocation: .inMemory)
        let bc: Date? = try db.query("SELECT '-0199-03-04T05:06:07.089'")
        let expected = BindingDateFormat.days(year: -199, month: 3, day: 4) * 86_400_000 + ((5 * 60 + 6) * 60 + 7) * 1000 + 89
        #expect(bc.map(milliseconds) == expected)
        let later: Date? = try db.query("SELECT '12051-02-14T03:42:01.627'")
        #expect(later.map(milliseconds) == 318_129_478_921_627)
        for text in [
            "-0199-02-30T00:00:00.000", "-0199-13-01T00:00:00.000", "-019-01-01T00:00:00.000", "-0001-02-29T00:00:00.000", "--199-01-01T00:00:00.000", "-"
        ] {
            #expect(BindingDateFormat.date(from: text) == nil, "\(text)")
        }
        // Gregorian leap years before 0: -4 has a February 29.
        #expect(BindingDateFormat.date(from: "-0004-02-29T00:00:00.000") != nil)
    }

    /// From 1583 the text is byte for byte what SQift's formatter wrote.
    @Test func textFrom1583IsSQiftsText() throws {
        let reference = utcPOSIXDateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS")
        try PropertyCheck.run("dates from 1583 as SQift wrote them", cases: 300) { random in
            let ms = Int64.random(in: BindingDateFormat.formatterStartMillisecond..<BindingDateFormat.endWritableMillisecond, using: &random)
            let date = Date(timeIntervalSince1970: Double(ms) / 1000 + (random.oneIn(3) ? Double(random.int(-499...499)) / 1e6 : 0))
            let text = try BindingDateFormat.string(from: date)
            try require(text == reference.string(from: date), "\(text) vs SQift's \(reference.string(from: date))")
            // The formatter's rounding of a sub-millisecond rest is its own: the text reads back
            // as itself, within a millisecond of the date.
            let read = BindingDateFormat.date(from: text)
            try require(read.map { try BindingDateFormat.string(from: $0) } == text, "\(text) does not read back")
            try require(read.map { abs($0.timeIntervalSince(date)) <= 0.001 } == true, "\(text) is not \(date.timeIntervalSince1970)")
        }
    }
}
