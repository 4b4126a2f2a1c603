import Foundation
import Testing
import StrataSqueal

// Squeal's schema names through `import StrataSqueal`, in Swift 6 language mode.

@Suite struct SchemaNamesTests {
    @Test func squealNamesResolveToTheSchemaDSL() {
        let type: ColumnType = .Text
        #expect(type == SchemaColumnType.Text)
        #expect([ColumnType.Text, .Integer, .Real, .Blob].map(\.rawValue) == ["TEXT", "INTEGER", "REAL", "BLOB"])
        let column = Column(name: "e mail", type: .Text, constraints: ["NOT NULL"])
        #expect(column.sqlRepresentation == #""e mail" TEXT NOT NULL"#)
        let table = Table(name: "people", columns: [column])
        #expect(table.createSQL == #"CREATE TABLE "people" ("e mail" TEXT NOT NULL)"#)
        let error: SquealMigrationError = .unknownDatabaseVersion(dbVersion: 3)
        #expect(error == SchemaMigrationError.unknownDatabaseVersion(dbVersion: 3))
        #expect(error.description.contains("version 3"))
        #expect(IndexOrigin.PrimaryKeyConstraint == .primaryKeyConstraint)
    }

    @Test func introspectionThroughDatabase() throws {
        let db = Database()
        try db.createTable("contacts", definitions: ["id INTEGER PRIMARY KEY", "email TEXT NOT NULL UNIQUE"])
        let schema = db.schema
        #expect(schema.tableNames == ["contacts"])
        let info = try #require(try db.tableInfoForTableNamed("contacts"))
        #expect(info.columnNames == ["id", "email"])
        #expect(info.indexes.first?.origin == .UniqueConstraint)
    }
}

// The additions for Squeal code (`RowId`, `Int32` user version, `NSData` values), in Swift 6 mode:
// unannotated calls keep resolving without ambiguity.
@Test func squealAdditionsResolveInSwift6() throws {
    let db = Database()
    try db.createTable("t", definitions: ["b BLOB"])
    let id: RowId = try db.insertInto("t", values: ["b": NSData(data: Data([1, 2]))])
    let stored = try db.selectFirst("SELECT b FROM t WHERE rowid = ?", parameters: [id]) { $0.blobValue("b") }
    #expect(stored == Data([1, 2]))
    #expect(try db.selectString("SELECT typeof(b) FROM t") == "blob")
    try db.updateUserVersionNumber(4)
    let version = try db.queryUserVersionNumber()
    #expect(version == 4 as Int)
    let narrow: Int32 = try db.queryUserVersionNumber()
    #expect(narrow == 4)
    #expect(try db.queryUserVersionNumber() == 4)
}

@Test func userVersionRoundTripsInSwift6() throws {
    let db = Database()
    let version = try db.queryUserVersionNumber()
    try db.updateUserVersionNumber(version + 2)
    try db.updateUserVersionNumber(Int32(5))
    try db.updateUserVersionNumber(6)
    #expect(try db.queryUserVersionNumber() == 6)
    #expect(throws: SQLiteError.self) { try db.updateUserVersionNumber(Int.min) }
}

@Test func namedParameterFormsAndCloseInSwift6() throws {
    let db = Database()
    try db.execute("CREATE TABLE t (a)")
    try db.execute("INSERT INTO t VALUES (:a)", namedParameters: ["a": 1])
    try db.execute("INSERT INTO t VALUES (?)", parameters: [2])
    let statement = try db.prepareStatement("SELECT count(*) FROM t WHERE a >= :min", namedParameters: ["min": 1])
    #expect(try statement.selectNextInt() == 2)
    statement.close()
    try statement.bindParameter("min", value: 2)
    #expect(try statement.selectNextInt() == 1)
}
