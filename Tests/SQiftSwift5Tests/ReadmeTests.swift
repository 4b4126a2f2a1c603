import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata

// SQift's README, as its users write it, compiled in Swift 5 mode.

enum DownloadState: Int {
    case pending, downloading, downloaded, failed
}

extension DownloadState: Binding {
    typealias BindingType = Int64

    var bindingValue: BindingValue { return .integer(Int64(rawValue)) }

    // SQift-era conformances force-cast: Strata only ever passes a value of BindingType.
    static func fromBindingValue(_ value: Any) -> DownloadState? {
        let rawValue = Int(value as! Int64)
        return DownloadState(rawValue: rawValue)
    }
}

struct Person: CodableBinding, Equatable {
    let id: Int64
    let firstName: String
    let lastName: String
    let age: UInt
}

struct Point: Codable, Equatable {
    let x: Double
    let y: Double
}

@Suite struct SQiftReadmeTests {
    @Test func creatingConnectionsAndExecuting() throws {
        let directory = try TemporaryDirectory()
        let onDiskConnection = try Connection(storageLocation: .onDisk(directory.path("path_to_db")))
        let inMemoryConnection = try Connection(storageLocation: .inMemory)
        let tempConnection = try Connection(storageLocation: .temporary)
        #expect(!onDiskConnection.fileName.isEmpty)
        #expect(inMemoryConnection.fileName.isEmpty && tempConnection.fileName.isEmpty)

        let connection = try Connection(storageLocation: .onDisk(directory.path("path_to_db")))
        try connection.execute("PRAGMA foreign_keys = true")
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        try connection.execute("INSERT INTO cars VALUES(1, 'Audi', 52642)")
        try connection.execute("INSERT INTO cars VALUES(2, 'Mercedes', 57127)")
        try connection.execute("UPDATE cars SET name = 'Honda' where id = 1")
        // The README writes 61_999; SQLite accepts digit separators only from 3.46, so plain digits.
        try connection.execute("UPDATE cars SET price = 61999 where name = 'Mercedes'")
        let price: Int? = try connection.query("SELECT price FROM cars WHERE id = 2")
        #expect(price == 61_999)
        try connection.execute("DELETE FROM cars where name = 'Mercedes'")
        try connection.execute("DROP TABLE cars")

        let readOnly = try Connection(storageLocation: .onDisk(directory.path("path_to_db")), readOnly: true, multiThreaded: false, sharedCache: false)
        #expect(readOnly.readOnly)
    }

