import Foundation
import Testing
import StrataSqueal

// Squeal 1.x's documented API, written as a Squeal user would (only the import changed).

private func contactsDB() throws -> Database {
    let db = Database()
    try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "email TEXT NOT NULL", "age INTEGER", "score REAL", "photo BLOB"])
    return db
}

@Test func squealDatabaseSurfaceInSwift5() throws {
    let db = Database()
    #expect(db.isInMemoryDatabase && !db.isTemporaryDatabase && !db.isPersistentDatabase)
    let memory = Database.newInMemoryDatabase()
    #expect(memory.isInMemoryDatabase)
    let path = NSTemporaryDirectory() + "squeal-probe-\(UUID().uuidString).sqlite"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let file = try Database(path: path)
    #expect(file.isPersistentDatabase)
    #expect(file.path == path)
    try file.execute("CREATE TABLE t (x)")
    try file.execute("INSERT INTO t VALUES (?)", parameters: [7])
    #expect(file.lastInsertedRowId == 1)
    #expect(file.numberOfChangedRows == 1)
    let statement = try file.prepareStatement("SELECT x FROM t")
    #expect(try statement.next())
    #expect(statement.intValueAtIndex(0) == 7)
    #expect(try !statement.next())
    let userVersion: Int32 = try db.queryUserVersionNumber()
    #expect(userVersion == 0)
    try db.updateUserVersionNumber(3)
    #expect(try db.queryUserVersionNumber() == 3)
}

@Test func squealHelpersInSwift5() throws {
    let db = try contactsDB()
    let photo = Data([1, 2, 3])
    let amelia: RowId = try db.insertInto("contacts", values: ["name": "Amelia", "email": "a@x", "age": 30, "score": 1.5, "photo": photo])
    let bob = try db.insertInto("contacts", columns: ["name", "email", "age"], values: ["Bob", "b@x", nil])
    let insert = try db.prepareInsertInto("contacts", columns: ["name", "email"])
    try insert.bind(["Cy", "c@x"])
    try insert.execute()
    #expect(amelia == 1 && bob == 2)

    let names: [String] = try db.selectFrom(
        "contacts", columns: ["name"], whereExpr: "age IS NULL OR age > ?", orderBy: "name DESC", limit: 2, offset: 0, parameters: [1]
    ) { $0.stringValue("name") ?? "" }
    #expect(names == ["Cy", "Bob"])
    let ids: [RowId] = try db.selectIdsFrom("contacts", whereExpr: "email LIKE ?", parameters: ["%@x"])
    #expect(ids == [1, 2, 3])
    #expect(try db.countFrom("contacts", whereExpr: "age IS NULL") == 2)
    #expect(try db.countFrom("contacts", columns: ["age"]) == 1)

    #expect(try db.update("contacts", set: ["age": 40], whereExpr: "name = ?", parameters: ["Bob"]) == 1)
    #expect(try db.update("contacts", rowIds: [1, 2], values: ["score": 2.0]) == 2)
    #expect(try db.update("contacts", columns: ["age"], values: [50], whereExpr: "name = ?", parameters: ["Cy"]) == 1)
    #expect(try db.update("contacts", setExpr: "age = age + 1", whereExpr: "age IS NOT NULL") == 3)
    let update = try db.prepareUpdate("contacts", columns: ["email"], whereExpr: "id = ?")
    try update.bind(["new@x", 1])
    try update.execute()

    #expect(try db.selectString("SELECT email FROM contacts WHERE id = ?", parameters: [1]) == "new@x")
    #expect(try db.selectInt("SELECT age FROM contacts WHERE id = 1") == 31)
    #expect(try db.selectInt64("SELECT count(*) FROM contacts") == 3)
    #expect(try db.selectDouble("SELECT score FROM contacts WHERE id = 1") == 2.0)
    #expect(try db.selectBool("SELECT 1") == true)
    let first = try db.selectFirst("SELECT * FROM contacts ORDER BY id") { $0.blobValue("photo") }
    #expect(first == .some(photo))
    let all = try db.selectAll("SELECT id FROM contacts ORDER BY id") { $0.int64ValueAtIndex(0) ?? 0 }
    #expect(all == [1, 2, 3])

    #expect(try db.deleteFrom("contacts", rowIds: [3]) == 1)
    #expect(try db.deleteFrom("contacts", whereExpr: "name = ?", parameters: ["Bob"]) == 1)
    let delete = try db.prepareDeleteFrom("contacts", whereExpr: "id = ?")
    try delete.bind([1])
    try delete.execute()
    #expect(try db.deleteFrom("contacts") == 0)
    #expect(try db.countFrom("contacts") == 0)

    try db.createIndex("contacts_name", tableName: "contacts", columns: ["name"], unique: true, ifNotExists: true)
    try db.addColumnToTable("contacts", column: "url TEXT")
    try db.renameTable("contacts", to: "people")
    #expect(db.schema.tableNames == ["people"])
    try db.dropIndex("contacts_name")
    try db.dropIndex("contacts_name", ifExists: true)
    try db.dropTable("people")
    try db.dropTable("people", ifExists: true)
    #expect(escapeIdentifier("a\"b") == "\"a\"\"b\"")
}

