import Foundation
import StrataSQift
import Strata
@testable import StrataCore
@testable import StrataKernel
@testable import StrataSchema
import StrataTestSupport
import Testing

@Suite("Virtual tables in introspection")
struct VirtualTableIntrospectionTests {
    private static let fts5Shadows = ["docs_config", "docs_content", "docs_data", "docs_docsize", "docs_idx"]

    @Test func fts5TableIsListedAndMarkedItsShadowTablesAreNot() throws {
        let db = try makeConnection(executing: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE docs_extra(x)")
        try db.createFTS5Table("docs", columns: ["title", "body"])
        let schema = try db.readSchema()
        #expect(schema.tableNames == ["notes", "docs_extra", "docs"])
        #expect(Set(schema.schemaEntries.map(\.name)).isSuperset(of: Self.fts5Shadows))
        for shadow in Self.fts5Shadows { #expect(schema.tableNamed(shadow) == nil) }
        #expect(schema.virtualTables.map(\.name) == ["docs"])
        #expect(schema.tableNamed("docs")?.isVirtualTable == true)
        #expect(schema.tableNamed("docs")?.virtualTableModule == "fts5")
        #expect(schema.tableNamed("notes")?.isVirtualTable == false)
        #expect(try db.schemaReader.userTableNames() == ["notes", "docs_extra", "docs"])
        #expect(try db.tableInfoForTableNamed("docs")?.columnNames == ["title", "body"])
        // The public initializer finds the same shadow tables from the entries alone.
        #expect(SchemaInfo(schemaEntries: schema.schemaEntries).tableNames == schema.tableNames)
    }

    @Test func shadowTablesOfOtherModulesAndOddNamesAreHidden() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.execute(#"CREATE VIRTUAL TABLE "Odd ""name"" using" USING fts5(a)"#)
        try db.execute("CREATE VIRTUAL TABLE boxes USING rtree(id, minX, maxX)")
        try db.execute("CREATE VIRTUAL TABLE old USING fts4(a)")
        try db.execute("CREATE TABLE [boxes_node2](x)")
        let schema = try db.readSchema()
        #expect(schema.tableNames == [#"Odd "name" using"#, "boxes", "old", "boxes_node2"])
        #expect(schema.virtualTables.map(\.virtualTableModule) == ["fts5", "rtree", "fts4"])
        #expect(SchemaInfo(schemaEntries: schema.schemaEntries).tableNames == schema.tableNames)
        #expect(try db.schemaReader.shadowTableNames().contains("boxes_node"))
    }

    @Test func moduleParsing() {
        #expect(SchemaEntryInfo.module(ofCreateVirtualTableSQL: #"CREATE VIRTUAL TABLE "a USING b" USING "FTS5"(x)"#) == "fts5")
        #expect(SchemaEntryInfo.module(ofCreateVirtualTableSQL: "CREATE VIRTUAL TABLE main.[t]using rtree(id, a, b)") == "rtree")
        #expect(SchemaEntryInfo.module(ofCreateVirtualTableSQL: "CREATE VIRTUAL TABLE `t` USING fts5") == "fts5")
        #expect(SchemaEntryInfo.module(ofCreateVirtualTableSQL: "CREATE TABLE t(x)") == nil)
    }

    @Test func rebuildRefusesVirtualAndShadowTablesLeavingTheDatabaseUntouched() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createFTS5Table("docs", columns: ["title"])
        try db.run("INSERT INTO docs(title) VALUES (?)", "kept")
        let before: [String] = try db.query("SELECT sql FROM sqlite_master ORDER BY name")
        #expect(throws: TableRebuildError.virtualTable("docs", module: "fts5")) {
            try db.rebuildTable(named: "DOCS", definition: #""title" TEXT"#, copying: [(column: "title", expression: #""title""#)])
        }
        #expect(throws: TableRebuildError.shadowTable("docs_content")) {
            try db.rebuildTable(named: "docs_content", definition: #""id" INTEGER PRIMARY KEY"#, copying: [])
        }
        #expect(TableRebuildError.virtualTable("docs", module: "fts5").description.contains("virtual table"))
        let after: [String] = try db.query("SELECT sql FROM sqlite_master ORDER BY name")
        #expect(after == before)
        let hits: [String] = try db.query("SELECT title FROM docs WHERE docs MATCH 'kept'")
        #expect(hits == ["kept"])
        #expect(!db.isInTransaction)
    }

    @Test func resetDropsTheVirtualTableNotItsShadowTablesFirst() throws {
        let db = try makeConnection(executing: "CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT)")
        try db.createFTS5Table("book_fts", columns: ["title"], options: FTS5Options(content: .external(table: "book", rowID: "id")))
        try Schema { _ in }.reset(db)
        let left: Int = try db.query("SELECT count(*) FROM sqlite_master") ?? -1
        #expect(left == 0)
    }
}
