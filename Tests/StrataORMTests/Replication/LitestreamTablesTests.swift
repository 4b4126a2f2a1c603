import Foundation
import StrataTestSupport
import Testing
import StrataORM

/// Litestream's own tables are not the ORM's: a schema sync neither reports nor touches them.
@Suite struct LitestreamTablesTests {
    @Test func syncSchemaLeavesLitestreamTablesAlone() throws {
        let directory = try TemporaryDirectory()
        let storage = try Storage(filename: directory.path("orm.sqlite"), personTable())
        try storage.connection.execute(
            """
            CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
            CREATE TABLE _litestream_lock (id INTEGER);
            INSERT INTO _litestream_seq VALUES (1, 42);
            """)
        let result = try storage.syncSchema(preserve: true)
        #expect(result.keys.sorted() == ["people"])
        #expect(try storage.connection.query("SELECT seq FROM _litestream_seq") as Int? == 42)
        #expect(try storage.connection.query("SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_litestream\\_%' ESCAPE '\\'") as Int? == 2)
        let again = try storage.syncSchema(preserve: false)
        #expect(again.keys.sorted() == ["people"])
        #expect(try storage.connection.query("SELECT seq FROM _litestream_seq") as Int? == 42)
    }
}