@Test func squealTransactionsInSwift5() throws {
    let db = try contactsDB()
    try db.beginTransaction()
    #expect(db.isInTransaction)
    _ = try db.insertInto("contacts", values: ["email": "x"])
    try db.rollback()
    try db.beginTransaction()
    _ = try db.insertInto("contacts", values: ["email": "y"])
    try db.commit()
    let result = try db.transaction { db -> TransactionResult in
        try db.beginSavepoint("s")
        _ = try db.insertInto("contacts", values: ["email": "z"])
        try db.rollbackSavepoint("s")
        try db.releaseSavepoint("s")
        return .Commit
    }
    #expect(result == .Commit)
    let sp = try db.savepoint("outer") { db -> SavepointResult in
        _ = try db.insertInto("contacts", values: ["email": "w"])
        return .Release
    }
    #expect(sp == .Release)
    #expect(try db.selectFrom("contacts", orderBy: "id") { $0.stringValue("email") ?? "" } == ["y", "w"])
}

@Test func squealStatementInSwift5() throws {
    let db = try contactsDB()
    _ = try db.insertInto("contacts", values: ["name": "A", "email": "a", "age": 1, "score": 0.5, "photo": Data([9])])
    let statement = try db.prepareStatement("SELECT * FROM contacts WHERE age = ?", parameters: [1])
    #expect(try statement.next())
    #expect(statement.columnCount == 6)
    #expect(statement.columnNames == ["id", "name", "email", "age", "score", "photo"])
    #expect(statement.indexOfColumnNamed("email") == 2)
    #expect(statement.nameOfColumnAtIndex(1) == "name")
    #expect(statement.stringValueAtIndex(1) == "A")
    #expect(statement.realValue("score") == 0.5)
    #expect(statement.doubleValueAtIndex(4) == 0.5)
    #expect(statement.boolValue("age") == true)
    #expect(statement.blobValueAtIndex(5) == Data([9]))
    #expect(statement.valueOf("name") as? String == "A")
    #expect(statement.valueAtIndex(3) as? Int64 == 1)
    #expect(statement["name"] as? String == "A")
    #expect(statement[2] as? String == "a")
    #expect(statement.dictionaryValue["email"] as? String == "a")
    #expect(statement.values.count == 6)
    try statement.reset()
    #expect(try statement.next())
    try statement.reset()
    statement.clearParameters()
    let named = try db.prepareStatement("SELECT $a + :b")
    #expect(named.parameterCount == 2)
    #expect(named.indexOfParameterNamed("$a") == 1)
    try named.bind(namedParameters: ["$a": 1, ":b": 2])
    #expect(try named.selectNextInt() == 3)
    try named.reset()
    try named.bindParameter("$a", value: 10)
    try named.bindIntValue(5, atIndex: 2)
    #expect(try named.selectNextInt64() == 15)
    let rows = try db.prepareStatement("SELECT name FROM contacts").selectRows()
    #expect(rows.count == 1)
}

final class CountingPoolDelegate: DatabasePoolDelegate {
    var opened = 0
    var closed = 0
    func databaseOpened(_ database: Database) throws {
        opened += 1
        try database.execute("PRAGMA foreign_keys = ON")
    }
    func databaseClosed(_ database: Database) { closed += 1 }
}

@Test func squealDatabasePoolInSwift5() throws {
    let path = NSTemporaryDirectory() + "squeal-pool-\(UUID().uuidString).sqlite"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let delegate = CountingPoolDelegate()
    let pool = DatabasePool(databasePath: path, delegate: delegate)
    let db = try pool.dequeueDatabase()
    #expect(delegate.opened == 1)
    try db.execute("CREATE TABLE t (x)")
    pool.enqueueDatabase(db)
    let again = try pool.dequeueDatabase()
    #expect(again === db)
    pool.removeDatabase(again)
    pool.drain()
    #expect(pool.databasePath == path)
}

