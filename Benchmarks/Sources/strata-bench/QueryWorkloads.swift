import Foundation
import StrataSQift
import GRDB
import SQLite3
import Strata
import StrataRecords

// The typed queries of issue 28 (joins, associations, aggregates, insertAll) and a wide record of
// a real table's shape, each against raw C and GRDB 7.10 on the same rows. The books tables have
// one author per 20 books; `--rows` counts books (or contacts).

@Record(table: "author")
struct BenchAuthor {
    @PrimaryKey var id: Int64?
    var name: String
    var country: String
    var checksum: Int64 { (id ?? 0) &* 7 &+ Int64(name.utf8.count) &* 11 &+ Int64(country.utf8.count) }
}

@Record(table: "book")
struct BenchBook {
    @PrimaryKey var id: Int64?
    var authorId: Int64
    var title: String
    var year: Int
    var price: Double?
    var checksum: Int64 {
        (id ?? 0) &* 3 &+ authorId &* 5 &+ Int64(title.utf8.count) &+ Int64(year) &+ Int64((price ?? -1) * 4)
    }

    /// The values `QueryWorkloads.populate` writes for book `row` (0-based) of `authors` authors.
    static func make(_ row: Int, authors: Int, id: Int64?) -> BenchBook {
        BenchBook(
            id: id, authorId: Int64(row % authors + 1), title: "Book title number \(row)",
            year: 1950 + row % 75, price: row % 3 == 0 ? nil : Double(row % 500) * 0.25 + 1)
    }
}

extension BenchAuthor { static let books = hasMany(BenchBook.self, using: \.authorId) }
extension BenchBook { static let author = belongsTo(BenchAuthor.self, using: \.authorId) }

/// A real table's shape: an integer key, mostly optional text, a real, and dates stored as text.
@Record(table: "contact")
struct Contact {
    @PrimaryKey var id: Int64?
    var name: String
    var email: String?
    var phone: String?
    var company: String?
    var jobTitle: String?
    var street: String?
    var city: String?
    var postalCode: String?
    var country: String?
    var notes: String?
    var score: Double?
    var createdAt: Date
    var updatedAt: Date?

    var checksum: Int64 {
        var sum = (id ?? 0) &+ Int64(name.utf8.count)
        for (index, text) in [email, phone, company, jobTitle, street, city, postalCode, country, notes].enumerated() {
            sum &+= Int64(text?.utf8.count ?? 0) &* Int64(index + 2)
        }
        sum &+= Int64((score ?? -1) * 8)
        sum &+= Int64((createdAt.timeIntervalSince1970 * 1000).rounded())
        sum &+= Int64(((updatedAt?.timeIntervalSince1970 ?? 0) * 1000).rounded()) &* 3
        return sum
    }
}

/// Strata's hand-written mapping of the same row: reads by index.
struct HandContact: ExpressibleByRow {
    let value: Contact
    init(row: Strata.Row) throws {
        value = Contact(
            id: row[0], name: row[1], email: row[2], phone: row[3], company: row[4], jobTitle: row[5],
            street: row[6], city: row[7], postalCode: row[8], country: row[9], notes: row[10],
            score: row[11], createdAt: row[12], updatedAt: row[13])
    }
}

// GRDB's hand-written records: read by index, encode by hand.

struct GRDBAuthor: FetchableRecord, TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(GRDBBook.self, key: "books", using: ForeignKey(["authorId"]))
    var value: BenchAuthor
    init(row: GRDB.Row) throws { value = BenchAuthor(id: row[0], name: row[1], country: row[2]) }
}

struct GRDBBook: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(GRDBAuthor.self, key: "author", using: ForeignKey(["authorId"]))
    var value: BenchBook
    init(_ value: BenchBook) { self.value = value }
    init(row: GRDB.Row) throws { value = BenchBook(id: row[0], authorId: row[1], title: row[2], year: row[3], price: row[4]) }
    func encode(to container: inout PersistenceContainer) {
        container["id"] = value.id; container["authorId"] = value.authorId; container["title"] = value.title
        container["year"] = value.year; container["price"] = value.price
    }
    mutating func didInsert(_ inserted: InsertionSuccess) { value.id = inserted.rowID }
}

