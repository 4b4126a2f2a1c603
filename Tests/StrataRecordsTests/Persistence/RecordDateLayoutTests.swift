import Foundation
import StrataSQift
import Strata
import StrataRecords
import StrataTestSupport
import Testing

// Issue 64, item 9: a backend wrote `updated_at = '2026-11-27 07:52:00.000'` (SQLite's own
// `datetime()` layout) into a synced table, and every fetchAll of the record threw valueMismatch.
// Records read a Date in every layout SQLite's date functions accept; they still write one.

@Record(table: "dated_note")
struct DatedNote: Equatable {
    @PrimaryKey var id: Int64?
    var title: String
    @Column("updated_at") var updatedAt: Date
    @Column("deleted_at") var deletedAt: Date?
}

/// A record over the differential tests' table: `at` has no declared type, so every storage class stays.
@Record(table: "date_sample")
struct DateSampleRecord {
    @PrimaryKey var id: Int64?
    var at: Date
}

@Suite struct RecordDateLayoutTests {
    /// 2026-11-27 07:52:00 UTC.
    static let issueInstant = Date(timeIntervalSince1970: 1_795_765_920)

    func makeDB() throws -> Connection {
        let db = try Connection()
        try db.execute("CREATE TABLE dated_note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at TEXT NOT NULL, deleted_at TEXT)")
        return db
    }

    @Test func dateInSQLitesDatetimeLayoutReads() throws {
        let db = try makeDB()
        try db.execute("INSERT INTO dated_note VALUES (1, 'from psql', '2026-11-27 07:52:00.000', '2026-11-27 07:52:00.000')")
        let sqliteSeconds: Double? = try db.query("SELECT (julianday(updated_at) - 2440587.5) * 86400.0 FROM dated_note")
        #expect(abs(try #require(sqliteSeconds) - Self.issueInstant.timeIntervalSince1970) < 0.001)
        let notes = try DatedNote.fetchAll(db)
        #expect(notes == [DatedNote(id: 1, title: "from psql", updatedAt: Self.issueInstant, deletedAt: Self.issueInstant)])
        // Selections and aggregates read through the same reader.
        #expect(try DatedNote.select(\.updatedAt).fetchAll(db) == [Self.issueInstant])
        let latest: Date?? = try DatedNote.select { $0.updatedAt.max() }.fetchOne(db)
        #expect(latest == .some(.some(Self.issueInstant)))
    }

    @Test func writesKeepStratasOneLayout() throws {
        let db = try makeDB()
        var note = DatedNote(id: nil, title: "t", updatedAt: Self.issueInstant.addingTimeInterval(0.25), deletedAt: nil)
        try note.insert(db)
        let stored: String? = try db.query("SELECT updated_at FROM dated_note")
        #expect(stored == "2026-11-27T07:52:00.250")
        #expect(try DatedNote.fetchAll(db) == [note])
    }

    @Test(
        arguments: [
            ("2026-11-27", 1_795_737_600.0),
            ("2026-11-27T07:52", 1_795_765_920),
            ("2026-11-27 07:52:00", 1_795_765_920),
            ("2026-11-27T07:52:00.5Z", 1_795_765_920.5),
            ("2026-11-27 07:52:00.123456789", 1_795_765_920.123456789),
            ("2026-11-27 09:52:00.000+02:00", 1_795_765_920),
            ("2026-11-27T03:22 -04:30", 1_795_765_920),
            ("2026-11-27T07:52:00Z ", 1_795_765_920),
            ("2026-11-27  T07:52", 1_795_765_920),
            ("1795765920", 1_795_765_920),
            (" -1.5e3 ", -1500),
            ("1969-12-31 23:59:59.999", -0.001),
            ("0000-01-01 00:00", -62_167_219_200)
        ] as [(String, Double)])
    func textLayoutsRead(text: String, seconds: Double) throws {
        let db = try makeDB()
        try db.run("INSERT INTO dated_note VALUES (1, 't', ?, NULL)", text)
        let read = try #require(try DatedNote.fetchAll(db).first).updatedAt.timeIntervalSince1970
        #expect(abs(read - seconds) < 1e-6, "\(text) read as \(read)")
    }