let PeopleSchema = Schema { schema in
    schema.version(1) { v1 in
        v1.createTable("people") { t in
            t.primaryKey("id", autoincrement: true)
            t.column("name", type: .Text, constraints: ["NOT NULL"])
            t.column("age", type: .Integer)
            t.column("score", type: .Real)
            t.column("photo", type: .Blob)
            t.constraint("CHECK (age >= 0)", named: "age_positive")
        }
        v1.createTable("tags") { t in
            t.primaryKey("id")
            t.column("label", type: .Text)
        }
        v1.createIndex("people_name", on: "people", columns: ["name"], unique: true)
    }
    schema.version(2) { v2 in
        v2.alterTable("people") { t in
            t.addColumn("nickname", type: .Text, initialExpr: "name")
            t.alterColumn("age", renameTo: "years", changeTypeTo: .Integer, setConstraints: ["NOT NULL"], setValue: "coalesce(years, 0)")
            t.dropColumn("photo")
            t.dropConstraint(named: "age_positive")
            t.addConstraint("CHECK (years < 200)", named: "sane_age")
        }
        v2.renameIndex("people_name", to: "people_by_name")
        v2.renameTable("tags", to: "labels")
    }
    schema.version(3) { v3 in
        v3.dropIndex("people_by_name")
        v3.dropTable("labels")
        v3.execute { db in
            _ = try db.insertInto("people", values: ["name": "seed", "years": 1])
        }
    }
}

@Test func squealSchemaDSLInSwift5() throws {
    let db = Database()
    try PeopleSchema.migrate(db, toVersion: 1)
    _ = try db.insertInto("people", values: ["name": "Ann"])
    #expect(try PeopleSchema.migrate(db, options: .ResetOldDatabaseVersions))
    let info = try #require(try db.tableInfoForTableNamed("people"))
    #expect(info.columnNames == ["id", "name", "years", "score", "nickname"])
    let years: ColumnInfo? = info["years"]
    #expect(years?.notNull == true)
    #expect(years?.type == "INTEGER")
    #expect(try db.selectFrom("people", orderBy: "id") { $0.stringValue("nickname") } == ["Ann", nil])
    let schemaInfo: SchemaInfo = db.schema
    #expect(schemaInfo.tableNames == ["people"])
    #expect(schemaInfo.indexNames == [])
    #expect(PeopleSchema.latestVersion == 3)
    try PeopleSchema.reset(db)
    #expect(try db.queryUserVersionNumber() == 0)

    do {
        try db.updateUserVersionNumber(9)
        _ = try PeopleSchema.migrate(db)
        Issue.record("expected unknownDatabaseVersion")
    } catch let error as SquealMigrationError {
        #expect(error == .unknownDatabaseVersion(dbVersion: 9))
    }
}

@Test func squealBindableValuesInSwift5() throws {
    let db = Database()
    try db.createTable("v", definitions: ["a", "b", "c", "d", "e", "f", "g", "h"])
    let optional: String? = nil
    _ = try db.insertInto(
        "v", columns: ["a", "b", "c", "d", "e", "f", "g", "h"], values: [1, "s", 2.5, true, Data([1]), NSData(data: Data([2])), Int64(3), optional])
    let row = try #require(try db.selectFirst("SELECT * FROM v") { $0.dictionaryValue })
    #expect(row["a"] as? Int64 == 1)
    #expect(row["d"] as? Int64 == 1)
    #expect(row["f"] as? Data == Data([2]))
    #expect(row["h"] == nil)
    #expect(row.count == 7)
}

@Test func squealNamedParametersAndCloseInSwift5() throws {
    let db = Database()
    try db.execute("CREATE TABLE t (a, b)")
    try db.execute("INSERT INTO t VALUES (:a, $b)", namedParameters: ["a": 1, "$b": "x"])
    let statement = try db.prepareStatement("SELECT b FROM t WHERE a = @a", namedParameters: ["a": 1])
    #expect(try statement.next())
    #expect(statement.stringValue("b") == "x")
    statement.close()
    // Closing ended the run and cleared the parameters: `a = NULL` matches nothing.
    #expect(try statement.selectNextString() == nil)
    #expect(throws: (any Error).self) { try db.execute("SELECT :a", namedParameters: ["missing": 1]) }
}