struct GRDBBookWithAuthor: FetchableRecord {
    var book: GRDBBook
    var author: GRDBAuthor
    init(row: GRDB.Row) throws {
        book = try GRDBBook(row: row)
        author = try row.decode(GRDBAuthor.self, forKey: "author")
    }
}

struct GRDBAuthorWithBooks: FetchableRecord {
    var author: GRDBAuthor
    var books: [GRDBBook]
    init(row: GRDB.Row) throws {
        author = try GRDBAuthor(row: row)
        books = try row.decode([GRDBBook].self, forKey: "books")
    }
}

struct GRDBContact: FetchableRecord {
    var value: Contact
    init(row: GRDB.Row) throws {
        value = Contact(
            id: row[0], name: row[1], email: row[2], phone: row[3], company: row[4], jobTitle: row[5],
            street: row[6], city: row[7], postalCode: row[8], country: row[9], notes: row[10],
            score: row[11], createdAt: row[12], updatedAt: row[13])
    }
}

enum QueryWorkloads {
    enum Kind: String, CaseIterable {
        case join = "join-books-authors"
        case includingAll = "including-all"
        case groupCount = "group-count"
        case insertAll = "insert-all"
        case wideRecord = "wide-record"
        var defaultRows: Int { self == .insertAll ? 50_000 : 200_000 }
    }

    static let booksSchema = """
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
        CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id),
                          title TEXT NOT NULL, year INTEGER NOT NULL, price REAL);
        CREATE INDEX book_authorId ON book(authorId);
        """
    static let countries = ["FR", "US", "JP", "DE", "BR"]
    static func authorCount(_ books: Int) -> Int { max(1, books / 20) }

    // The SQL raw C runs: the statements Strata builds, written out.
    static let joinSQL = """
        SELECT "book"."id", "book"."authorId", "book"."title", "book"."year", "book"."price", \
        "author"."id", "author"."name", "author"."country" FROM "book" JOIN "author" ON "book"."authorId" = "author"."id"
        """
    static let authorsSQL = #"SELECT "id", "name", "country" FROM "author""#
    static let childrenSQL = #"SELECT "id", "authorId", "title", "year", "price" FROM "book" WHERE "authorId" IN (SELECT "id" FROM "author")"#
    static let groupCountSQL = #"SELECT "book"."authorId", count("book"."id") FROM "book" GROUP BY "book"."authorId""#
    static let insertSQL = #"INSERT INTO "book" ("id", "authorId", "title", "year", "price") VALUES (?, ?, ?, ?, ?)"#
    static let contactColumns = [
        "id", "name", "email", "phone", "company", "jobTitle", "street", "city", "postalCode",
        "country", "notes", "score", "createdAt", "updatedAt"
    ]
    static let contactSQL = "SELECT " + contactColumns.map { "\"\($0)\"" }.joined(separator: ", ") + " FROM \"contact\""

