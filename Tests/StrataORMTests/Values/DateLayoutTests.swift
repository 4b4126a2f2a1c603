import Foundation
import StrataORM
import StrataTestSupport
import Testing

// Issue 64, item 9, through the ORM: a Date column holding SQLite's own `datetime()` layout
// (`'2026-11-27 07:52:00.000'`, as a backend writes through psql) reads, as every layout SQLite's
// date functions accept does; what the ORM writes stays one layout.

struct DatedEntry: Initializable, Equatable {
    var id = 0
    var updatedAt = Date(timeIntervalSince1970: 0)
    var deletedAt: Date?
}

/// A storage over `dated_entry`, created by hand: `updated_at` has no declared type when `untyped`,
/// so INTEGER and REAL values stay what they are.
func datedEntryStorage(untyped: Bool = false) throws -> Storage {
    let storage = try temporaryStorage(
        keyedTable(
            "dated_entry", key: \DatedEntry.id, Column(name: "updated_at", keyPath: \DatedEntry.updatedAt, constraints: notNull()),
            Column(name: "deleted_at", keyPath: \DatedEntry.deletedAt)),
        sync: false)
    try storage.connection.execute(
        "CREATE TABLE dated_entry (id INTEGER PRIMARY KEY, updated_at \(untyped ? "" : "TEXT") NOT NULL, deleted_at \(untyped ? "" : "TEXT"))")
    return storage
}

@Suite struct DateLayoutTests {
    /// 2026-11-27 07:52:00 UTC.
    static let issueInstant = Date(timeIntervalSince1970: 1_795_765_920)

    @Test func dateInSQLitesDatetimeLayoutReads() throws {
        let storage = try datedEntryStorage()
        try storage.connection.execute("INSERT INTO dated_entry VALUES (1, '2026-11-27 07:52:00.000', '2026-11-27 07:52:00.000')")
        let sqliteSeconds: Double? = try storage.connection.query("SELECT (julianday(updated_at) - 2440587.5) * 86400.0 FROM dated_entry")
        #expect(abs(try #require(sqliteSeconds) - Self.issueInstant.timeIntervalSince1970) < 0.001)
        let all: [DatedEntry] = try storage.getAll()
        #expect(all == [DatedEntry(id: 1, updatedAt: Self.issueInstant, deletedAt: Self.issueInstant)])
        #expect(try storage.get(id: 1) == DatedEntry(id: 1, updatedAt: Self.issueInstant, deletedAt: Self.issueInstant))
        // select and aggregates read through the same conversion.
        #expect(try storage.select(\DatedEntry.updatedAt) == [Self.issueInstant])
        #expect(try storage.select(\DatedEntry.deletedAt) == [Self.issueInstant])
    }

    @Test func writesKeepOneLayout() throws {
        let storage = try datedEntryStorage()
        let entry = DatedEntry(id: 1, updatedAt: Self.issueInstant.addingTimeInterval(0.25), deletedAt: nil)
        try storage.replace(entry)
        let stored: String? = try storage.connection.query("SELECT updated_at FROM dated_entry")
        #expect(stored == "2026-11-27T07:52:00.250")
        #expect(try storage.getAll() == [entry])
    }

    /// SQLite's calendar before 1583 too, and nothing stored for a date SQLite cannot read.
    @Test func earlyDatesInSQLitesCalendarAndOutOfRangeRefused() throws {
        let storage = try datedEntryStorage()
        let year1500 = Date(timeIntervalSince1970: -14_831_769_600)
        try storage.replace(DatedEntry(id: 1, updatedAt: year1500, deletedAt: nil))
        #expect(try storage.connection.query("SELECT unixepoch(updated_at) FROM dated_entry") == Int64(-14_831_769_600))
        #expect(try storage.get(id: 1) == DatedEntry(id: 1, updatedAt: year1500, deletedAt: nil))
        let tooLate = DatedEntry(id: 2, updatedAt: Date(timeIntervalSince1970: 253_402_300_800), deletedAt: nil)
        #expect(throws: DateOutOfRangeError.self) { try storage.replace(tooLate) }
        #expect(throws: DateOutOfRangeError.self) { try storage.update(DatedEntry(id: 1, updatedAt: year1500, deletedAt: tooLate.updatedAt)) }
        #expect(try storage.getAll() == [DatedEntry(id: 1, updatedAt: year1500, deletedAt: nil)])
    }

    @Test func numbersReadAsUnixSeconds() throws {
        let storage = try datedEntryStorage(untyped: true)
        try storage.connection.execute(
            "INSERT INTO dated_entry VALUES (1, 1795765920, NULL), (2, -86400.25, NULL), (3, '2026-11-27T09:52+02:00', '1795765920.5')")
        let all: [DatedEntry] = try storage.getAll(orderBy(\DatedEntry.id))
        #expect(all.map(\.updatedAt.timeIntervalSince1970) == [1_795_765_920, -86_400.25, 1_795_765_920])
        #expect(all.map { $0.deletedAt?.timeIntervalSince1970 } == [nil, nil, 1_795_765_920.5])
    }

    @Test(arguments: ["2026-13-45", "hello", "2026-02-30", "2026-11-27 07:52:00.000 +02", "07:52", ""])
    func badTextThrowsValueDoesNotConvert(text: String) throws {
        let storage = try datedEntryStorage()
        try storage.connection.run("INSERT INTO dated_entry VALUES (1, ?, NULL)", text)
        let error = ORMError.valueDoesNotConvert(table: "dated_entry", column: "updated_at", type: "Date")
        #expect(throws: error) { let _: [DatedEntry] = try storage.getAll() }
        #expect(error.description.contains("YYYY-MM-DD"))
        try storage.connection.run("UPDATE dated_entry SET updated_at = '2026-11-27', deleted_at = ?", text)
        #expect(throws: ORMError.self) { let _: [DatedEntry] = try storage.getAll() }
    }
}

@Suite struct DateLayoutPropertyTests {
    /// Dates SQLite wrote in every layout it reads, read by the ORM: the same instant SQLite reads.
    @Test func ormReadsEveryLayoutAsSQLiteDoes() async throws {
        try await onOwnThread {
            try PropertyCheck.run("ORM reads SQLite's date layouts", cases: 25) { random in
                let storage = try datedEntryStorage(untyped: true)
                // The shared generator writes `id` and `at`; the ORM's table reads `updated_at`.
                try storage.connection.execute("CREATE TABLE date_sample(id INTEGER PRIMARY KEY, at)")
                let samples = try SQLiteDateLayouts.insertSamples(&random, into: storage.connection, table: "date_sample", count: 40)
                try storage.connection.execute("INSERT INTO dated_entry SELECT id, at, at FROM date_sample")
                let entries: [DatedEntry] = try storage.getAll(orderBy(\DatedEntry.id))
                let selected: [Date] = try storage.select(\DatedEntry.updatedAt, orderBy(\DatedEntry.id))
                try require(entries.count == samples.count && selected.count == samples.count, "read \(entries.count) of \(samples.count) rows")
                for ((entry, sample), selectedDate) in zip(zip(entries, samples), selected) {
                    let read = entry.updatedAt.timeIntervalSince1970
                    try require(abs(read - sample.expected) <= 0.001, "\(sample), the ORM read \(read)")
                    try require(
                        entry.deletedAt == entry.updatedAt && selectedDate == entry.updatedAt,
                        "\(sample): the optional column read \(String(describing: entry.deletedAt)), select read \(selectedDate)")
                }
            }
        }
    }
}