@Test func squealPoolIgnoresForeignConnectionsInSwift5() throws {
    let path = NSTemporaryDirectory() + "squeal-pool-\(UUID().uuidString).sqlite"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let pool = DatabasePool(databasePath: path)
    let foreign = Database()
    try foreign.execute("CREATE TABLE t (x)")
    try foreign.beginTransaction()
    try foreign.execute("INSERT INTO t VALUES (1)")
    pool.enqueueDatabase(foreign)
    #expect(foreign.isInTransaction)
    #expect(pool.idleDatabaseCount == 0)
    try foreign.commit()

    let db = try pool.dequeueDatabase()
    try db.beginTransaction()
    pool.enqueueDatabase(db)
    #expect(!db.isInTransaction)
    #expect(pool.idleDatabaseCount == 1)
}

@Test func squealUserVersionRoundTripsInSwift5() throws {
    let db = Database()
    let version = try db.queryUserVersionNumber()
    try db.updateUserVersionNumber(version + 1)
    try db.updateUserVersionNumber(7)
    let narrow: Int32 = 8
    try db.updateUserVersionNumber(narrow)
    #expect(try db.queryUserVersionNumber() == 8)
    let tooBig = Int(Int32.max) + 1
    #expect(throws: SQLiteError.self) { try db.updateUserVersionNumber(tooBig) }
    #expect(try db.queryUserVersionNumber() == 8)
}

@Test func squealIntrospectionInSwift5() throws {
    let db = Database()
    try db.createTable("people", definitions: ["id INTEGER PRIMARY KEY", "name TEXT NOT NULL DEFAULT 'x'", "email TEXT UNIQUE"])
    try db.createIndex("people_name", tableName: "people", columns: ["name"], partialExpr: "name <> ''")
    try db.execute("CREATE VIEW named AS SELECT name FROM people")

    let schema: SchemaInfo = db.schema
    #expect(schema.tableNames == ["people"])
    #expect(schema["named"]?.isView == true)
    #expect(schema.entryNamed("people")?.isTable == true)
    #expect(schema.tableNamed("people")?.tableName == "people")
    #expect(schema.namesOfIndexesOnTable("people").sorted() == ["people_name", "sqlite_autoindex_people_1"])
    #expect(schema.indexesOnTable("people").count == 2)
    #expect(schema.indexNames.contains("people_name"))
    let entry: SchemaEntryInfo = try #require(schema.entryNamed("people_name"))
    #expect(entry.isIndex && entry.rootPage > 0 && entry.sql?.contains("CREATE INDEX") == true)

    let info: TableInfo = try #require(try db.tableInfoForTableNamed("people"))
    #expect(info.name == "people")
    let name: ColumnInfo = try #require(info["name"])
    #expect(name.index == 1 && name.type == "TEXT" && name.notNull && name.defaultValue == "'x'" && name.primaryKeyIndex == 0)
    #expect(info["id"]?.primaryKeyIndex == 1)
    let index: IndexInfo = try #require(info.indexNamed("people_name"))
    #expect(index.isPartial && !index.isUnique && index.origin == .CreateIndex)
    #expect(index.columnNames == ["name"])
    let indexed: IndexedColumnInfo? = index.columns.first
    #expect(indexed?.name == "name")
    #expect(info.indexes.first { $0.origin == .UniqueConstraint }?.columnNames == ["email"])
    #expect(try db.tableInfoForTableNamed("missing") == nil)
}

