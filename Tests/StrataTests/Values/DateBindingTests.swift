import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema

@Suite struct DateBindingTests {
    func date(_ text: String) -> Date {
        utcPOSIXDateFormatter("yyyy-MM-dd").date(from: text) ?? Date.distantPast
    }

    @Test func defaultFormatter() {
        #expect(bindingDateFormatter.dateFormat == "yyyy-MM-dd'T'HH:mm:ss.SSS")
        #expect(bindingDateFormatter.locale.identifier == "en_US_POSIX")
        #expect(bindingDateFormatter.timeZone.secondsFromGMT() == 0)
    }

    @Test func readmeDateExample() throws {
        let connection = try makeConnection(executing: "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, release_date TEXT)")
        try connection.run("INSERT INTO cars(name, release_date) VALUES(?, ?)", "70s car", date("1975-06-01"))
        try connection.run("INSERT INTO cars(name, release_date) VALUES(?, ?)", "80s car", date("1983-06-01"))
        try connection.run("INSERT INTO cars(name, release_date) VALUES(?, ?)", "90s car", date("1992-06-01"))
        try connection.run("INSERT INTO cars(name, release_date) VALUES(?, ?)", "00s car", date("2001-06-01"))
        let carCount: Int? = try connection.query(
            "SELECT count(*) FROM cars WHERE release_date >= date(?) AND release_date <= date(?)",
            date("1980-01-01"), date("2000-01-01")
        )
        #expect(carCount == 2)
        let releaseDate: Date? = try connection.query("SELECT release_date FROM cars WHERE name = ? LIMIT 1", "80s car")
        #expect(releaseDate == date("1983-06-01"))
        #expect(try connection.query("SELECT release_date FROM cars WHERE id = 2") == "1983-06-01T00:00:00.000")
        // The README's spelling: execute with values binds them (its `cars(?, ?)` means these columns).
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "10s car", date("2012-06-01"))
        #expect(try connection.query("SELECT name FROM cars WHERE release_date > date(?)", date("2010-01-01")) == "10s car")
    }

    @Test func fastPathMatchesDateFormatter() throws {
        let reference = utcPOSIXDateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS")
        var generator = SystemRandomNumberGenerator()
        var samples: [Date] = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.0005),
            Date(timeIntervalSince1970: 951_782_400.999), Date(timeIntervalSince1970: -1e-9)
        ]
        for _ in 0..<2000 {
            samples.append(Date(timeIntervalSince1970: Double.random(in: -12_000_000_000...250_000_000_000, using: &generator)))
        }
        for sample in samples {
            let expected = reference.string(from: sample)
            #expect(try BindingDateFormat.string(from: sample) == expected)
            #expect(try BindingDateFormat.date(from: expected).map(BindingDateFormat.string(from:)) == expected)
            #expect(BindingDateFormat.date(from: expected) == reference.date(from: expected))
        }
        #expect(BindingDateFormat.date(from: "2021-02-29T00:00:00.000") == reference.date(from: "2021-02-29T00:00:00.000"))
        #expect(BindingDateFormat.date(from: "not a date") == nil)
    }

    /// Uses a formatter of its own rather than replacing the global one, which suites running in
    /// parallel read.
    @Test func customFormatterIsHonoured() throws {
        let custom = utcPOSIXDateFormatter("yyyy/MM/dd")
        #expect(try BindingDateFormat.string(from: date("1999-12-31"), formatter: custom) == "1999/12/31")
        #expect(BindingDateFormat.date(from: "1999/12/31", formatter: custom) == date("1999-12-31"))
        #expect(BindingDateFormat.date(from: "1999-12-31T00:00:00.000", formatter: custom) == nil)
        var text = "1999/12/31"
        #expect(text.withUTF8 { BindingDateFormat.date(fromUTF8: $0, formatter: custom) } == date("1999-12-31"))
    }

    @Test func changingTheDefaultFormatterTurnsTheFastPathOff() {
        let formatter = BindingDateFormat.makeDefaultFormatter()
        #expect(BindingDateFormat.fastPathEnabled(for: formatter))
        formatter.timeZone = TimeZone(secondsFromGMT: 3600)
        #expect(!BindingDateFormat.fastPathEnabled(for: formatter))
        // The slow path now honours the new time zone.
        #expect(BindingDateFormat.date(from: "2001-01-01T01:00:00.000", formatter: formatter) == Date(timeIntervalSinceReferenceDate: 0))
        #expect(BindingDateFormat.fastPathEnabled(for: bindingDateFormatter))
    }
}

/// Every setter that changes what the default formatter reads turns the hand-written parser off,
/// not only `dateFormat` (a style replaces the format without going through its setter).
@Suite struct DateFormatterStyleTests {
    @Test(arguments: 0..<6) func everyReadingSettingTurnsTheFastPathOff(setting: Int) {
        let formatter = BindingDateFormat.makeDefaultFormatter()
        switch setting {
        case 0: formatter.dateStyle = .short
        case 1: formatter.timeStyle = .short
        case 2: formatter.defaultDate = Date(timeIntervalSince1970: 0)
        case 3: formatter.twoDigitStartDate = Date(timeIntervalSince1970: 0)
        case 4: formatter.generatesCalendarDates = true
        default: formatter.doesRelativeDateFormatting = true
        }
        #expect(!BindingDateFormat.fastPathEnabled(for: formatter))
    }

    @Test func aStyledFormatterReadsWhatItsFormatSays() {
        let formatter = BindingDateFormat.makeDefaultFormatter()
        formatter.dateStyle = .short
        formatter.timeStyle = .short
        var text = "2020-01-02T03:04:05.678"
        let read = text.withUTF8 { BindingDateFormat.date(fromUTF8: $0, formatter: formatter) }
        #expect(read == formatter.date(from: text))
    }
}