    /// Dates before 1583 in SQLite's calendar; a date SQLite cannot read is refused on insert,
    /// update and in a query, and nothing is written.
    @Test func earlyDatesInSQLitesCalendarAndOutOfRangeRefused() throws {
        let db = try makeDB()
        let year1500 = Date(timeIntervalSince1970: -14_831_769_600)
        var note = DatedNote(id: nil, title: "old", updatedAt: year1500, deletedAt: nil)
        try note.insert(db)
        #expect(try db.query("SELECT updated_at FROM dated_note") == "1500-01-01T00:00:00.000")
        #expect(try db.query("SELECT unixepoch(updated_at) FROM dated_note") == Int64(-14_831_769_600))
        #expect(try DatedNote.fetchAll(db) == [note])
        let year10000 = Date(timeIntervalSince1970: 253_402_300_800)
        var late = DatedNote(id: nil, title: "late", updatedAt: year10000, deletedAt: nil)
        #expect(throws: DateOutOfRangeError.self) { try late.insert(db) }
        note.deletedAt = Date(timeIntervalSince1970: -62_167_219_201)
        #expect(throws: DateOutOfRangeError.self) { try note.update(db) }
        #expect(throws: DateOutOfRangeError.self) { try DatedNote.where { $0.updatedAt < year10000 }.fetchAll(db) }
        #expect(throws: DateOutOfRangeError.self) { try DatedNote.all().update(db, set: { $0.deletedAt.set(year10000) }) }
        #expect(try db.query("SELECT count(*) FROM dated_note WHERE deleted_at IS NULL") == 1)
        #expect(try DatedNote.fetchAll(db).map(\.title) == ["old"])
    }

    @Test func numbersReadAsUnixSeconds() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE date_sample(id INTEGER PRIMARY KEY, at)")
        try db.execute("INSERT INTO date_sample VALUES (1, 1795765920), (2, -86400.25), (3, '1795765920.5')")
        let read = try DateSampleRecord.order(by: \.id).fetchAll(db).map(\.at.timeIntervalSince1970)
        #expect(read == [1_795_765_920, -86_400.25, 1_795_765_920.5])
    }

    @Test(arguments: [
        "2026-13-45", "hello", "2026-02-30 10:00", "2026-11-27 24:00", "2026-11-27T07:52:00.", "2026-11-27 07:52+15:00",
        "2026-11-27 07:52 PST", "07:52", "now", "", "1e999", "0x10", "2026-11-27\u{301}"
    ])
    func badTextThrowsValueMismatch(text: String) throws {
        let db = try makeDB()
        try db.run("INSERT INTO dated_note VALUES (1, 't', ?, NULL)", text)
        let error = RecordError.valueMismatch(column: "updated_at", record: "DatedNote", expected: "Date", storageClass: "TEXT")
        #expect(throws: error) { try DatedNote.fetchAll(db) }
        #expect(error.description.contains("YYYY-MM-DD"))
        try db.run("UPDATE dated_note SET updated_at = '2026-11-27', deleted_at = ?", text)
        #expect(throws: RecordError.valueMismatch(column: "deleted_at", record: "DatedNote", expected: "Date", storageClass: "TEXT")) {
            try DatedNote.fetchAll(db)
        }
    }

    @Test func blobAndInfinityThrowValueMismatch() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE date_sample(id INTEGER PRIMARY KEY, at)")
        try db.execute("INSERT INTO date_sample VALUES (1, x'00')")
        #expect(throws: RecordError.valueMismatch(column: "at", record: "DateSampleRecord", expected: "Date", storageClass: "BLOB")) {
            try DateSampleRecord.fetchAll(db)
        }
        try db.execute("UPDATE date_sample SET at = 1e999")
        #expect(throws: RecordError.valueMismatch(column: "at", record: "DateSampleRecord", expected: "Date", storageClass: "FLOAT")) {
            try DateSampleRecord.fetchAll(db)
        }
    }
}

