import Foundation
import Testing
@testable import Strata
#if canImport(SQLite3)
import SQLite3
#endif

// Review probe: SQift / SQLite.swiftly documented API in Swift 5 mode.

struct Employee2: Codable, Equatable {
    let id: Int64
    let name: String
}

extension Employee2: ExpressibleByRow {
    init(row: Row) throws {
        guard let id: Int64 = row["id"], let name: String = row["name"] else {
            throw ExpressibleByRowError(type: Employee2.self, row: row)
        }
        self.id = id
        self.name = name
    }
}

final class ContactTableDescription: TableDescription, @unchecked Sendable {
    let idColumn = ColumnDescription(name: "id", type: .int(size: 11), nullable: false)
    let nameColumn = ColumnDescription(name: "name", type: .char(size: 255), nullable: false)

    init() {
        super.init(name: "colors", columns: [idColumn, nameColumn])
    }

    struct Row {
        let id: Int
        let name: String
    }
}

enum MySchema {
    static let contactTableDescription = ContactTableDescription()
}

final class ContactInsertStatement: InsertStatement {
    init(connection: Connection) throws {
        try super.init(insertingIntoTable: MySchema.contactTableDescription, on: connection)
    }

    func insert(id: Int, name: String) throws {
        let table = MySchema.contactTableDescription
        try insert([table.idColumn.name: id, table.nameColumn.name: name])
    }
}

