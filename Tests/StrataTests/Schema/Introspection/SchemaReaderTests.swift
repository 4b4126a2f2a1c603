import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// The kernel's one introspection reader and its cache.
@Suite struct SchemaReaderTests {
    @Test func answersFollowThisConnectionsSchemaChanges() throws {
        let db = try Connection(storageLocation: .inMemory)
        let reader = db.schemaReader
        try db.execute("CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT)")
        #expect(try reader.table(named: "PEOPLE")?.name == "people")
        #expect(try reader.columns(ofTable: "people").map(\.name) == ["id", "name"])
        try db.execute("ALTER TABLE people ADD COLUMN age INTEGER; CREATE INDEX people_age ON people(age)")
        #expect(try reader.columns(ofTable: "people").map(\.name) == ["id", "name", "age"])
        #expect(try reader.indexes(ofTable: "people").map(\.name) == ["people_age"])
        try db.execute("DROP TABLE people")
        #expect(try reader.table(named: "people") == nil)
        #expect(try reader.columns(ofTable: "people").isEmpty)
    }

    @Test func answersFollowAnotherConnectionsSchemaChanges() throws {
        let files = try TwoConnections(named: "db.sqlite")
        let (reader, writer) = (files.mine, files.other)
        try writer.execute("CREATE TABLE t(a)")
        #expect(try reader.tableInfoForTableNamed("t")?.columnNames == ["a"])
        try writer.execute("ALTER TABLE t ADD COLUMN b")
        #expect(try reader.tableInfoForTableNamed("t")?.columnNames == ["a", "b"])
        try writer.execute("DROP TABLE t; CREATE TABLE u(x)")
        #expect(try reader.tableInfoForTableNamed("t") == nil)
        #expect(reader.schema.tableNames == ["u"])
    }

    @Test func aRolledBackSchemaChangeIsNotRemembered() throws {
        let db = try makeConnection(executing: "CREATE TABLE base(a)")
        let version: Int? = try db.query("PRAGMA schema_version")
        try db.execute("BEGIN; CREATE TABLE x(a)")
        #expect(try db.schemaReader.table(named: "x") != nil)
        try db.execute("ROLLBACK")
        // The same schema version again, with other contents: nothing stale may come back.
        try db.execute("BEGIN; CREATE TABLE y(a)")
        #expect(try db.query("PRAGMA schema_version") as Int? == (version ?? 0) + 1)
        #expect(try db.schemaReader.table(named: "x") == nil)
        #expect(try db.schemaReader.table(named: "y") != nil)
        try db.execute("COMMIT")
        #expect(try db.schemaReader.userTableNames() == ["base", "y"])
    }

    @Test func userTablesLeaveOutSQLitesAndLitestreamsTables() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT);
            INSERT INTO notes(body) VALUES('x');
            CREATE TABLE _litestream_seq(id INTEGER PRIMARY KEY, seq INTEGER);
            CREATE TABLE _litestream_lock(id INTEGER);
            """)
        #expect(try db.schemaReader.userTableNames() == ["notes"])
        #expect(try db.schemaReader.entries().contains { $0.name == "sqlite_sequence" })
    }

    @Test func foreignKeysAndReferencingTables() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(
            """
            CREATE TABLE owners(id INTEGER PRIMARY KEY);
            CREATE TABLE pets(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES owners(id));
            CREATE TABLE vets(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES "OWNERS");
            """)
        #expect(try db.schemaReader.foreignKeys(ofTable: "pets").map(\.parentTable) == ["owners"])
        #expect(try db.schemaReader.tablesReferencing("owners") == ["pets", "vets"])
    }

    @Test func hiddenColumnsAreListedButNotInTableInfo() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2), c TEXT)")
        #expect(try db.schemaReader.columns(ofTable: "t").map(\.name) == ["a", "b", "c"])
        let info = try #require(try db.tableInfoForTableNamed("t"))
        #expect(info.columns.map(\.name) == ["a", "c"])
        #expect(info.columns.map(\.index) == [0, 1])
    }
}
