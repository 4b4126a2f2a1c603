#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// A space's migration on PostgreSQL: the tables a backend queries change with it, the capture
/// triggers see the new columns, another hub process serves the new version at its next request,
/// and a step PostgreSQL cannot make is refused with the space as it was.
@Suite(.enabled(if: PostgresServer.isSet, PostgresServer.skipReason), .serialized)
struct PostgresSchemaVersionTests {
    static let version1 = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT)"
    static let version2Steps = #"""
        ALTER TABLE todo ADD COLUMN done INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE todo ADD COLUMN "note ""x""" TEXT;
        CREATE TABLE tag(id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'none', todo TEXT);
        CREATE UNIQUE INDEX tag_name ON tag(name)
        """#

    @Test func aMigrationChangesThePostgresTablesAndTheBackendsWritesOfNewColumnsReachReplicas() async throws {
        let team = try PostgresHubSpace(schema: Self.version1, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        let old = try team.replica("old")
        try await old.write { try $0.execute("INSERT INTO todo VALUES ('a', 'before')") }
        try await old.sync()
        _ = try database.query("INSERT INTO team.todo (id, title) VALUES ('b', 'backend, before')")

        try hub.migrateSpace("team", to: 2) { try $0.execute(Self.version2Steps) }
        #expect(try hub.schemaVersion(ofSpace: "team") == 2)
        let columns = try database.texts(
            """
            SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '-')
            FROM information_schema.columns WHERE table_schema = 'team' AND table_name IN ('todo', 'tag') ORDER BY table_name, ordinal_position
            """)
        #expect(
            columns == [
                "tag.id text NO -", "tag.name text NO 'none'::text", "tag.todo text YES -",
                "todo.id text NO -", "todo.title text YES -", "todo.done bigint NO 0", "todo.note \"x\" text YES -"
            ], "\(columns)")
        #expect(try database.texts("SELECT id || ' ' || done FROM team.todo ORDER BY id") == ["a 0", "b 0"])
        let unique = try database.texts("SELECT indexdef FROM pg_indexes WHERE schemaname = 'team' AND tablename = 'tag' AND indexdef LIKE '%UNIQUE%(name)%'")
        #expect(unique.count == 1, "\(unique)")

        // The backend writes the new columns and the new table; the capture sees them.
        _ = try database.query("UPDATE team.todo SET done = 1, \"note \"\"x\"\"\" = 'n' WHERE id = 'a'")
        _ = try database.query("INSERT INTO team.tag (id, name, todo) VALUES ('t1', 'home', 'a')")
        let new = try team.replica("new", schema: Self.version1 + "; " + Self.version2Steps, tables: ["todo", "tag"])
        try await new.sync()
        #expect(
            try await new.database.read {
                try $0.query("SELECT id || '|' || title || '|' || done || '|' || coalesce(\"note \"\"x\"\"\", '-') FROM todo ORDER BY id") as [String]
            }
                == ["a|before|1|n", "b|backend, before|0|-"])
        #expect(try await new.database.read { try $0.query("SELECT id || '|' || name || '|' || todo FROM tag") as [String] } == ["t1|home|a"])
        // The replica on version 1 goes on with the columns it has.
        try await old.sync()
        #expect(
            try await old.database.read { try $0.query("SELECT id || '|' || title FROM todo ORDER BY id") as [String] }
                == ["a|before", "b|backend, before"])
        try await old.write { try $0.execute("UPDATE todo SET title = 'from old' WHERE id = 'a'") }
        try await old.sync()
        try await new.write { try $0.execute("INSERT INTO tag VALUES ('t2', 'work', 'b')") }
        try await new.sync()
        #expect(try database.texts("SELECT id || '|' || title || '|' || done FROM team.todo ORDER BY id") == ["a|from old|1", "b|backend, before|0"])
        #expect(try database.texts("SELECT id || '|' || name FROM team.tag ORDER BY id") == ["t1|home", "t2|work"])
        // A name the new UNIQUE index already holds is refused, as on SQLite.
        try await new.write { try $0.execute("INSERT INTO tag VALUES ('t3', 'x', NULL)") }
        try await new.sync()
        _ = try database.query("UPDATE team.tag SET name = 'clash' WHERE id = 't1'")
        try await new.write { try $0.execute("UPDATE tag SET name = 'clash' WHERE id = 't3'") }
        await #expect(throws: SyncError.self) { try await new.sync() }
        #expect(try database.texts("SELECT id || '|' || name FROM team.tag ORDER BY id") == ["t1|clash", "t2|work", "t3|x"])
    }

    @Test func anotherHubProcessServesTheNewVersionAtItsNextRequest() async throws {
        let team = try PostgresHubSpace(schema: Self.version1, tables: ["todo"])
        let (database, first) = (team.database, team.hub)
        // A second store on the same database: another hub process, its definitions read now.
        let second = try team.anotherHub()
        let early = try team.replica("early", through: second)
        try await early.write { try $0.execute("INSERT INTO todo VALUES ('a', 'x')") }
        try await early.sync()
        #expect(try second.schemaVersion(ofSpace: "team") == 1)

        try first.migrateSpace("team", to: 2) { try $0.execute(Self.version2Steps) }
        #expect(try second.schemaVersion(ofSpace: "team") == 2)
        let upgraded = try team.replica("upgraded", through: second, schema: Self.version1 + "; " + Self.version2Steps, tables: ["todo", "tag"])
        try await upgraded.write { try $0.execute("INSERT INTO todo(id, title, done) VALUES ('b', 'y', 1)") }
        try await upgraded.sync()
        // The version-1 replica, through the second process, gets rows without the new columns.
        try await early.sync()
        #expect(try await early.database.read { try $0.query("SELECT id || '|' || title FROM todo ORDER BY id") as [String] } == ["a|x", "b|y"])
        #expect(try database.texts("SELECT id || '|' || done FROM team.todo ORDER BY id") == ["a|0", "b|1"])
    }

    @Test func aStepPostgresCannotMakeIsRefusedAndTheSpaceIsAsItWas() async throws {
        let team = try PostgresHubSpace(schema: Self.version1, tables: ["todo"])
        let (database, hub) = (team.database, team.hub)
        _ = try database.query("INSERT INTO team.todo (id, title) VALUES ('a', 'x')")
        let shape = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'team' AND table_name = 'todo' ORDER BY ordinal_position"
        let before = try database.texts(shape)
        // A NOT NULL column whose default PostgreSQL does not read the same way.
        do {
            try hub.migrateSpace("team", to: 2) { try $0.execute("ALTER TABLE todo ADD COLUMN made TEXT NOT NULL DEFAULT (lower('X'))") }
            Issue.record("the migration was not refused")
        } catch SyncError.schemaChangeRefused(let space, let version, let reason) {
            #expect(space == "team" && version == 2 && reason.contains("todo.made"), "\(reason)")
        }
        // A table without a primary key, which PostgreSQL's store cannot key.
        #expect(throws: (any Error).self) {
            try hub.migrateSpace("team", to: 2) { try $0.execute("CREATE TABLE loose(v TEXT)") }
        }
        #expect(try hub.schemaVersion(ofSpace: "team") == 1)
        #expect(try database.texts(shape) == before)
        #expect(try database.texts("SELECT tablename FROM pg_tables WHERE schemaname = 'team' AND tablename = 'loose'").isEmpty)
        // The space goes on: a backend write is still captured under the old definitions.
        _ = try database.query("UPDATE team.todo SET title = 'y' WHERE id = 'a'")
        let replica = try team.replica("r")
        try await replica.sync()
        #expect(try await replica.database.read { try $0.query("SELECT id || '|' || title FROM todo") as [String] } == ["a|y"])
    }
}
#endif
