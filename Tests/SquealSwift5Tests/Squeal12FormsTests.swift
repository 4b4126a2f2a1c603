import Testing
import StrataSqueal

// Squeal 1.2's transaction, savepoint and introspection forms as ported code writes them, with
// Foundation's names reached through StrataSqueal alone, as on Squeal's platforms.

private func peopleDatabase() throws -> Database {
    let db = Database()
    try db.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, age INTEGER)")
    return db
}

@Test func squeal12TransactionCommitsAndRollsBackInSwift5() throws {
    let db = try peopleDatabase()
    try db.transaction {
        try db.insertInto("people", values: ["name": "Amelia"])
        try db.insertInto("people", values: ["name": "Brian"])
    }
    #expect(try db.countFrom("people") == 2)
    do {
        try db.transaction {
            try db.insertInto("people", values: ["name": "Cara"])
            throw NSError(domain: "Squeal12", code: 7, userInfo: nil)
        }
        Issue.record("the block's error must be rethrown")
    } catch let error as NSError {
        #expect(error.domain == "Squeal12" && error.code == 7)
    }
    #expect(try db.countFrom("people") == 2)
    #expect(!db.isInTransaction)

    // A stored block of Squeal's shape passes as is.
    let block: () throws -> Void = { _ = try db.insertInto("people", values: ["name": "Dana"]) }
    try db.transaction(block)
    #expect(try db.countFrom("people") == 3)
}

@Test func squeal12SavepointReleasesAndRollsBackInSwift5() throws {
    let db = try peopleDatabase()
    try db.savepoint("insert_people") {
        try db.insertInto("people", values: ["name": "Amelia"])
    }
    #expect(try db.countFrom("people") == 1)
    try db.transaction {
        try db.insertInto("people", values: ["name": "Brian"])
        #expect(throws: NSError.self) {
            try db.savepoint("inner") {
                try db.insertInto("people", values: ["name": "Cara"])
                throw NSError(domain: "Squeal12", code: 1, userInfo: nil)
            }
        }
        // Only the savepoint's insert is undone; the transaction goes on.
        #expect(db.isInTransaction)
    }
    #expect(try db.selectFrom("people", orderBy: "id") { $0.stringValue("name") } == ["Amelia", "Brian"])
    // Squeal's result-returning forms still resolve beside them.
    #expect(try db.savepoint("kept") { _ -> SavepointResult in .Rollback } == .Rollback)
    #expect(try db.transaction { _ -> TransactionResult in .Commit } == .Commit)
}

@Test func squeal12SchemaDoesNotThrowInSwift5() throws {
    let db = try peopleDatabase()
    let names: [String] = db.schema.tableNames
    #expect(names == ["people"])
    #expect(try db.readSchema().tableNames == ["people"])
    // When sqlite_master cannot be read, Squeal's property is empty and the throwing form says why.
    let denied = try peopleDatabase()
    try denied.authorizer { action, _, _, _, _ in action == .read ? .deny : .ok }
    #expect(denied.schema.schemaEntries.isEmpty)
    #expect(throws: SQLiteError.self) { try denied.readSchema() }
}

@Test func squeal12DropColumnDropsItsIndexesInSwift5() throws {
    let db = try peopleDatabase()
    try db.execute("DROP TABLE people")
    let schema = Schema(identifier: "people") { schema in
        schema.version(1) { v1 in
            v1.createTable("people") { t in
                t.primaryKey("id")
                t.column("name", type: .Text)
                t.column("age", type: .Integer)
            }
            v1.createIndex("people_age", on: "people", columns: ["age"])
            v1.createIndex("people_name", on: "people", columns: ["name"])
        }
        schema.version(2) { v2 in
            v2.alterTable("people") { $0.dropColumn("age") }
        }
    }
    try schema.migrate(db, toVersion: 1)
    try db.insertInto("people", values: ["name": "Amelia", "age": 31])
    try schema.migrate(db)
    #expect(db.schema.namesOfIndexesOnTable("people") == ["people_name"])
    #expect(try db.tableInfoForTableNamed("people")?.columnNames == ["id", "name"])
    #expect(try db.selectString("SELECT name FROM people") == "Amelia")
}

@Test func squeal12NumericColumnsReadAsDoubleInSwift5() throws {
    let db = Database()
    try db.execute("CREATE TABLE prices (id INTEGER PRIMARY KEY, amount NUMERIC)")
    try db.execute("INSERT INTO prices (amount) VALUES (32.00), (16.75)")
    #expect(try db.selectFrom("prices", orderBy: "id") { $0.doubleValue("amount") } == [32.0, 16.75])
    let rows: [Double?] = try db.query("SELECT amount FROM prices ORDER BY id") { $0[0] as Double? }
    #expect(rows == [32.0, 16.75])
}

@Test func squeal12ColumnTypesInSwift5() throws {
    let db = Database()
    let statement = try db.prepareStatement("SELECT 1 AS i, 2.5 AS r, 'x' AS t, x'00' AS b, NULL AS n")
    #expect(try statement.next())
    let types: [SQLiteColumnType] = (0..<5).map { statement.typeOfColumnAtIndex($0) }
    #expect(types == [.integer, .float, .text, .blob, .null])
    #expect(statement.typeOfColumnNamed("r") == SQLiteColumnType.float)
    switch statement.typeOfColumnAtIndex(0) {
    case .integer: break
    case .float, .text, .blob, .null: Issue.record("1 is an integer")
    }
}
