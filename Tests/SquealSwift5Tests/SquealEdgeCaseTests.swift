import Foundation
import Testing
import StrataSqueal

// Awkward input to Squeal's helpers and schema DSL: each call either works or throws.

@Test func squealHelpersQuoteAwkwardNamesInSwift5() throws {
    let db = Database()
    try db.createTable("my \"table\"", definitions: ["\"a b\" TEXT", "\"order\" INTEGER"])
    let id = try db.insertInto("my \"table\"", values: ["a b": "x'); DROP TABLE t; --", "order": 1])
    _ = try db.insertInto("my \"table\"", columns: ["a b", "order"], values: ["y", 2])
    #expect(try db.countFrom("my \"table\"") == 2)
    let values: [String] = try db.selectFrom("my \"table\"", columns: ["a b"], orderBy: "rowid") { $0.stringValue("a b") ?? "" }
    #expect(values == ["x'); DROP TABLE t; --", "y"])
    #expect(try db.selectIdsFrom("my \"table\"") == [1, 2])
    #expect(try db.update("my \"table\"", rowIds: [id], values: ["order": 5]) == 1)
    #expect(try db.update("my \"table\"", set: ["a b": "z"], whereExpr: "\"order\" = ?", parameters: [5]) == 1)
    try db.createIndex("idx \"q\"", tableName: "my \"table\"", columns: ["a b", "order"])
    #expect(try db.tableInfoForTableNamed("my \"table\"")?.indexNames == ["idx \"q\""])
    #expect(try db.deleteFrom("my \"table\"", rowIds: []) == 0)
    #expect(try db.deleteFrom("my \"table\"", rowIds: [1, 2]) == 2)
    try db.addColumnToTable("my \"table\"", column: "\"c\" TEXT")
    try db.renameTable("my \"table\"", to: "other 'one'")
    try db.dropIndex("idx \"q\"")
    try db.dropTable("other 'one'")
    #expect(throws: (any Error).self) { try db.countFrom("missing") }
    #expect(throws: (any Error).self) { try db.insertInto("missing", values: ["a": 1]) }
    #expect(throws: (any Error).self) { try db.createTable("x", definitions: []) }
}

@Test func squealEmptyArgumentsDoNotCrashInSwift5() throws {
    let db = Database()
    try db.createTable("t", definitions: ["a DEFAULT 7"])
    let id = try db.insertInto("t", values: [:])
    #expect(try db.selectInt("SELECT a FROM t WHERE rowid = ?", parameters: [id]) == 7)
    // No columns: an insert takes every default, an update has nothing to set and says so.
    let defaulted = try db.insertInto("t", columns: [], values: [])
    #expect(defaulted == id + 1)
    #expect(try db.selectInt("SELECT a FROM t WHERE rowid = ?", parameters: [defaulted]) == 7)
    #expect(throws: SQLiteError.self) { try db.update("t", set: [:]) }
    #expect(throws: SQLiteError.self) { try db.update("t", rowIds: [1], values: [:]) }
    #expect(throws: SQLiteError.self) { try db.update("t", columns: [], values: []) }
    let insertDefaults = try db.prepareInsertInto("t", columns: [])
    try insertDefaults.execute()
    #expect(try db.countFrom("t") == 3)
    #expect(try db.selectInt("SELECT count(*) FROM t WHERE a = 7") == 3)
    #expect(throws: (any Error).self) { try db.insertInto("t", columns: ["a"], values: [1, 2]) }
    #expect(throws: (any Error).self) { try db.update("t", columns: ["a", "a"], values: [1]) }
    _ = try db.selectFrom("t", limit: -1, offset: -5) { $0.intValue("a") }
    #expect(try db.selectFirst("SELECT a FROM t WHERE 0") { $0.intValue("a") } == nil)
    let statement = try db.prepareStatement("SELECT a FROM t")
    #expect(statement.intValue("nope") == nil)
    #expect(statement.intValueAtIndex(99) == nil)
    #expect(statement.intValueAtIndex(-1) == nil)
    #expect(statement.valueAtIndex(Int.max) == nil)
    #expect(throws: (any Error).self) { try statement.bindIntValue(1, atIndex: Int.max) }
    #expect(throws: (any Error).self) { try statement.bindParameter("missing", value: 1) }
    #expect(throws: (any Error).self) {
        try db.updateUserVersionNumber(Int32.min); _ = try Schema { $0.version(1) { _ in } }.migrate(db)
    }
}