@Suite struct RecordDateLayoutPropertyTests {
    /// Dates SQLite wrote in every layout it reads, read by records: the same instant SQLite reads.
    @Test func recordsReadEveryLayoutAsSQLiteDoes() async throws {
        try await onOwnThread {
            try PropertyCheck.run("records read SQLite's date layouts", cases: 25) { random in
                let db = try Connection()
                try db.execute("CREATE TABLE date_sample(id INTEGER PRIMARY KEY, at)")
                let samples = try SQLiteDateLayouts.insertSamples(&random, into: db, table: "date_sample", count: 40)
                let records = try DateSampleRecord.order(by: \.id).fetchAll(db)
                try require(records.count == samples.count, "read \(records.count) of \(samples.count) rows")
                for (record, sample) in zip(records, samples) {
                    let read = record.at.timeIntervalSince1970
                    try require(abs(read - sample.expected) <= 0.001, "\(sample), records read \(read)")
                }
            }
        }
    }

    /// Date text with bytes inserted, removed or replaced: never a trap, and whatever records read
    /// as a date SQLite reads as the same instant (the reverse need not hold: records refuse what
    /// SQLite rolls over, and time-only text).
    @Test func mangledDateTextIsReadAsSQLiteReadsItOrRefused() async throws {
        let pieces = ["0", "1", "2", "5", "9", "-", ":", ".", "T", "t", " ", "Z", "z", "+", "\t", "\r\n", "\u{301}", "e", "\0", "24", "60", "99"]
        try await onOwnThread {
            try PropertyCheck.run("records read mangled date text as SQLite does", cases: 25) { random in
                let db = try Connection()
                try db.execute("CREATE TABLE date_sample(id INTEGER PRIMARY KEY, at)")
                for _ in 0..<40 {
                    var text = random.pick([
                        "2026-11-27", "2026-11-27 07:52", "2026-11-27T07:52:00.000", "2026-11-27 07:52:00.123456Z",
                        "2026-11-27 07:52:00 +02:00", "1999-02-28T23:59:59-14:00", "1795765920.5"
                    ]).unicodeScalars.map(String.init)
                    for _ in 0...random.int(0...3) {
                        let at = random.int(0...text.count)
                        switch random.int(0...2) {
                        case 0: text.insert(random.pick(pieces), at: at)
                        case 1: if at < text.count { text.remove(at: at) }
                        default: if at < text.count { text[at] = random.pick(pieces) }
                        }
                    }
                    let value = text.joined()
                    try db.execute("DELETE FROM date_sample")
                    try db.run("INSERT INTO date_sample VALUES (1, CAST(? AS TEXT))", Data(value.utf8))
                    let read: Double?
                    do { read = try DateSampleRecord.fetchAll(db).first?.at.timeIntervalSince1970 } catch is RecordError { read = nil }
                    let sqlite: Double? = try db.query("SELECT (julianday(at) - 2440587.5) * 86400.0 FROM date_sample")
                    let bytes = Array(value.utf8)
                    // Date text (not a number, which SQLite alone takes as a Julian day).
                    if let read, bytes.count > 4, bytes[4] == UInt8(ascii: "-"), bytes[0..<4].allSatisfy({ (0x30...0x39).contains($0) }) {
                        // Text the core's own extraction reads (DateFormatter's leniency within
                        // its format) keeps reading as it did; only printable ASCII is asked, as
                        // DateFormatter traps on some other text.
                        let printable = bytes.allSatisfy { (0x20..<0x7F).contains($0) }
                        let core = printable ? Date.fromBindingValue(value)?.timeIntervalSince1970 : nil
                        try require(
                            sqlite.map { abs($0 - read) <= 0.001 } == true || core == read,
                            "\(value.debugDescription): records read \(read), SQLite \(String(describing: sqlite)), the core \(String(describing: core))")
                    }
                }
            }
        }
    }
}
