import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata

@Suite struct IntrospectionTests {
    static let schema = #"""
        CREATE TABLE "the ""people""" ("id" INTEGER PRIMARY KEY, "first name" TEXT NOT NULL DEFAULT 'x', "order" REAL, UNIQUE ("order"));
        CREATE INDEX "by name" ON "the ""people""" ("first name" COLLATE NOCASE DESC, "order") WHERE "order" > 0;
        CREATE TABLE pairs (a TEXT, b TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
        CREATE VIEW v AS SELECT a FROM pairs;
        CREATE TRIGGER t AFTER INSERT ON pairs BEGIN SELECT 1; END;
        CREATE TABLE counter (id INTEGER PRIMARY KEY AUTOINCREMENT);
        INSERT INTO counter DEFAULT VALUES;
        """#

    func makeDatabase() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(Self.schema)
        return db
    }

    /// The same introspection through a `Database` of each kind: its readers see the schema the
    /// writer made, through the kernel's one cache.
    @Test(arguments: DatabaseKind.allCases) func everyKindOfDatabaseReadsTheSameSchema(kind: DatabaseKind) throws {
        let reference = try makeDatabase()
        let temporary = try TemporaryDatabase(kind)
        try temporary.database.write { try $0.execute(Self.schema) }
        try temporary.database.read { db in
            #expect(db.schema.tableNames == reference.schema.tableNames)
            #expect(db.schema.indexNames.sorted() == reference.schema.indexNames.sorted())
            let info = try #require(try db.tableInfoForTableNamed(#"the "PEOPLE""#))
            #expect(info.columnNames == ["id", "first name", "order"])
            #expect(info.indexNamed("BY NAME")?.columnNames == ["first name", "order"])
        }
        // A change made by the writer reaches the readers' introspection at once.
        try temporary.database.write { try $0.execute(#"ALTER TABLE "the ""people""" ADD COLUMN "late" TEXT"#) }
        let columns = try temporary.database.read { db in try db.tableInfoForTableNamed(#"the "people""#)?.columnNames }
        #expect(columns == ["id", "first name", "order", "late"])
    }

    @Test func schemaListsEntriesInOrder() throws {
        let schema = try makeDatabase().schema
        #expect(schema.tableNames == [#"the "people""#, "pairs", "counter"])
        #expect(schema.entryNamed("sqlite_sequence")?.isTable == true)
        #expect(schema.indexNames.contains("by name"))
        #expect(schema.namesOfIndexesOnTable(#"THE "PEOPLE""#).sorted() == ["by name", #"sqlite_autoindex_the "people"_1"#])
        #expect(schema["v"]?.isView == true)
        #expect(schema["v"]?.rootPage == 0)
        #expect(schema["t"]?.isTrigger == true)
        #expect(schema["t"]?.tableName == "pairs")
        #expect(schema.tableNamed("PAIRS")?.sql?.hasSuffix("WITHOUT ROWID") == true)
        #expect(schema.tableNamed("pairs")!.rootPage > 0)
        #expect(schema.entryNamed(#"sqlite_autoindex_the "people"_1"#)?.sql == nil)
        #expect(schema.tableNamed("nope") == nil)
        #expect(schema.indexesOnTable("pairs").isEmpty) // a WITHOUT ROWID primary key is the table itself
    }

    @Test func tableInfoDescribesColumns() throws {
        let db = try makeDatabase()
        let info = try #require(try db.tableInfoForTableNamed(#"the "PEOPLE""#))
        #expect(info.name == #"the "people""#)
        #expect(info.columnNames == ["id", "first name", "order"])
        #expect(info.columns.map(\.index) == [0, 1, 2])
        #expect(info["id"]?.primaryKeyIndex == 1)
        #expect(info["id"]?.type == "INTEGER")
        #expect(info["FIRST NAME"]?.notNull == true)
        #expect(info["first name"]?.defaultValue == "'x'")
        #expect(info["order"]?.defaultValue == nil)
        #expect(info["order"]?.isPrimaryKey == false)
        #expect(info["missing"] == nil)
        #expect(try db.tableInfoForTableNamed("nope") == nil)
        #expect(try db.tableInfoForTableNamed("v")?.columnNames == ["a"])
    }

    @Test func tableInfoDescribesIndexes() throws {
        let db = try makeDatabase()
        let info = try #require(try db.tableInfoForTableNamed(#"the "people""#))
        let byName = try #require(info.indexNamed("BY NAME"))
        #expect(byName.origin == .createIndex)
        #expect(byName.origin == .CreateIndex)
        #expect(byName.isUnique == false)
        #expect(byName.isPartial)
        #expect(byName.columnNames == ["first name", "order"])
        #expect(byName.columns.map(\.isDescending) == [true, false])
        #expect(byName.columns.first?.collation == "NOCASE")
        #expect(byName.columns.map(\.tableColumnIndex) == [1, 2])
        #expect(byName.columns.map(\.indexSequenceNumber) == [0, 1])
        let unique = try #require(info.indexes.first { $0.origin == .uniqueConstraint })
        #expect(unique.isUnique && unique.columnNames == ["order"])
        let pairs = try #require(try db.tableInfoForTableNamed("pairs"))
        #expect(pairs.indexes.map(\.origin) == [.primaryKeyConstraint])
        #expect(pairs.indexes.first?.columnNames == ["a", "b"])
        #expect(pairs["b"]?.primaryKeyIndex == 2)
        #expect(info.indexes.map(\.sequenceNumber).sorted() == [0, 1])
    }
}
