import Foundation
import GRDB
import SQLite3
import StrataORM

// The ORM rows: StrataORM against raw C and GRDB records, on the SQLiteORM README's user model.
// `orm-insert` inserts objects in one transaction (ids assigned by SQLite); `orm-getall` reads
// every object of the table into an array.

/// The SQLiteORM README's user, with `birthDate` an Int as its table says.
struct BenchUser: Initializable {
    var id = 0
    var firstName = ""
    var lastName = ""
    var birthDate = 0
    var imageUrl: String?
    var typeId = 0

    var checksum: Int64 {
        Int64(id &+ firstName.utf8.count &+ lastName.utf8.count &+ birthDate &+ (imageUrl?.utf8.count ?? 7) &+ typeId)
    }

    static func make(_ row: Int) -> BenchUser {
        BenchUser(
            id: 0, firstName: "First \(row)", lastName: "Last", birthDate: 600_000_000 + row,
            imageUrl: row % 3 == 0 ? nil : "https://example.com/\(row).png", typeId: row % 5)
    }
}

enum ORMWorkloads {
    enum Kind: String, CaseIterable {
        case insert = "orm-insert"
        case getAll = "orm-getall"

        var defaultRows: Int { self == .insert ? 50_000 : 200_000 }
    }

    static let createSQL = """
        CREATE TABLE users (id INTEGER PRIMARY KEY NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, \
        birth_date INTEGER NOT NULL, image_url TEXT, type_id INTEGER NOT NULL)
        """
    static let insertSQL = "INSERT INTO users (first_name, last_name, birth_date, image_url, type_id) VALUES (?, ?, ?, ?, ?)"
    static let selectSQL = "SELECT id, first_name, last_name, birth_date, image_url, type_id FROM users"

    /// Raw C, the ORM and GRDB, in the order of `main.swift`'s columns.
    @MainActor static let contenders: [(name: String, make: (Kind) -> Contender)] = [
        ("raw", rawContender), ("strata-orm", ormContender), ("grdb", grdbContender)
    ]

    /// Measures the ORM workloads the filter selects, as `main.swift` measures the others.
    @MainActor static func measureAll() throws -> [Result] {
        try Kind.allCases.filter { options.filter == nil || $0.rawValue.contains(options.filter!) }.map { kind in
            if !options.json { FileHandle.standardError.write(Data("running \(kind.rawValue)...\n".utf8)) }
            return try measure(kind)
        }
    }

    @MainActor static func measure(_ kind: Kind) throws -> Result {
        let rows = options.rows ?? kind.defaultRows
        let template = directory.appendingPathComponent("\(kind.rawValue)-template.sqlite").path
        try populate(kind, path: template, rows: rows)
        var measurements = Array(repeating: Measurement(), count: contenders.count)
        var expected: Int64?
        for round in 0...options.runs {
            for (index, contender) in contenders.enumerated() {
                let path = kind == .insert ? directory.appendingPathComponent("\(kind.rawValue)-\(contender.name).sqlite").path : template
                if kind == .insert { try copyDatabase(from: template, to: path) }
                let prepared = try contender.make(kind)(path, rows)
                let start = DispatchTime.now().uptimeNanoseconds
                var result = try prepared.work()
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                prepared.close()
                if kind == .insert { result = try storedChecksum(path: path) }
                if let expected, expected != result {
                    throw BenchError.mismatch("\(kind.rawValue): \(contender.name) computed \(result), expected \(expected)")
                }
                expected = result
                if round > 0 { measurements[index].times.append(elapsed) }
            }
        }
        return Result(workload: kind.rawValue, rows: rows, raw: measurements[0], strata: measurements[1], grdb: measurements[2])
    }

