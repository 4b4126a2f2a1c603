import Foundation
import StrataTestSupport
import Testing
import StrataSqueal

/// Squeal's `Database` surface on `Connection`: paths, statements, user version, single values.
@Suite struct SquealDatabaseTests {
    @Test func locationsAndPaths() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("squeal.sqlite")
        let persistent = try Connection(path: file)
        #expect(persistent.path == file)
        #expect(persistent.isPersistentDatabase && !persistent.isInMemoryDatabase && !persistent.isTemporaryDatabase)
        try persistent.createTable("t", definitions: ["x"])
        #expect(FileManager.default.fileExists(atPath: file))

        let memory = Connection.newInMemoryDatabase()
        #expect(memory.path == ":memory:" && memory.isInMemoryDatabase && !memory.isPersistentDatabase)
        let viaPath = try Connection(path: ":memory:")
        #expect(viaPath.isInMemoryDatabase)

        let temporary = Connection.newTemporaryDatabase()
        #expect(temporary.path == "" && temporary.isTemporaryDatabase && !temporary.isInMemoryDatabase)
        try temporary.createTable("t", definitions: ["x"])
        #expect(try Connection(path: "").isTemporaryDatabase)

        #expect(throws: SQLiteError.self) { try Connection(path: directory.path("missing/dir/db.sqlite")) }
    }

    @Test func statementsRowIdsAndChanges() throws {
        let db = Connection.newInMemoryDatabase()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
        try db.execute("INSERT INTO t(v) VALUES (?), (?)", parameters: ["a", "b"])
        #expect(db.lastInsertedRowId == 2)
        #expect(db.numberOfChangedRows == 2)
        let statement = try db.prepareStatement("SELECT v FROM t WHERE id = ?", parameters: [2])
        #expect(try statement.selectNextString() == "b")
        #expect(throws: SQLiteError.self) { try db.prepareStatement("SELECT ?", parameters: [1, 2]) }
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO nope VALUES (?)", parameters: [1]) }
    }

    @Test func userVersion() throws {
        let db = Connection.newInMemoryDatabase()
        #expect(try db.queryUserVersionNumber() == 0)
        try db.updateUserVersionNumber(7)
        #expect(try db.queryUserVersionNumber() == 7)
        try db.updateUserVersionNumber(Int32.min)
        #expect(try db.queryUserVersionNumber() == Int(Int32.min))
    }

    @Test func singleValueSelects() throws {
        let db = Connection.newInMemoryDatabase()
        #expect(try db.selectInt("SELECT ? + 1", parameters: [41]) == 42)
        #expect(try db.selectInt64("SELECT ?", parameters: [Int64.max]) == Int64.max)
        #expect(try db.selectDouble("SELECT 1.5") == 1.5)
        #expect(try db.selectString("SELECT upper(?)", parameters: ["abc"]) == "ABC")
        #expect(try db.selectBool("SELECT 2 > 1") == true)
        #expect(try db.selectBool("SELECT 0") == false)
        #expect(try db.selectInt("SELECT NULL") == nil)
        #expect(try db.selectInt("SELECT 1 WHERE 0") == nil)
        #expect(try db.selectFirst("SELECT 1 WHERE 0") { $0.intValueAtIndex(0) } == nil)
        #expect(try db.selectAll("SELECT value FROM json_each('[1,2,3]')") { $0.intValueAtIndex(0) ?? 0 } == [1, 2, 3])
        #expect(throws: SQLiteError.self) { try db.selectInt("SELECT nope") }
    }
}