    static func populate(_ kind: Kind, path: String, rows: Int) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        if kind == .wideRecord {
            try populateContacts(db, rows: rows)
        } else {
            try Raw.exec(db, booksSchema + "BEGIN")
            let authors = authorCount(rows)
            let author = try Raw.prepare(db, "INSERT INTO author VALUES (?, ?, ?)")
            defer { sqlite3_finalize(author) }
            for index in 0..<authors {
                sqlite3_bind_int64(author, 1, Int64(index + 1))
                sqlite3_bind_text(author, 2, "Author \(index + 1)", -1, Raw.transient)
                sqlite3_bind_text(author, 3, countries[index % countries.count], -1, Raw.transient)
                guard sqlite3_step(author) == SQLITE_DONE else { throw BenchError.sqlite("insert author") }
                sqlite3_reset(author)
            }
            if kind != .insertAll {
                let book = try Raw.prepare(db, insertSQL)
                defer { sqlite3_finalize(book) }
                for row in 0..<rows {
                    try bindBook(book, BenchBook.make(row, authors: authors, id: Int64(row + 1)))
                    guard sqlite3_step(book) == SQLITE_DONE else { throw BenchError.sqlite("insert book") }
                    sqlite3_reset(book)
                }
            }
            try Raw.exec(db, "COMMIT")
        }
        try Raw.exec(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    static func populateContacts(_ db: OpaquePointer, rows: Int) throws {
        try Raw.exec(
            db,
            """
            CREATE TABLE contact(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, company TEXT,
              jobTitle TEXT, street TEXT, city TEXT, postalCode TEXT, country TEXT, notes TEXT, score REAL,
              createdAt TEXT NOT NULL, updatedAt TEXT);
            BEGIN
            """)
        let placeholders = contactColumns.indices.map { $0 >= 12 ? "strftime('%Y-%m-%dT%H:%M:%f', ?, 'unixepoch')" : "?" }
        let statement = try Raw.prepare(db, "INSERT INTO contact VALUES (" + placeholders.joined(separator: ", ") + ")")
        defer { sqlite3_finalize(statement) }
        for row in 0..<rows {
            // About a third of the optional text is NULL, varying by column.
            let texts = [
                "Contact \(row)", "contact.\(row)@example.com", "+33 1 45 67 \(row % 100)", "Company \(row % 997)",
                "Engineer", "\(row % 300) rue de la République", "Lyon", "\(69_000 + row % 9)", "FR",
                "Met at the conference of \(2000 + row % 24), follow up"
            ]
            sqlite3_bind_int64(statement, 1, Int64(row + 1))
            for (offset, text) in texts.enumerated() {
                if offset > 0, (row + offset) % 3 == 0 { sqlite3_bind_null(statement, Int32(offset + 2)); continue }
                sqlite3_bind_text(statement, Int32(offset + 2), text, -1, Raw.transient)
            }
            if row % 5 == 0 { sqlite3_bind_null(statement, 12) } else { sqlite3_bind_double(statement, 12, Double(row % 1000) * 0.125) }
            sqlite3_bind_double(statement, 13, 946_684_800 + Double(row) * 61.5)
            if row % 2 == 0 { sqlite3_bind_null(statement, 14) } else { sqlite3_bind_double(statement, 14, 1_600_000_000 + Double(row) * 7.25) }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.sqlite(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        try Raw.exec(db, "COMMIT")
    }

    static func bindBook(_ statement: OpaquePointer, _ book: BenchBook) throws {
        if let id = book.id { sqlite3_bind_int64(statement, 1, id) } else { sqlite3_bind_null(statement, 1) }
        sqlite3_bind_int64(statement, 2, book.authorId)
        var title = book.title
        title.withUTF8 { _ = sqlite3_bind_text(statement, 3, $0.baseAddress, Int32($0.count), Raw.transient) }
        sqlite3_bind_int64(statement, 4, Int64(book.year))
        if let price = book.price { sqlite3_bind_double(statement, 5, price) } else { sqlite3_bind_null(statement, 5) }
    }

    /// What insert-all leaves behind: the rows' count and a sum over every column.
    static func insertedChecksum(path: String) throws -> Int64 {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        let sum = try Raw.int64(db, "SELECT total(id * 3 + authorId * 5 + length(title) + year + coalesce(price * 4, -4)) FROM book")
        return try Raw.int64(db, "SELECT count(*) FROM book") &* 1_000_003 &+ sum
    }

    struct Contestant {
        let name: String
        let make: (_ path: String, _ rows: Int) throws -> Prepared
    }

    @MainActor static func measureAll() throws -> [Result] {
        var results: [Result] = []
        for kind in Kind.allCases where options.filter == nil || kind.rawValue.contains(options.filter!) {
            if !options.json { FileHandle.standardError.write(Data("running \(kind.rawValue)...\n".utf8)) }
            let rows = options.rows ?? kind.defaultRows
            let template = directory.appendingPathComponent("\(kind.rawValue)-template.sqlite").path
            try? FileManager.default.removeItem(atPath: template)
            try populate(kind, path: template, rows: rows)
            let contestants = contestants(kind)
            var measurements = Array(repeating: Measurement(), count: contestants.count)
            var expected: Int64?
            for round in 0...options.runs {
                for (index, contestant) in contestants.enumerated() {
                    let path = kind == .insertAll ? directory.appendingPathComponent("\(kind.rawValue)-\(index).sqlite").path : template
                    if kind == .insertAll { try copyDatabase(from: template, to: path) }
                    let prepared = try contestant.make(path, rows)
                    let start = DispatchTime.now().uptimeNanoseconds
                    var result = try prepared.work()
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                    prepared.close()
                    if kind == .insertAll { result &+= try insertedChecksum(path: path) }
                    if let expected, expected != result {
                        throw BenchError.mismatch("\(kind.rawValue): \(contestant.name) computed \(result), expected \(expected)")
                    }
                    expected = result
                    if round > 0 { measurements[index].times.append(elapsed) }
                }
            }
            if kind == .wideRecord {
                results.append(Result(workload: "wide-record (@Record)", rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[3]))
                results.append(
                    Result(workload: "wide-record (Strata hand-written)", rows: rows, raw: measurements[0], strata: measurements[2], grdb: measurements[3]))
            } else {
                results.append(Result(workload: kind.rawValue, rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[2]))
            }
        }
        return results
    }

    static func contestants(_ kind: Kind) -> [Contestant] {
        func raw(_ work: @escaping (OpaquePointer, Int) throws -> Int64) -> Contestant {
            Contestant(name: "raw") { path, rows in
                let db = try Raw.open(path)
                return Prepared(work: { try work(db, rows) }, close: { sqlite3_close_v2(db) })
            }
        }
        func strata(_ name: String = "strata", _ work: @escaping (Connection, Int) throws -> Int64) -> Contestant {
            Contestant(name: name) { path, rows in
                let db = try Connection(storageLocation: .onDisk(path))
                try db.execute(Workloads.pragmas)
                return Prepared(work: { try work(db, rows) }, close: {})
            }
        }
        func grdb(write: Bool = false, _ work: @escaping (GRDB.Database, Int) throws -> Int64) -> Contestant {
            Contestant(name: "grdb") { path, rows in
                let queue = try RecordWorkloads.grdbQueue(path)
                return Prepared(
                    work: {
                        write ? try queue.write { try work($0, rows) } : try queue.read { try work($0, rows) }
                    }, close: {})
            }
        }
        switch kind {
        case .join:
            return [raw { db, _ in try rawJoin(db) }, strata { db, _ in try strataJoin(db) }, grdb { db, _ in try grdbJoin(db) }]
        case .includingAll:
            return [
                raw { db, _ in try rawIncludingAll(db) }, strata { db, _ in try strataIncludingAll(db) },
                grdb { db, _ in try grdbIncludingAll(db) }
            ]
        case .groupCount:
            return [
                raw { db, _ in try rawGroupCount(db) }, strata { db, _ in try strataGroupCount(db) },
                grdb { db, _ in try grdbGroupCount(db) }
            ]
        case .insertAll:
            // The records exist before the clock starts: the rows compare the inserts alone.
            func books(_ rows: Int) -> [BenchBook] {
                let authors = authorCount(rows)
                return (0..<rows).map { BenchBook.make($0, authors: authors, id: nil) }
            }
            return [
                Contestant(name: "raw") { path, rows in
                    let db = try Raw.open(path)
                    let records = books(rows)
                    return Prepared(work: { try rawInsertAll(db, records) }, close: { sqlite3_close_v2(db) })
                },
                Contestant(name: "strata") { path, rows in
                    let db = try Connection(storageLocation: .onDisk(path))
                    try db.execute(Workloads.pragmas)
                    let records = books(rows)
                    return Prepared(work: { try strataInsertAll(db, records) }, close: {})
                },
                Contestant(name: "grdb") { path, rows in
                    let queue = try RecordWorkloads.grdbQueue(path)
                    let records = books(rows).map(GRDBBook.init)
                    return Prepared(work: { try queue.write { try grdbInsertAll($0, records) } }, close: {})
                }
            ]
        case .wideRecord:
            return [
                raw { db, _ in try rawWideRecord(db) }, strata { db, _ in try strataWideRecord(db) },
                strata("strata hand-written") { db, _ in try strataHandWideRecord(db) }, grdb { db, _ in try grdbWideRecord(db) }
            ]
        }
    }

    // MARK: - Contenders (each function's name is what callgrind-records.sh counts)

    @inline(__always) static func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
    }

    @inline(__always) static func optionalText(_ statement: OpaquePointer, _ index: Int32) -> String? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : text(statement, index)
    }

    @inline(__always) static func readBook(_ statement: OpaquePointer, at offset: Int32) -> BenchBook {
        BenchBook(
            id: sqlite3_column_int64(statement, offset), authorId: sqlite3_column_int64(statement, offset + 1),
            title: text(statement, offset + 2), year: Int(sqlite3_column_int64(statement, offset + 3)),
            price: sqlite3_column_type(statement, offset + 4) == SQLITE_NULL ? nil : sqlite3_column_double(statement, offset + 4))
    }

    @inline(__always) static func readAuthor(_ statement: OpaquePointer, at offset: Int32) -> BenchAuthor {
        BenchAuthor(id: sqlite3_column_int64(statement, offset), name: text(statement, offset + 1), country: text(statement, offset + 2))
    }

    @inline(never) static func rawJoin(_ db: OpaquePointer) throws -> Int64 {
        let statement = try Raw.prepare(db, joinSQL)
        defer { sqlite3_finalize(statement) }
        var pairs: [(BenchBook, BenchAuthor)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            pairs.append((readBook(statement, at: 0), readAuthor(statement, at: 5)))
        }
        return pairs.reduce(0) { $0 &+ $1.0.checksum &+ $1.1.checksum }
    }

    @inline(never) static func strataJoin(_ db: Connection) throws -> Int64 {
        let pairs: [(BenchBook, BenchAuthor)] = try BenchBook.join(BenchAuthor.self, on: { $0.authorId == $1.id }).fetchAll(db)
        return pairs.reduce(0) { $0 &+ $1.0.checksum &+ $1.1.checksum }
    }

    @inline(never) static func grdbJoin(_ db: GRDB.Database) throws -> Int64 {
        let pairs = try GRDBBook.including(required: GRDBBook.author).asRequest(of: GRDBBookWithAuthor.self).fetchAll(db)
        return pairs.reduce(0) { $0 &+ $1.book.value.checksum &+ $1.author.value.checksum }
    }

    static func shelvesChecksum(_ shelves: [(BenchAuthor, [BenchBook])]) -> Int64 {
        shelves.reduce(0) { sum, shelf in
            shelf.1.reduce(sum &+ shelf.0.checksum) { $0 &+ $1.checksum &* (shelf.0.id ?? 0) }
        }
    }

    @inline(never) static func rawIncludingAll(_ db: OpaquePointer) throws -> Int64 {
        // Both statements read one snapshot, as Strata's and GRDB's do.
        try Raw.exec(db, "BEGIN")
        defer { try? Raw.exec(db, "COMMIT") }
        let parents = try Raw.prepare(db, authorsSQL)
        defer { sqlite3_finalize(parents) }
        var authors: [BenchAuthor] = []
        while sqlite3_step(parents) == SQLITE_ROW { authors.append(readAuthor(parents, at: 0)) }
        let children = try Raw.prepare(db, childrenSQL)
        defer { sqlite3_finalize(children) }
        var books: [Int64: [BenchBook]] = [:]
        books.reserveCapacity(authors.count)
        while sqlite3_step(children) == SQLITE_ROW {
            let book = readBook(children, at: 0)
            books[book.authorId, default: []].append(book)
        }
        let shelves = authors.map { ($0, books[$0.id ?? 0] ?? []) }
        return shelvesChecksum(shelves)
    }

    @inline(never) static func strataIncludingAll(_ db: Connection) throws -> Int64 {
        shelvesChecksum(try BenchAuthor.including(all: BenchAuthor.books).fetchAll(db))
    }

    @inline(never) static func grdbIncludingAll(_ db: GRDB.Database) throws -> Int64 {
        let shelves = try GRDBAuthor.including(all: GRDBAuthor.books).asRequest(of: GRDBAuthorWithBooks.self).fetchAll(db)
        return shelvesChecksum(shelves.map { ($0.author.value, $0.books.map(\.value)) })
    }

    static func groupsChecksum(_ groups: [(Int64, Int)]) -> Int64 {
        groups.reduce(0) { $0 &+ $1.0 &* Int64($1.1) &+ $1.0 }
    }

    @inline(never) static func rawGroupCount(_ db: OpaquePointer) throws -> Int64 {
        let statement = try Raw.prepare(db, groupCountSQL)
        defer { sqlite3_finalize(statement) }
        var groups: [(Int64, Int)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            groups.append((sqlite3_column_int64(statement, 0), Int(sqlite3_column_int64(statement, 1))))
        }
        return groupsChecksum(groups)
    }

    @inline(never) static func strataGroupCount(_ db: Connection) throws -> Int64 {
        groupsChecksum(try BenchBook.group(by: \.authorId).select { ($0.authorId, $0.id.count()) }.fetchAll(db))
    }

    @inline(never) static func grdbGroupCount(_ db: GRDB.Database) throws -> Int64 {
        let request = GRDBBook.select(GRDB.Column("authorId"), count(GRDB.Column("id"))).group(GRDB.Column("authorId"))
        var groups: [(Int64, Int)] = []
        let rows = try GRDB.Row.fetchCursor(db, request)
        while let row = try rows.next() { groups.append((row[0], row[1])) }
        return groupsChecksum(groups)
    }

    @inline(never) static func rawInsertAll(_ db: OpaquePointer, _ books: [BenchBook]) throws -> Int64 {
        try Raw.exec(db, "BEGIN")
        let statement = try Raw.prepare(db, insertSQL)
        defer { sqlite3_finalize(statement) }
        var rowIDs: [Int64] = []
        rowIDs.reserveCapacity(books.count)
        for book in books {
            try bindBook(statement, book)
            guard sqlite3_step(statement) == SQLITE_DONE else {
                _ = try? Raw.exec(db, "ROLLBACK")
                throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_reset(statement)
            rowIDs.append(sqlite3_last_insert_rowid(db))
        }
        try Raw.exec(db, "COMMIT")
        return rowIDs.reduce(0, &+)
    }

    @inline(never) static func strataInsertAll(_ db: Connection, _ books: [BenchBook]) throws -> Int64 {
        try BenchBook.insertAll(db, books).reduce(0, &+)
    }

    @inline(never) static func grdbInsertAll(_ db: GRDB.Database, _ books: [GRDBBook]) throws -> Int64 {
        var rowIDs: [Int64] = []
        rowIDs.reserveCapacity(books.count)
        for var book in books {
            try book.insert(db)
            rowIDs.append(db.lastInsertedRowID)
        }
        return rowIDs.reduce(0, &+)
    }

    @inline(never) static func rawWideRecord(_ db: OpaquePointer) throws -> Int64 {
        let statement = try Raw.prepare(db, contactSQL)
        defer { sqlite3_finalize(statement) }
        func date(_ index: Int32) -> Date? {
            guard let pointer = sqlite3_column_text(statement, index) else { return nil }
            return Raw.parseDefaultDate(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index))))
        }
        var contacts: [Contact] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            guard let createdAt = date(12) else { throw BenchError.sqlite("createdAt") }
            contacts.append(
                Contact(
                    id: sqlite3_column_int64(statement, 0), name: text(statement, 1), email: optionalText(statement, 2),
                    phone: optionalText(statement, 3), company: optionalText(statement, 4), jobTitle: optionalText(statement, 5),
                    street: optionalText(statement, 6), city: optionalText(statement, 7), postalCode: optionalText(statement, 8),
                    country: optionalText(statement, 9), notes: optionalText(statement, 10),
                    score: sqlite3_column_type(statement, 11) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 11),
                    createdAt: createdAt, updatedAt: date(13)))
        }
        return contacts.reduce(0) { $0 &+ $1.checksum }
    }

    @inline(never) static func strataWideRecord(_ db: Connection) throws -> Int64 {
        try Contact.fetchAll(db).reduce(0) { $0 &+ $1.checksum }
    }

    @inline(never) static func strataHandWideRecord(_ db: Connection) throws -> Int64 {
        let contacts: [HandContact] = try db.query(contactSQL)
        return contacts.reduce(0) { $0 &+ $1.value.checksum }
    }

    @inline(never) static func grdbWideRecord(_ db: GRDB.Database) throws -> Int64 {
        try GRDBContact.fetchAll(db, sql: contactSQL).reduce(0) { $0 &+ $1.value.checksum }
    }
}
