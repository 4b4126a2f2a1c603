import ArgumentParser
import Foundation
import Strata
import StrataSwiftly

/// A walk through every layer of Strata on a temporary database, printing each step: the core,
/// the four ported APIs, records, full-text and vector search, and sync.
struct Tour: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Walk through Strata's features on a temporary database.")

    struct Car: ExpressibleByRow, CustomStringConvertible {
        let name: String
        let price: Int
        init(row: Row) throws {
            guard let name: String = row["name"], let price: Int = row["price"] else {
                throw ExpressibleByRowError(type: Car.self, row: row)
            }
            self.name = name
            self.price = price
        }
        var description: String { "Car(name: \(name), price: \(price))" }
    }

    struct Owner: CodableBinding {
        let name: String
        let since: Int
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tour.sqlite").path

        section("Open a database file")
        let database = try Database(path: path)
        show("Database(path: \"\(path)\"): WAL, foreign keys on, a 5 s busy timeout, one writer and a pool of readers")

        section("Create a table and insert with bound parameters")
        let lastRowID = try database.write { db in
            try db.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER, owner BLOB)")
            let insert = try db.prepare("INSERT INTO cars(name, price, owner) VALUES(?, ?, ?)")
            try insert.bind("Audi", 52_642, Owner(name: "Ada", since: 2019)).run()
            try insert.bind("Mercedes", 57_127, nil).run()
            try db.run("INSERT INTO cars(name, price) VALUES(:name, :price)", [":name": "Skoda 'Octavia'", ":price": 24_000])
            return db.lastInsertRowID
        }
        show("3 rows inserted in one transaction (database.write); last rowid \(lastRowID)")

        section("Query single values, rows and models")
        try database.read { db in
            let count: Int? = try db.query("SELECT count(*) FROM cars")
            show("count(*) = \(count ?? 0)")
            if let row = try db.query("SELECT name, price FROM cars WHERE price > ? ORDER BY price", 50_000) {
                let name: String = row["name"]
                show("first row over 50,000: \(row) -> name \(name)")
            }
            let cars: [Car] = try db.query("SELECT name, price FROM cars ORDER BY id")
            cars.forEach { show("\($0)") }
            let prices: [String: Int] = try db.query("SELECT name, price FROM cars") { ($0[0], $0[1]) }
            show("dictionary: \(prices.sorted { $0.key < $1.key })")
        }

        section("Codable bindings")
        let owner: Owner? = try database.read { db in try db.query("SELECT owner FROM cars WHERE name = ?", "Audi") }
        show("owner decoded from a BLOB: \(owner.map { "\($0.name) since \($0.since)" } ?? "none")")

        section("A transaction that fails rolls back")
        do {
            try database.write { db in
                try db.run("DELETE FROM cars")
                try db.run("INSERT INTO cars(name) VALUES(?)", nil) // NOT NULL fails
            }
        } catch let error as SQLiteError {
            show("transaction failed: \(error.message)")
        }
        show("cars still there: \(try database.read { db in try db.query("SELECT count(*) FROM cars") as Int? } ?? 0)")

        // One connection, for what belongs to a connection: functions, hooks, tracing, backups.
        let db = try Connection(path: path)
        show("Connection(path: \"\(path)\"): one connection, for one thread at a time")

        section("Functions, collations and hooks")
        try db.addScalarFunction(named: "cents", argumentCount: 1, deterministic: true) { _, values in
            values[0].isNull ? .null : .long(values[0].long * 100)
        }
        show("cents(price) of the Audi: \(try db.query("SELECT cents(price) FROM cars WHERE name = ?", "Audi") as Int? ?? 0)")
        db.createCollation(named: "LENGTH") { lhs, rhs in
            lhs.count == rhs.count ? .orderedSame : (lhs.count < rhs.count ? .orderedAscending : .orderedDescending)
        }
        let byLength: [String] = try db.query("SELECT name FROM cars ORDER BY name COLLATE LENGTH")
        show("names by length (custom collation): \(byLength)")
        var changes: [String] = []
        db.updateHook { type, _, table, rowID in changes.append("\(type) \(table ?? "?") #\(rowID)") }
        try db.run("UPDATE cars SET price = price + 1 WHERE name = ?", "Audi")
        db.updateHook(nil)
        show("update hook saw: \(changes)")
        var traced: [String] = []
        db.traceEvent(mask: Connection.TraceEvent.statementMask) { event in
            if case .statement(_, let sql) = event { traced.append(sql) }
        }
        let _: Int? = try db.query("SELECT count(*) FROM cars WHERE price > ?", 30_000)
        db.traceEvent(closure: nil)
        show("traced with values expanded: \(traced)")
        let checkpoint = try db.checkpoint(mode: .truncate)
        show("WAL checkpoint: \(checkpoint.checkpointedFrames) of \(checkpoint.logFrames) frames")

        section("Backup to a second database")
        let copyPath = directory.appendingPathComponent("copy.sqlite").path
        let copy = try Connection(path: copyPath)
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome = "unknown"
        let progress = try db.backup(to: copy, completionQueue: DispatchQueue(label: "tour")) { result in
            outcome = result.isSuccess ? "success" : "\(result)"
            finished.signal()
        }
        finished.wait()
        show(
            "backup \(outcome): \(progress.completedUnitCount)/\(progress.totalUnitCount) pages, copy has \(try copy.query("SELECT count(*) FROM cars") as Int? ?? 0) cars"
        )

        section("Database: one writer, parallel readers, migrations")
        let copyDatabase = try Database(path: copyPath)
        // The Migrator runs its own transactions, so no transaction around it.
        try copyDatabase.writeWithoutTransaction { connection in
            let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
            let ran = try migrator.runMigrationsIfNecessary(migrationSQLForSchemaVersion: { version in
                version == 1 ? "ALTER TABLE cars ADD COLUMN color TEXT" : "CREATE INDEX cars_by_price ON cars(price)"
            })
            show("migrator ran \(ran) migrations; schema version \(migrator.currentSchemaVersion)")
        }
        let counts = try (0..<2).map { _ in try copyDatabase.read { try $0.query("SELECT count(*) FROM cars") as Int? ?? 0 } }
        show("reads through the reader pool: \(counts)")

        section("Described tables (SQLite.swiftly)")
        let idColumn = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
        let nameColumn = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)
        let contacts = TableDescription(name: "contact", columns: [idColumn, nameColumn])
        try db.createTable(describedBy: contacts)
        show(contacts.createTableSQL)
        let insertContact = try db.prepareInsertIntoTable(describedBy: contacts)
        try insertContact.insert([idColumn.name: 1, nameColumn.name: "Alice"])
        try insertContact.insert([idColumn.name: 2, nameColumn.name: "Bob"])
        for row in try db.readAllRows(fromTable: contacts) {
            show(row.map { "\($0.column.name): \($0.value.map { "\($0)" } ?? "NULL")" }.joined(separator: ", "))
        }

        try squealTour(db)
        try ormTour()
        try recordsTour(db)
        try syncTour(in: directory)

        section("Bad input is a thrown error, not a crash")
        do { try db.run("INSERT INTO cars(name) VALUES(?, ?)", "only one") } catch {
            show("\(error)")
        }
        print("\nDone. The database was \(path) (now removed).")
    }

    func section(_ title: String) { print("\n== \(title)") }
    func show(_ line: String) { print("   \(line)") }
}
