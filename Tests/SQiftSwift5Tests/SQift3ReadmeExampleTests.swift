import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif

// The SQift 3 README's remaining examples, verbatim where they compile
// as written in SQift.

@Suite struct SQift3ReadmeExampleTests {
    @Test func stripUnicodeFunction() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.addScalarFunction(named: "strip_unicode", argumentCount: 1) { _, values in
            guard
                let value = values.first, value.isText,
                let valueData = value.text.data(using: .ascii, allowLossyConversion: true),
                let asciiValue = String(data: valueData, encoding: .ascii)
            else { return .null }

            return .text(asciiValue)
        }
        let sql = "SELECT strip_unicode(?)"
        let result1: String? = try connection.prepare(sql, "a").query()
        let result3: String? = try connection.prepare(sql, nil).query()
        #expect(result1 == "a")
        #expect(result3 == nil)
        try connection.addScalarFunction(named: "textof", argumentCount: 1) { _, values in
            .text(values[0].text)
        }
        let t: String? = try connection.query("SELECT textof(NULL)")
        #expect(t == "")
    }

    @Test func hooksAsInTheReadme() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
        var shouldCancelCommit = false
        var rollbacks = 0
        connection.commitHook { return shouldCancelCommit }
        connection.rollbackHook { rollbacks += 1 }
        var messages: [String] = []
        connection.updateHook { type, databaseName, tableName, rowID in
            var message = "\(type) row \(rowID)"
            if let databaseName = databaseName { message += " on \(databaseName)" }
            if let tableName = tableName { message += ".\(tableName)" }
            messages.append(message)
        }
        try connection.execute(
            """
            INSERT INTO person(name) VALUES('Phil Knight');
            UPDATE person SET name = 'Bill Bowerman' WHERE id = 1;
            DELETE FROM person WHERE id = 1
            """)
        #expect(messages == ["insert row 1 on main.person", "update row 1 on main.person", "delete row 1 on main.person"])
        shouldCancelCommit = true
        #expect(throws: SQLiteError.self) { try connection.execute("INSERT INTO person(name) VALUES('x')") }
        #expect(rollbacks == 1)
        let n: Int = try connection.query("SELECT count(*) FROM person")
        #expect(n == 0)

        try connection.authorizer { action, p1, p2, p3, p4 in
            guard action == .select || action == .read || action == .function else { return .deny }
            return .ok
        }
        #expect(throws: SQLiteError.self) { try connection.execute("DELETE FROM person") }
        let m: Int? = try connection.query("SELECT count(*) FROM person")
        #expect(m == 0)
    }

    @Test func datesAndUnsignedAverages() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE cars(name TEXT, release_date TEXT, price INTEGER)")
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "GMT")
        let date1975: Date! = formatter.date(from: "1975-06-01")
        let date1983: Date! = formatter.date(from: "1983-06-01")
        let date1992: Date! = formatter.date(from: "1992-06-01")
        let date2001: Date! = formatter.date(from: "2001-06-01")
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "70s car", date1975)
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "80s car", date1983)
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "90s car", date1992)
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "00s car", date2001)
        let date1980: Date! = formatter.date(from: "1980-01-01")
        let date2000: Date! = formatter.date(from: "2000-01-01")
        let carCount: Int = try connection.query(
            "SELECT count(*) FROM cars WHERE release_date >= date(?) AND release_date <= date(?)",
            date1980,
            date2000
        )
        #expect(carCount == 2)
        let sql = "SELECT release_date FROM cars WHERE name = ? LIMIT 1"
        let releaseDate: Date = try connection.query(sql, "80s car")
        #expect(releaseDate == date1983)
        try connection.execute("UPDATE cars SET price = 50000")
        let minPrice: UInt? = try connection.query("SELECT avg(price) FROM cars WHERE price > ?", 40_000)
        #expect(minPrice == nil) // REAL is not UInt's storage class, as in SQift
        let maxPrice: UInt? = try connection.query("SELECT max(price) FROM cars WHERE price > ?", 40_000)
        #expect(maxPrice == 50000)
    }

    @Test func collectionBindings() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE stream(id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        let points: ArrayBinding = [Point(x: 1, y: 2), Point(x: 3, y: 4)]
        try connection.run("INSERT INTO stream(data) VALUES(?)", points)
        let pointsQueried: ArrayBinding<Point>? = try connection.query("SELECT data FROM stream WHERE id = 1")
        #expect(pointsQueried?.elements == points.elements)
        let set: SetBinding<Int> = [1, 2, 3]
        let dictionary: DictionaryBinding<String, Int> = ["a": 1]
        try connection.run("INSERT INTO stream(data) VALUES(?), (?)", set, dictionary)
        let s: SetBinding<Int>? = try connection.query("SELECT data FROM stream WHERE id = 2")
        let d: DictionaryBinding<String, Int>? = try connection.query("SELECT data FROM stream WHERE id = ?", 3)
        #expect(s?.elements == [1, 2, 3])
        #expect(d?.elements == ["a": 1])
        #expect(ArrayBinding(elements: [1]).elements == [1])
    }

    @Test func readOnlyAndBackupInOneStep() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("r.db")
        let writer = try Connection(storageLocation: .onDisk(path))
        try writer.execute("CREATE TABLE t(a); INSERT INTO t VALUES(1)")
        let reader = try Connection(storageLocation: .onDisk(path), readOnly: true)
        #expect(reader.readOnly)
        do {
            try reader.execute("INSERT INTO t VALUES(2)")
            Issue.record("expected readonly error")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_READONLY)
            #expect(error.message == "attempt to write a readonly database")
        }
        let destination = try Connection(storageLocation: .inMemory)
        let done = DispatchSemaphore(value: 0)
        var result: Connection.BackupResult?
        _ = try writer.backup(to: destination, pageSize: -1, completionQueue: DispatchQueue(label: "b")) { r in
            result = r
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(result?.isSuccess == true)
        let n: Int = try destination.query("SELECT count(*) FROM t")
        #expect(n == 1)
    }

    @Test func traceDescriptions() throws {
        let connection = try Connection()
        var events: [Connection.TraceEvent] = []
        connection.traceEvent { events.append($0) }
        let _: Int? = try connection.query("SELECT ?", 5)
        connection.traceEvent(closure: nil)
        guard case .statement(let statement, let sql)? = events.first else {
            Issue.record("no statement event")
            return
        }
        #expect(statement == "SELECT 5")
        #expect(sql == "SELECT ?")
        #expect(events.map { $0.description }.first == #"TraceEvent.statement: { statement: "SELECT 5", sql: "SELECT ?" }"#)
    }

    @Test func migratorSQLForm() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
        var will: [UInt64] = []
        try migrator.runMigrationsIfNecessary(
            migrationSQLForSchemaVersion: { version in
                let SQL: String = ""
                switch version {
                case 1:
                    return "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)"
                case 2:
                    return "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, address TEXT)"
                default:
                    break
                }
                return SQL
            },
            willMigrateToSchemaVersion: { version in will.append(version) },
            didMigrateToSchemaVersion: { version in print("Did migrate to schema version: \(version)") }
        )
        #expect(will == [1, 2])
        let stamps: [String] = try connection.query("SELECT migration_timestamp FROM schema_migrations ORDER BY version")
        #expect(stamps.count == 2)
    }
}