@Suite struct SQiftProbeTests {
    @Test func connectionInitialisersAndProperties() throws {
        let a = try Connection()
        #expect(a.fileName == "")
        let b = try Connection(storageLocation: .temporary, tableLockPolicy: .poll(0.01), readOnly: false, multiThreaded: false, sharedCache: false)
        #expect(b.readOnly == false)
        _ = b.threadSafe
        let c = try Connection(storageLocation: .inMemory, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try c.execute("CREATE TABLE t(a); INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)")
        #expect(c.lastInsertRowID == 2)
        #expect(c.changes == 1)
        #expect(c.totalChanges == 2)
        _ = c.tableLockPolicy
        _ = c.handle
        try c.check(SQLITE_OK)
        c.interrupt()
        #expect(StorageLocation.inMemory.path == ":memory:")
        #expect(StorageLocation.temporary.path == "")
        #expect("it's".sqift.addingSQLEscapes() == "'it''s'")
        let s: SQL = "SELECT 1"
        let one: Int? = try c.query(s)
        #expect(one == 1)
    }

    @Test func argumentKinds() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a, b, c)")
        try db.run("INSERT INTO t VALUES(?, ?, ?)", 1, nil, "x")
        let optional: Int? = nil
        try db.run("INSERT INTO t VALUES(?, ?, ?)", 2, optional, 2.5)
        try db.run("INSERT INTO t VALUES(?, ?, ?)", [3, nil, "y"])
        try db.run("INSERT INTO t VALUES(:a, :b, :c)", [":a": 4, ":b": nil, ":c": "z"])
        try db.run("INSERT INTO t VALUES(?, ?, ?)", [5, optional, Data([1])])
        let params: [Bindable?] = [6, nil, true]
        try db.run("INSERT INTO t VALUES(?, ?, ?)", params)
        let named: [String: Bindable?] = ["@a": 7, "@b": nil, "@c": Date()]
        try db.run("INSERT INTO t VALUES(@a, @b, @c)", named)
        try db.prepare("INSERT INTO t VALUES(?, ?, ?)", 8, nil, "w").run()
        try db.prepare("INSERT INTO t VALUES(?, ?, ?)", [9, nil, "v"]).run()
        try db.prepare("INSERT INTO t VALUES($a, $b, $c)", ["$a": 10, "$b": nil, "$c": "u"]).run()
        let count: Int = try db.query("SELECT count(*) FROM t WHERE b IS NULL")
        #expect(count == 10)
        let n1: Int? = try db.query("SELECT count(*) FROM t WHERE a > ?", 5)
        let n2: Int? = try db.query("SELECT count(*) FROM t WHERE a > ?", [5])
        let n3: Int? = try db.query("SELECT count(*) FROM t WHERE a > :a", [":a": 5])
        #expect(n1 == 5 && n2 == 5 && n3 == 5)
        let all: [Int] = try db.query("SELECT a FROM t ORDER BY a")
        #expect(all.count == 10)
        let dict: [Int: String] = try db.query("SELECT a, c FROM t WHERE typeof(c) = 'text' ORDER BY a") { ($0[0], $0[1]) }
        #expect(dict[1] == "x")
        let reduced: [Int: Int] = try db.query("SELECT a FROM t") { (result: [Int: Int], row: Row) in
            let a: Int = row[0]
            return (a, result.count)
        }
        #expect(reduced.count == 10)
        let rows: [Int] = try db.query("SELECT a FROM t WHERE a < ?", 3) { row in row[0] }
        #expect(rows == [1, 2])
        let first: String? = try db.query("SELECT c FROM t WHERE a = ?", 1) { row -> String in row[0] }
        #expect(first == "x")
        if let row = try db.query("SELECT a, b, c FROM t WHERE a = 1") {
            #expect(row.columnCount == 3)
            #expect(row.description == "[1, NULL, 'x']" || row.description.contains("NULL"))
            let c0 = row.columns[2]
            #expect(c0.description == "{ index: 2 name: \"c\", type: \"text\", value: x }")
            #expect(row.columns[1].dataType == .null)
            let v: Any? = row.value(at: 0)
            #expect(v as? Int64 == 1)
            let t: String? = row.value(forColumnName: "c")
            #expect(t == "x")
            let ti: Int? = row.value(at: 0)
            #expect(ti == 1)
            #expect(row.values.count == 3)
            var n = 0
            for _ in row { n += 1 }
            #expect(n == 3)
        } else {
            Issue.record("no row")
        }
    }

    @Test func statementForms() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE employees(id INTEGER PRIMARY KEY, name TEXT)")
        let insert = try db.prepare("INSERT INTO employees VALUES(?, ?)")
        try insert.bind(1, "Bill").run()
        try insert.bind([2, "Phil"]).run()
        let statement = try Statement(connection: db, sql: "SELECT * FROM employees ORDER BY id")
        #expect(statement.sql == "SELECT * FROM employees ORDER BY id")
        #expect(statement.isReadOnly)
        #expect(statement.isBusy == false)
        _ = statement.expandedSQL
        let e: Employee2? = try statement.query()
        #expect(e?.name == "Bill")
        let rest: [Employee2] = try statement.query()
        #expect(rest.map { $0.name } == ["Phil"])
        #expect(statement.columnCount == 2)
        #expect(statement.columnNames == ["id", "name"])
        #expect(statement.columnIndex(forName: "name") == 1)
        let s2 = try db.prepare("SELECT name FROM employees ORDER BY id")
        let names: [String] = try s2.query { row -> String in row[0] }
        #expect(names == ["Bill", "Phil"])
        let s3 = try db.prepare("SELECT id FROM employees WHERE id = ?")
        do {
            try s3.bind(1, 2)
            Issue.record("expected misuse")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_MISUSE)
            #expect(error.message == "Bind expected 1 parameters, instead received 2")
        }
        do {
            try db.prepare("SELECT :a").bind([":b": 1])
            Issue.record("expected misuse")
        } catch let error as SQLiteError {
            #expect(error.message == "Bind could not find index for key: ':b'")
        }
        let s4 = try db.prepare("SELECT id FROM employees")
        #expect(try s4.step() == true)
    }

    @Test func errors() throws {
        let db = try Connection()
        do {
            try db.execute("SELEC 1")
            Issue.record("expected error")
        } catch let error as SQLiteError {
            #expect(error.code == SQLITE_ERROR)
            #expect(error.codeDescription == "SQL logic error")
            #expect(error.description == #"{ message="near "SELEC": syntax error", code=1, codeDescription="SQL logic error" }"#)
        }
        let missing: Int? = try? db.query("SELECT 1 WHERE 0")
        #expect(missing == nil)
        #expect(throws: SQLiteError.self) { let _: Int = try db.query("SELECT 1 WHERE 0") }
        #expect(throws: SQLiteError.self) { let _: Int = try db.query("SELECT NULL", []) }
        #expect(throws: SQLiteError.self) { let _: Int = try db.query("SELECT :a", [":a": nil]) }
    }

    @Test func transactionsAndSavepoints() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a)")
        try db.transaction(transactionType: .immediate) { try db.run("INSERT INTO t VALUES(1)") }
        try db.transaction { try db.run("INSERT INTO t VALUES(2)") }
        try db.savepoint(named: "it's") { try db.run("INSERT INTO t VALUES(3)") }
        #expect(throws: SQLiteError.self) {
            try db.savepoint(named: "s") {
                try db.run("INSERT INTO t VALUES(4)")
                try db.execute("bogus")
            }
        }
        let n: Int = try db.query("SELECT count(*) FROM t")
        #expect(n == 3)
        #expect(Connection.TransactionType.exclusive.rawValue == "exclusive" || Connection.TransactionType.exclusive.rawValue == "EXCLUSIVE")
        try db.attachDatabase(from: .inMemory, withName: "other")
        try db.detachDatabase(named: "other")
    }

    @Test func functionsHooksTrace() throws {
        let db = try Connection()
        try db.addScalarFunction(named: "twice", argumentCount: 1, deterministic: true) { context, values in
            let v = values[0]
            if v.isNull { return .null }
            _ = context.auxilaryData[0]
            _ = v.type; _ = v.numericType; _ = v.integer; _ = v.double; _ = v.text; _ = v.data; _ = v.date; _ = v.buffer
            return .long(v.long * 2)
        }
        let r: Int? = try db.query("SELECT twice(?)", 21)
        #expect(r == 42)
        try db.addAggregateFunction(
            named: "cnt",
            argumentCount: -1,
            contextObjectFactory: { NSMutableArray() },
            stepFunction: { context, values in (context.stepObject as! NSMutableArray).add(values.count) },
            finalFunction: { context in .integer(Int32((context.finalObject as? NSMutableArray)?.count ?? 0)) }
        )
        let c: Int? = try db.query("SELECT cnt(1, 2) FROM (SELECT 1 UNION SELECT 2)")
        #expect(c == 2)
        try db.removeFunction(named: "cnt", argumentCount: -1)
        let results: [Connection.FunctionResult] = [.null, .integer(1), .long(1), .double(1), .text(""), .date(Date()), .data(Data()), .zeroData(1), .error(message: "m", code: nil)]
        #expect(results.count == 9)
        db.createCollation(named: "rev") { a, b in b.compare(a) }
        var events: [String] = []
        db.traceEvent(mask: Connection.TraceEvent.statementMask | Connection.TraceEvent.profileMask | Connection.TraceEvent.rowMask | Connection.TraceEvent.connectionClosedMask) { event in
            events.append(event.description)
        }
        let _: Int? = try db.query("SELECT ?", 5)
        db.traceEvent(closure: nil)
        #expect(!events.isEmpty)
        db.updateHook { type, dbName, table, rowID in _ = (type, dbName, table, rowID) }
        db.updateHook(nil)
        db.commitHook { false }
        db.commitHook(nil)
        db.rollbackHook { }
        db.rollbackHook(nil)
        try db.authorizer { action, p1, p2, p3, p4 in
            _ = (p1, p2, p3, p4)
            return action == .delete ? .deny : .ok
        }
        try db.authorizer(nil)
        try db.busyHandler(.timeout(1))
        try db.busyHandler(.custom { _ in false })
        try db.busyHandler(.defaultBehavior)
        let _: Connection.CheckpointMode = .passive
        let _: Connection.UpdateHookType = .insert
        let _: Connection.AuthorizerResult = .custom(0)
        let _: Connection.BackupResult = .cancelled
    }

    @Test func concurrencyTypes() throws {
        let directory = try TestDirectory()
        let path = directory.path("x.db")
        let database = try Database(storageLocation: .onDisk(path))
        try database.executeWrite { try $0.execute("CREATE TABLE t(a)") }
        try database.executeRead { connection in
            let n: Int = try connection.query("SELECT count(*) FROM t")
            #expect(n == 0)
        }
        _ = database.writerConnectionQueue
        _ = database.readerConnectionPool
        let d2 = try Database(storageLocation: .onDisk(path), tableLockPolicy: .fastFail, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        _ = d2
        let d3 = try Database()
        _ = d3
        let queue = ConnectionQueue(connection: try Connection())
        try queue.execute { _ in }
        try queue.executeInTransaction(transactionType: .exclusive) { _ in }
        try queue.executeInSavepoint(named: "x") { _ in }
        let pool = ConnectionPool(storageLocation: .onDisk(path), availableConnectionDrainDelay: 0.1) { _ in }
        try pool.execute { _ in }
    }

    @Test func migratorForms() throws {
        let db = try Connection()
        let migrator = Migrator(connection: db, desiredSchemaVersion: 2)
        #expect(migrator.migrationRequired)
        let v = try migrator.runMigrationsIfNecessary(
            migrateDatabaseToSchemaVersion: { version, connection in
                try connection.execute("CREATE TABLE t\(version)(a)")
            },
            willMigrateToSchemaVersion: { _ in },
            didMigrateToSchemaVersion: { _ in }
        )
        #expect(v == 2)
        #expect(migrator.currentSchemaVersion == 2)
        #expect(migrator.migrationTableExists)
        try migrator.createMigrationTable()
    }

    @Test func sqliteSwiftly() throws {
        let directory = try TestDirectory()
        let path = directory.path("c.db")
        let db = try Connection(toNewDatabaseAt: path)
        #expect(throws: (any Error).self) { try Connection(toNewDatabaseAt: path) }
        let table = MySchema.contactTableDescription
        try db.createTable(describedBy: table)
        let insert = try ContactInsertStatement(connection: db)
        try insert.insert(id: 1, name: "Alice")
        let generic = try db.prepareInsertIntoTable(describedBy: table)
        try generic.insert([table.idColumn.name: 2, table.nameColumn.name: "Bob"])
        #expect(throws: (any Error).self) { try generic.insert([table.idColumn.name: 3]) }
        let rows = try db.readAllRows(fromTable: table)
        #expect(rows.count == 2)
        for row in rows {
            for (column, value) in row { _ = (column.name, value) }
        }
        let read = rows.map { ContactTableDescription.Row(id: $0[table.idColumn.name] as! Int, name: $0[table.nameColumn.name] as! String) }
        #expect(read.map { $0.name } == ["Alice", "Bob"])
        #expect(rows[0][table.idColumn] as? Int == 1)
        #expect(table.idColumn.sqlRepresentation == "\"id\" INT(11) NOT NULL")
        #expect(ColumnDescription(name: "b", type: .bool, nullable: true).sqlRepresentation == "\"b\" BOOL NULL")
        #expect(ColumnType.char(size: 255).sqlRepresentation == "CHAR(255)")
        #expect(table.column(withName: "id") == table.idColumn)
        #expect(table.hasColumn(withName: "name"))
        let existing = try Connection(toExistingDatabaseAt: URL(fileURLWithPath: path))
        _ = existing
    }
}