    @Test func bindingAndRunning() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)").bind(1, "Audi", 52_642).run()
        try connection.prepare("INSERT INTO cars VALUES(:id, :name, :price)").bind([":id": 2, ":name": "Mercedes", ":price": 57_127]).run()
        try connection.run("INSERT INTO cars VALUES(?, ?, ?)", 3, "Skoda", 9_000)
        try connection.run("INSERT INTO cars VALUES(:id, :name, :price)", parameters: [":id": 4, ":name": "Volvo", ":price": 29_000])
        let names: [String] = try connection.query("SELECT name FROM cars ORDER BY id")
        #expect(names == ["Audi", "Mercedes", "Skoda", "Volvo"])
    }

    @Test func singleValuesRowsAndModels() throws {
        let db = try makeCars()
        let synchronous: Int? = try db.query("PRAGMA synchronous")
        #expect(synchronous == 2)
        // avg() is REAL; SQift converts only a matching storage class, so an integer type reads nil.
        let minPrice: UInt? = try db.query("SELECT avg(price) FROM cars WHERE price > ?", 40_000)
        #expect(minPrice == nil)
        let average: Double? = try db.query("SELECT avg(price) FROM cars WHERE price > ?", 40_000)
        #expect(average == 54_884.5)

        if let row = try db.query("SELECT name, type, price FROM cars WHERE type = ? LIMIT 1", "Sedan") {
            let name: String = row[0]
            let type: String = row[1]
            let price: UInt = row[2]
            #expect(name == "Audi" && type == "Sedan" && price == 52_642)
        } else {
            Issue.record("no row")
        }
        if let row = try db.query("SELECT name, type, price FROM cars WHERE type = ? LIMIT 1", "Sedan") {
            let name: String = row["name"]
            let type: String = row["type"]
            let price: UInt = row["price"]
            #expect(name == "Audi" && type == "Sedan" && price == 52_642)
        }

        let car: Car? = try db.query("SELECT name, type, price FROM cars WHERE type = ? LIMIT 1", "Sedan")
        #expect(car == Car(name: "Audi", type: "Sedan", price: 52_642))

        let names: [String] = try db.query("SELECT name FROM cars")
        #expect(names == ["Audi", "Mercedes", "Skoda"])
        let cars: [Car] = try db.query("SELECT name, type, price FROM cars WHERE price > ?", [20_000])
        #expect(cars.count == 2)

        let sql = "SELECT name, price FROM cars WHERE price > ?"
        let prices: [String: UInt] = try db.query(sql, 20_000) { ($0[0], $0[1]) }
        #expect(prices == ["Audi": 52_642, "Mercedes": 57_127])
    }

    @Test func datesAndCustomBindings() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let calendar = Calendar(identifier: .gregorian)
        func date(_ year: Int) -> Date {
            var components = DateComponents(year: year, month: 6, day: 1)
            components.timeZone = TimeZone(secondsFromGMT: 0)
            return calendar.date(from: components)!
        }
        try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, release_date TEXT)")
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "70s car", date(1975))
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "80s car", date(1983))
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "90s car", date(1992))
        try connection.execute("INSERT INTO cars(name, release_date) VALUES(?, ?)", "00s car", date(2001))
        let carCount: Int? = try connection.query(
            "SELECT count(*) FROM cars WHERE release_date >= date(?) AND release_date <= date(?)",
            date(1980),
            date(2000)
        )
        #expect(carCount == 2)
        let releaseDate: Date? = try connection.query("SELECT release_date FROM cars WHERE name = ? LIMIT 1", "80s car")
        #expect(releaseDate == date(1983))

        try connection.execute("CREATE TABLE downloads(name TEXT PRIMARY KEY, state INTEGER NOT NULL)")
        try connection.run("INSERT INTO downloads VALUES(?, ?)", "image1", DownloadState.pending)
        if let state: DownloadState = try connection.query("SELECT state FROM downloads WHERE name = 'image1'") {
            #expect(state == .pending)
        } else {
            Issue.record("no state")
        }
        // A TEXT value never reaches the force-casting fromBindingValue: it reads as nil.
        let fromText: DownloadState? = try connection.query("SELECT 'pending'")
        #expect(fromText == nil)
    }

    @Test func codableBindingsAndCollections() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let phil = Person(id: 1, firstName: "Phil", lastName: "Knight", age: 79)
        try connection.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, employee BLOB NOT NULL)")
        try connection.run("INSERT INTO employees(employee) VALUES(?)", phil)
        if let employee: Person = try connection.query("SELECT employee FROM employees WHERE id = 1") {
            #expect(employee.firstName == "Phil")
        }

        let points: ArrayBinding = [Point(x: 1.0, y: 2.0), Point(x: 3.0, y: 4.0), Point(x: 5.0, y: 6.0)]
        try connection.execute("CREATE TABLE stream(id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        try connection.run("INSERT INTO stream(data) VALUES(?)", points)
        let pointsQueried: ArrayBinding<Point>? = try connection.query("SELECT data FROM stream WHERE id = 1")
        #expect(pointsQueried?.elements.map { "(\($0.x), \($0.y))" } == ["(1.0, 2.0)", "(3.0, 4.0)", "(5.0, 6.0)"])
    }

    @Test func transactionsRollBack() throws {
        let connection = try Connection(storageLocation: .inMemory)
        try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.prepare("INSERT INTO cars VALUES(?, ?, ?)").bind(1, "Audi", 52642).run()
                try connection.prepare("INSERT IN cars VALUES(?, ?, ?)").bind(2, "Mercedes", 57127).run()
            }
        }
        let count: Int? = try connection.query("SELECT count(*) FROM cars")
        #expect(count == 0)
    }

    @Test func tracingPrintsExpandedSQL() throws {
        let connection = try Connection(storageLocation: .inMemory)
        var output: [String] = []
        connection.traceEvent { event in
            if case .statement(let statement, _) = event {
                output.append(statement)
            }
        }
        try connection.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)")
        try connection.prepare("INSERT INTO employees VALUES(?, ?)").bind(1, "Bill Bowerman").run()
        try connection.prepare("INSERT INTO employees VALUES(?, ?)").bind(2, "Phil Knight").run()
        let names: [String] = try connection.query("SELECT name FROM employees")
        #expect(names.count == 2)
        #expect(
            output == [
                "CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO employees VALUES(1, 'Bill Bowerman')",
                "INSERT INTO employees VALUES(2, 'Phil Knight')",
                "SELECT name FROM employees"
            ])
    }

    @Test func collationsFunctionsAndHooks() throws {
        let connection = try Connection(storageLocation: .inMemory)
        connection.createCollation(named: "NUMERIC") { lhs, rhs in
            return lhs.compare(rhs, options: .numeric, locale: .autoupdatingCurrent)
        }
        try connection.execute("CREATE TABLE \"values\"(text TEXT COLLATE 'NUMERIC' NOT NULL)")
        let values = ["string 1", "string 21", "string 12", "string 11", "string 02"]
        try values.forEach { try connection.run("INSERT INTO \"values\"(text) VALUES(?)", $0) }
        let extractedValues: [String] = try connection.query("SELECT * FROM \"values\" ORDER BY text")
        #expect(extractedValues == ["string 1", "string 02", "string 11", "string 12", "string 21"])

        try connection.addScalarFunction(named: "strip_unicode", argumentCount: 1) { _, values in
            guard
                let value = values.first, value.isText,
                let valueData = value.text.data(using: .ascii, allowLossyConversion: true),
                let asciiValue = String(data: valueData, encoding: .ascii)
            else { return .null }
            return .text(asciiValue)
        }
        let result: String? = try connection.prepare("SELECT strip_unicode(?)", "abc").query()
        #expect(result == "abc")

        var messages: [String] = []
        connection.updateHook { type, databaseName, tableName, rowID in
            var message = "\(type) row \(rowID)"
            if let databaseName = databaseName { message += " on \(databaseName)" }
            if let tableName = tableName { message += ".\(tableName)" }
            messages.append(message)
        }
        try connection.execute("CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
        try connection.execute(
            """
            INSERT INTO person(name) VALUES('Phil Knight');
            UPDATE person SET name = 'Bill Bowerman' WHERE id = 1;
            DELETE FROM person WHERE id = 1
            """
        )
        #expect(messages == ["insert row 1 on main.person", "update row 1 on main.person", "delete row 1 on main.person"])

        var shouldCancelCommit = false
        var rollbacks = 0
        connection.commitHook { return shouldCancelCommit }
        connection.rollbackHook { rollbacks += 1 }
        shouldCancelCommit = true
        #expect(throws: SQLiteError.self) { try connection.execute("INSERT INTO person(name) VALUES('x')") }
        #expect(rollbacks == 1)
        connection.commitHook(nil)

        try connection.authorizer { action, _, _, _, _ in
            guard action == .select || action == .read else { return .deny }
            return .ok
        }
        #expect(throws: SQLiteError.self) { try connection.execute("DELETE FROM person") }
    }

    @Test func checkpointsAndBusyTimeouts() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("db")))
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("CREATE TABLE t(x)")
        try connection.busyHandler(.timeout(1.0)) // 1 second
        _ = try connection.checkpoint(mode: .truncate)
        try connection.execute("VACUUM")
        // No interval traps.
        try connection.busyHandler(.timeout(.infinity))
        try connection.busyHandler(.timeout(-1))
        try connection.busyHandler(.timeout(.nan))
    }

    @Test func queuesPoolsAndDatabases() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("path_to_db")
        let queue = try ConnectionQueue(connection: Connection(storageLocation: .onDisk(path)))
        try queue.execute { connection in
            try connection.execute("PRAGMA foreign_keys = true")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
        }
        try queue.executeInTransaction { connection in
            try connection.execute("INSERT INTO cars VALUES(1, 'Audi', 52642)")
            try connection.execute("INSERT INTO cars VALUES(2, 'Mercedes', 57127)")
        }

        let pool = ConnectionPool(storageLocation: .onDisk(path))
        try pool.execute { connection in
            let count: Int? = try connection.query("SELECT count(*) FROM cars")
            #expect(count == 2)
        }

        let database = try Database(storageLocation: .onDisk(path), tableLockPolicy: .poll(0.01))
        try database.executeWrite { connection in
            try connection.execute("INSERT INTO cars VALUES(3, 'Skoda', 9000)")
        }
        try database.executeRead { connection in
            let count: Int? = try connection.query("SELECT count(*) FROM cars")
            #expect(count == 3)
        }

        try queue.executeInSavepoint("drop_cars_table") { connection in
            try connection.execute("DROP TABLE cars")
        }
    }

    @Test func migrations() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(storageLocation: .onDisk(directory.path("path_to_db")))
        let migrator = Migrator(connection: connection, desiredSchemaVersion: 2)
        var log: [String] = []
        try migrator.runMigrationsIfNecessary(
            migrationSQLForSchemaVersion: { version in
                var SQL: String = ""
                switch version {
                case 1:
                    return "CREATE TABLE cars(id INTEGER PRIMARY KEY, name TEXT, price INTEGER)"
                case 2:
                    return "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, address TEXT)"
                default:
                    break
                }
                SQL = ""
                return SQL
            },
            willMigrateToSchemaVersion: { version in
                log.append("Will migrate to schema version: \(version)")
            },
            didMigrateToSchemaVersion: { version in
                log.append("Did migrate to schema version: \(version)")
            }
        )
        #expect(
            log == [
                "Will migrate to schema version: 1", "Did migrate to schema version: 1",
                "Will migrate to schema version: 2", "Did migrate to schema version: 2"
            ])
        #expect(migrator.currentSchemaVersion == 2)

        // The closure form may open its own transactions, as in SQift.
        let next = Migrator(connection: connection, desiredSchemaVersion: 3)
        try next.runMigrationsIfNecessary(migrateDatabaseToSchemaVersion: { _, connection in
            try connection.transaction {
                try connection.execute("ALTER TABLE cars ADD COLUMN type TEXT")
            }
        })
        #expect(next.currentSchemaVersion == 3)
    }

    @Test func backups() throws {
        let sourceConnection = try Connection(storageLocation: .inMemory)
        try sourceConnection.execute("CREATE TABLE t(x); INSERT INTO t VALUES(1), (2)")
        let destinationConnection = try Connection(storageLocation: .inMemory)
        let done = DispatchSemaphore(value: 0)
        var succeeded = false
        let progress = try sourceConnection.backup(to: destinationConnection, completionQueue: DispatchQueue(label: "backup")) { result in
            succeeded = result.isSuccess
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(succeeded)
        #expect(progress.completedUnitCount == progress.totalUnitCount)
        let count: Int? = try destinationConnection.query("SELECT count(*) FROM t")
        #expect(count == 2)
    }
}