@Test func squealPreparedHelpersAndSteppingInSwift5() throws {
    let db = Database()
    try db.createTable("t", definitions: ["id INTEGER PRIMARY KEY", "name TEXT", "score REAL", "flag", "data BLOB"])
    let insert = try db.prepareInsertInto("t", columns: ["name", "score", "flag", "data"])
    try insert.execute(["a", 1.5, true, Data([1])])
    try insert.execute(["b", 2.5, false, Data()])
    try insert.execute(["c", nil, nil, nil])

    let select = try db.prepareSelectFrom("t", columns: ["name"], whereExpr: "id > ?", orderBy: "id", parameters: [1])
    #expect(try select.select { $0.stringValueAtIndex(0) ?? "" } == ["b", "c"])
    #expect(try select.select([0]) { $0.stringValueAtIndex(0) ?? "" } == ["a", "b", "c"])
    let ids = try db.prepareSelectIdsFrom("t", whereExpr: "score IS NOT NULL", orderBy: "id DESC")
    #expect(try ids.select { $0.int64ValueAtIndex(0) ?? 0 } == [2, 1])

    let byName = try db.prepareStatement("SELECT score, flag, data, name FROM t WHERE name = :name")
    try byName.bindStringValue("a", named: "name")
    #expect(try byName.selectNextDouble() == 1.5)
    try byName.reset()
    #expect(try byName.selectNext { $0.boolValueAtIndex(1) } == .some(true))
    try byName.reset()
    #expect(try byName.selectNextRow()?["name"] as? String == "a")
    let blobs = try db.prepareStatement("SELECT data FROM t WHERE id = ?")
    try blobs.bindInt64Value(2, atIndex: 1)
    #expect(try blobs.selectNextBlob() == Data())
    let strings = try db.prepareStatement("SELECT name FROM t WHERE id = ?")
    #expect(try strings.selectNextRow([3])?["name"] as? String == "c")
    try strings.reset()
    try strings.bindNullParameter(atIndex: 1)
    #expect(try strings.selectNextString() == nil)
    try strings.reset()
    try strings.bindDoubleValue(1, atIndex: 1)
    #expect(try strings.selectNextString() == "a")
    let named = try db.prepareStatement("SELECT $x IS NULL, $y")
    try named.bindNullParameter(named: "x")
    try named.bindBoolValue(true, named: "y")
    #expect(try named.selectNextBool() == true)
    try named.reset()
    try named.bindBlobValue(Data([7]), named: "$x")
    try named.bindDoubleValue(0.25, named: "y")
    #expect(try named.selectRows().first?["$y"] as? Double == 0.25)

    let update = try db.prepareUpdate("t", setExpr: "score = coalesce(score, 0) + ?", whereExpr: "id = ?", parameters: [1, 3])
    try update.execute()
    #expect(try db.selectDouble("SELECT score FROM t WHERE id = 3") == 1)
    let delete = try db.prepareDeleteFrom("t", whereExpr: "id = ?", parameters: [3])
    try delete.execute()
    #expect(try db.countFrom("t") == 2)
}

private struct DeliberateFailure: Error {}

@Test func squealFailingTransactionsAndSavepointsInSwift5() throws {
    let db = Database()
    try db.createTable("t", definitions: ["x"])
    #expect(throws: DeliberateFailure.self) {
        try db.transaction { db -> TransactionResult in
            _ = try db.insertInto("t", values: ["x": 1])
            throw DeliberateFailure()
        }
    }
    #expect(!db.isInTransaction)
    #expect(throws: DeliberateFailure.self) {
        try db.savepoint("top") { db -> SavepointResult in
            _ = try db.insertInto("t", values: ["x": 2])
            throw DeliberateFailure()
        }
    }
    #expect(!db.isInTransaction)
    try db.transaction { db in
        _ = try db.insertInto("t", values: ["x": 3])
        _ = try? db.savepoint("inner \"sp\"") { db -> SavepointResult in
            _ = try db.insertInto("t", values: ["x": 4])
            throw DeliberateFailure()
        }
        #expect(db.isInTransaction)
        return .Commit
    }
    #expect(try db.selectAll("SELECT x FROM t") { $0.intValueAtIndex(0) ?? 0 } == [3])
    #expect(throws: (any Error).self) { try db.transaction { db in try db.transaction { _ in .Commit } } }
    #expect(!db.isInTransaction)
}

@Test func squealDatabasePathFormsInSwift5() throws {
    let memory = try Database(path: ":memory:")
    #expect(memory.isInMemoryDatabase && memory.path == ":memory:")
    let temporary = try Database(path: "")
    #expect(temporary.isTemporaryDatabase && temporary.path == "")
    try temporary.execute("CREATE TABLE t (x)")
    #expect(throws: (any Error).self) { try Database(path: "/nonexistent-dir-\(UUID().uuidString)/db.sqlite") }
}

final class RefusingPoolDelegate: DatabasePoolDelegate {
    func databaseOpened(_ database: Database) throws { throw DeliberateFailure() }
    func databaseClosed(_ database: Database) {}
}

@Test func squealPoolDelegateRefusalThrowsInSwift5() throws {
    let path = NSTemporaryDirectory() + "squeal-pool-\(UUID().uuidString).sqlite"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let pool = DatabasePool(databasePath: path, delegate: RefusingPoolDelegate())
    #expect(throws: DeliberateFailure.self) { try pool.dequeueDatabase() }
    #expect(pool.activeDatabaseCount == 0 && pool.idleDatabaseCount == 0)
    pool.delegate = nil
    let db = try pool.dequeueDatabase()
    #expect(pool.activeDatabaseCount == 1)
    pool.removeDatabase(db)
    #expect(pool.activeDatabaseCount == 0)
}