    static func populate(_ kind: Kind, path: String, rows: Int) throws {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        try Raw.exec(db, createSQL)
        if kind == .getAll {
            try Raw.exec(db, "BEGIN")
            let statement = try Raw.prepare(db, insertSQL)
            defer { sqlite3_finalize(statement) }
            for row in 0..<rows { try rawInsert(BenchUser.make(row), statement: statement, db: db) }
            try Raw.exec(db, "COMMIT")
        }
        try Raw.exec(db, "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// What an insert must leave behind, read back with raw C.
    static func storedChecksum(path: String) throws -> Int64 {
        let db = try Raw.open(path)
        defer { sqlite3_close_v2(db) }
        return try rawGetAll(db).reduce(0) { $0 &+ $1.checksum }
    }

    // MARK: raw C

    static func rawInsert(_ user: BenchUser, statement: OpaquePointer, db: OpaquePointer) throws {
        sqlite3_bind_text(statement, 1, user.firstName, -1, Raw.transient)
        sqlite3_bind_text(statement, 2, user.lastName, -1, Raw.transient)
        sqlite3_bind_int64(statement, 3, Int64(user.birthDate))
        if let url = user.imageUrl { sqlite3_bind_text(statement, 4, url, -1, Raw.transient) } else { sqlite3_bind_null(statement, 4) }
        sqlite3_bind_int64(statement, 5, Int64(user.typeId))
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.sqlite(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }

    static func rawText(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }

    static func rawGetAll(_ db: OpaquePointer) throws -> [BenchUser] {
        let statement = try Raw.prepare(db, selectSQL)
        defer { sqlite3_finalize(statement) }
        var users: [BenchUser] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            users.append(
                BenchUser(
                    id: Int(sqlite3_column_int64(statement, 0)), firstName: rawText(statement, 1) ?? "",
                    lastName: rawText(statement, 2) ?? "", birthDate: Int(sqlite3_column_int64(statement, 3)),
                    imageUrl: rawText(statement, 4), typeId: Int(sqlite3_column_int64(statement, 5))))
        }
        return users
    }

    static func rawContender(_ kind: Kind) -> Contender {
        { path, rows in
            let db = try Raw.open(path)
            let users = kind == .insert ? (0..<rows).map(BenchUser.make) : []
            return Prepared(
                work: {
                    switch kind {
                    case .insert:
                        let statement = try Raw.prepare(db, insertSQL)
                        defer { sqlite3_finalize(statement) }
                        try Raw.exec(db, "BEGIN")
                        for user in users { try rawInsert(user, statement: statement, db: db) }
                        try Raw.exec(db, "COMMIT")
                        return Int64(users.count)
                    case .getAll:
                        return try rawGetAll(db).reduce(0) { $0 &+ $1.checksum }
                    }
                }, close: { sqlite3_close_v2(db) })
        }
    }

    // MARK: StrataORM

    static func ormContender(_ kind: Kind) -> Contender {
        { path, rows in
            let storage = try Storage(
                filename: path,
                Table<BenchUser>(
                    name: "users",
                    Column(name: "id", keyPath: \BenchUser.id, constraints: primaryKey(), notNull()),
                    Column(name: "first_name", keyPath: \BenchUser.firstName, constraints: notNull()),
                    Column(name: "last_name", keyPath: \BenchUser.lastName, constraints: notNull()),
                    Column(name: "birth_date", keyPath: \BenchUser.birthDate, constraints: notNull()),
                    Column(name: "image_url", keyPath: \BenchUser.imageUrl),
                    Column(name: "type_id", keyPath: \BenchUser.typeId, constraints: notNull())))
            try storage.connection.execute(Workloads.pragmas)
            let users = kind == .insert ? (0..<rows).map(BenchUser.make) : []
            return Prepared(
                work: {
                    switch kind {
                    case .insert:
                        try storage.transaction {
                            for user in users { try storage.insert(user) }
                        }
                        return Int64(users.count)
                    case .getAll:
                        let all: [BenchUser] = try storage.getAll()
                        return all.reduce(0) { $0 &+ $1.checksum }
                    }
                }, close: {})
        }
    }

    // MARK: GRDB records

    struct GRDBUser: FetchableRecord, PersistableRecord {
        static let databaseTableName = "users"
        let value: BenchUser

        init(_ value: BenchUser) { self.value = value }

        init(row: GRDB.Row) throws {
            value = BenchUser(id: row[0], firstName: row[1], lastName: row[2], birthDate: row[3], imageUrl: row[4], typeId: row[5])
        }

        func encode(to container: inout PersistenceContainer) throws {
            container["first_name"] = value.firstName
            container["last_name"] = value.lastName
            container["birth_date"] = value.birthDate
            container["image_url"] = value.imageUrl
            container["type_id"] = value.typeId
        }
    }

    static func grdbContender(_ kind: Kind) -> Contender {
        { path, rows in
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: Workloads.pragmas) }
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let users = kind == .insert ? (0..<rows).map { GRDBUser(BenchUser.make($0)) } : []
            return Prepared(
                work: {
                    switch kind {
                    case .insert:
                        try queue.write { db in
                            for user in users { try user.insert(db) }
                        }
                        return Int64(users.count)
                    case .getAll:
                        let all = try queue.read { db in try GRDBUser.fetchAll(db, sql: selectSQL) }
                        return all.reduce(0) { $0 &+ $1.value.checksum }
                    }
                }, close: { try? queue.close() })
        }
    }
}