@Test func squealSchemaMistakesThrowInSwift5() throws {
    let bad = Schema { schema in
        schema.version(1) { v in
            v.alterTable("nowhere") { t in t.addColumn("x", type: .Text) }
        }
    }
    #expect(throws: (any Error).self) { try bad.migrate(Database()) }
    let dropMissing = Schema { schema in
        schema.version(1) { v in
            v.createTable("t") { t in t.column("a", type: .Text) }
            v.alterTable("t") { t in t.dropColumn("missing") }
        }
    }
    #expect(throws: (any Error).self) { try dropMissing.migrate(Database()) }
    let duplicate = Schema { schema in
        schema.version(1) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
        schema.version(1) { v in v.createTable("u") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: (any Error).self) { try duplicate.migrate(Database()) }
    let good = Schema { schema in
        schema.version(1) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: SquealMigrationError.unreachableDatabaseVersion(fromVersion: 0, toVersion: 5)) { try good.migrate(Database(), toVersion: 5) }
    #expect(throws: (any Error).self) { try good.migrate(Database(), toVersion: -1) }
    let empty = Schema { _ in }
    #expect(try empty.migrate(Database()) == false)
}

@Test func squealSchemaDSLQuotesAwkwardNamesInSwift5() throws {
    let weird = Schema(identifier: "weird") { schema in
        schema.version(1) { v in
            v.createTable("my \"t\"") { t in
                t.primaryKey("id")
                t.column("a b", type: .Text, constraints: ["NOT NULL"])
                t.column("order", type: .Integer)
            }
            v.createIndex("i 'x'", on: "my \"t\"", columns: ["a b"], partialExpr: "\"a b\" <> ''", unique: true)
        }
        schema.version(2) { v in
            v.alterTable("my \"t\"") { t in
                t.alterColumn("a b", renameTo: "c \"d\"", setConstraints: [])
                t.dropColumn("order")
                t.addColumn("select", type: .Real, initialExpr: "1.5")
            }
            v.renameTable("my \"t\"", to: "our 't'")
        }
    }
    let db = Database()
    try weird.migrate(db, toVersion: 1)
    _ = try db.insertInto("my \"t\"", values: ["a b": "v", "order": 2])
    try weird.migrate(db)
    let info = try #require(try db.tableInfoForTableNamed("our 't'"))
    #expect(info.columnNames == ["id", "c \"d\"", "select"])
    #expect(try db.selectFrom("our 't'") { $0.stringValue("c \"d\"") } == ["v"])
    #expect(try db.selectFrom("our 't'") { $0.doubleValue("select") } == [1.5])
    try weird.migrate(db, toVersion: 1)
    #expect(try db.tableInfoForTableNamed("my \"t\"")?.indexNames == ["i 'x'"])
    try weird.migrate(db, toVersion: 0)
    #expect(db.schema.tableNames == [])
}

@Test func squealSchemaVersionNumberingMistakesThrowInSwift5() throws {
    let descending = Schema { schema in
        schema.version(2) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
        schema.version(1) { v in v.createTable("u") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: (any Error).self) { try descending.migrate(Database()) }
    let zero = Schema { schema in
        schema.version(0) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: (any Error).self) { try zero.migrate(Database()) }
    let negative = Schema { schema in
        schema.version(-3) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: (any Error).self) { try negative.migrate(Database()) }
    let huge = Schema { schema in
        schema.version(Int.max) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: (any Error).self) { try huge.migrate(Database()) }
    let twoTables = Schema { schema in
        schema.version(1) { v in
            v.createTable("t") { t in t.column("a", type: .Text) }
            v.createTable("T") { t in t.column("a", type: .Text) }
        }
    }
    #expect(throws: (any Error).self) { try twoTables.migrate(Database()) }
    let noColumns = Schema { schema in
        schema.version(1) { v in v.createTable("t") { _ in } }
    }
    #expect(throws: (any Error).self) { try noColumns.migrate(Database()) }
}

@Test func squealSchemaVersionBeyondUserVersionIsInvalidInSwift5() throws {
    let largest = Schema { schema in
        schema.version(Int(Int32.max)) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
    }
    let db = Database()
    #expect(try largest.migrate(db))
    #expect(try db.queryUserVersionNumber() == Int(Int32.max))
    #expect(try largest.migrate(db) == false)
    let tooLarge = Schema { schema in
        schema.version(Int(Int32.max) + 1) { v in v.createTable("t") { t in t.column("a", type: .Text) } }
    }
    #expect(throws: SquealMigrationError.self) { try tooLarge.migrate(Database()) }
    #expect(throws: SquealMigrationError.self) { try largest.migrate(Database(), toVersion: Int.max) }
}
