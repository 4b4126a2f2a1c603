// syncSchema inside the caller's transaction: SQLite keeps foreign keys enforced there, so a table
// dropped and recreated would take its children's rows with it through ON DELETE CASCADE.
import Foundation
import Testing
import StrataORM

private struct Member: Initializable, Equatable {
    var id = 0
    var name = ""
    var extra = ""
}

@Suite struct SyncSchemaInTransactionTests {
    private func storage() throws -> Storage {
        try Storage(
            filename: "",
            Table<Member>(
                name: "members",
                Column(name: "id", keyPath: \Member.id, constraints: primaryKey(), notNull()),
                Column(name: "name", keyPath: \Member.name, constraints: notNull()),
                Column(name: "extra", keyPath: \Member.extra, constraints: notNull())))
    }

    private func prepare(_ db: Connection) throws {
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("CREATE TABLE members(id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL)")
        try db.execute("CREATE TABLE posts(id INTEGER PRIMARY KEY, member INTEGER REFERENCES members(id) ON DELETE CASCADE)")
        try db.execute("INSERT INTO members VALUES (1, 'a'); INSERT INTO posts VALUES (10, 1), (11, 1)")
    }

    @Test func enforcedKeysInsideATransactionAreRefusedBeforeAnythingRuns() throws {
        let storage = try storage()
        let db = storage.connection
        try prepare(db)
        #expect(throws: TableRebuildError.self) {
            try db.transaction { _ = try storage.syncSchema(preserve: false) }
        }
        #expect(try db.query("SELECT count(*) FROM posts") as Int? == 2)
        #expect(try db.schemaReader.columns(ofTable: "members").map(\.name) == ["id", "name"])
    }

    @Test func outsideATransactionTheChildrenKeepTheirRows() throws {
        let storage = try storage()
        let db = storage.connection
        try prepare(db)
        let results = try storage.syncSchema(preserve: false)
        #expect(results["members"] == .droppedAndRecreated)
        #expect(try db.query("SELECT count(*) FROM posts") as Int? == 2)
        #expect(try db.foreignKeysEnabled())
    }
}
