import Foundation
import Testing
import StrataTestSupport
import Strata
@testable import StrataCore

/// Issue 39, item 6: dates before year 1 keep their era through the text format.
@Suite struct DateEraRegressionTests {
    /// `yyyy` as SQift wrote every date: what AD dates must still be stored as, byte for byte.
    let reference = utcPOSIXDateFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS")

    /// DateFormatter's astronomical year, to check the hand-written calendar against.
    let signedYear = utcPOSIXDateFormatter("uuuu-MM-dd'T'HH:mm:ss.SSS")

    /// The date `text` names in a calendar with eras (`G` is AD or BC).
    func date(era text: String) -> Date {
        utcPOSIXDateFormatter("G yyyy-MM-dd'T'HH:mm:ss.SSS").date(from: text) ?? .distantFuture
    }

    func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    @Test func twoHundredBCComesBackInItsEra() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE t (d TEXT)")
        let bc = date(era: "BC 0200-03-04T05:06:07.089")
        let ad = date(era: "AD 0200-03-04T05:06:07.089")
        #expect(bc < ad)
        try db.run("INSERT INTO t VALUES (?), (?)", bc, ad)
        let texts: [String] = try db.query("SELECT d FROM t ORDER BY rowid")
        #expect(texts == ["-0199-03-04T05:06:07.089", "0200-03-04T05:06:07.089"])
        let read: [Date] = try db.query("SELECT d FROM t ORDER BY rowid")
        #expect(read.map(milliseconds) == [bc, ad].map(milliseconds))
    }

    @Test func oneBCIsYearZero() throws {
        let oneBC = date(era: "BC 0001-12-31T23:59:59.999")
        #expect(BindingDateFormat.string(from: oneBC) == "0000-12-31T23:59:59.999")
        #expect(BindingDateFormat.date(from: "0000-12-31T23:59:59.999").map(milliseconds) == milliseconds(oneBC))
        let firstAD = date(era: "AD 0001-01-01T00:00:00.000")
        #expect(BindingDateFormat.string(from: firstAD) == "0001-01-01T00:00:00.000")
        #expect(milliseconds(firstAD) == milliseconds(oneBC) + 1)
    }

    @Test func yearsPast9999ReadBackAsWritten() throws {
        // DateFormatter reads "12053" as 1953 (and "AD 12053" too), so the instant is given in seconds.
        #expect(reference.date(from: "12053-05-20T03:42:01.627").map(reference.string(from:)) == "1953-05-20T03:42:01.627")
        let later = Date(timeIntervalSince1970: 318_129_478_921.627)
        let text = BindingDateFormat.string(from: later)
        #expect(text == "12051-02-14T03:42:01.627")
        #expect(text == reference.string(from: later))
        #expect(BindingDateFormat.date(from: text).map(milliseconds) == milliseconds(later))
        let db = try Connection(storageLocation: .inMemory)
        let read: Date? = try db.query("SELECT ?", later)
        #expect(read.map(milliseconds) == milliseconds(later))
    }

    @Test func malformedSignedYearsAreNotDates() {
        for text in [
            "-0199-02-30T00:00:00.000", "-0199-13-01T00:00:00.000", "-019-01-01T00:00:00.000", "0000-01-01T24:00:00.000",
            "-0199-01-01T00:00:00.00", "-0199-01-01T00:00:00.0000", "--199-01-01T00:00:00.000", "-"
        ] {
            #expect(BindingDateFormat.date(from: text) == nil, "\(text)")
        }
        // Julian leap years: 1 BC (0) and 5 BC (-4) have a 29 February; 2 BC does not.
        #expect(BindingDateFormat.date(from: "0000-02-29T00:00:00.000") != nil)
        #expect(BindingDateFormat.date(from: "-0004-02-29T00:00:00.000") != nil)
        #expect(BindingDateFormat.date(from: "-0001-02-29T00:00:00.000") == nil)
    }

    @Test func aReplacedFormatterIsLeftToItsFormat() {
        let custom = utcPOSIXDateFormatter("G yyyy-MM-dd")
        let bc = date(era: "BC 0200-03-04T00:00:00.000")
        #expect(BindingDateFormat.string(from: bc, formatter: custom) == "BC 0200-03-04")
    }

    @Test func everyDateRoundTripsAndADTextIsUnchanged() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute("CREATE TABLE t (d TEXT)")
        try PropertyCheck.run("dates round-trip", cases: 300) { random in
            let date = Gen.date(&random)
            let text = BindingDateFormat.string(from: date)
            if date.timeIntervalSince1970 >= BindingDateFormat.firstInstantOfYearOne {
                try require(text == reference.string(from: date), "AD text changed: \(text) vs \(reference.string(from: date))")
            } else {
                try require(text.hasPrefix("-") || text.hasPrefix("0000-"), "no signed year in \(text)")
                // The same calendar as DateFormatter's (Julian), whose `uuuu` writes the same text.
                try require(text == signedYear.string(from: date), "\(text) vs DateFormatter's \(signedYear.string(from: date))")
            }
            // Through SQLite: bound, stored as text, read by the column reader and by the value parser.
            try db.execute("DELETE FROM t")
            try db.run("INSERT INTO t VALUES (?)", date)
            let stored: String? = try db.query("SELECT d FROM t")
            try require(stored == text, "stored \(stored ?? "nil"), formatted \(text)")
            let read: Date? = try db.query("SELECT d FROM t")
            try require(read.map(milliseconds) == milliseconds(date), "\(text) read back as \(read.map(BindingDateFormat.string(from:)) ?? "nil")")
            let parsed = Date.fromBindingValue(text)
            try require(parsed.map(milliseconds) == milliseconds(date), "\(text) parsed as \(parsed as Any)")
            try require(BindingDateFormat.date(from: text).map(BindingDateFormat.string(from:)) == text, "text \(text) does not round-trip")
        }
    }
}
