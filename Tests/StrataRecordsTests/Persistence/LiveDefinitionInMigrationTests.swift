import Foundation
import StrataRecords
import Testing

@Record(table: "bookmark")
struct TrailBookmark: Equatable {
    @PrimaryKey var id: Int64?
    var url: String
    var rating: Int?
}

/// The `createTable`-in-a-migration trap, diagnosed when the migrator runs: a v1 that made the
/// table from the record as it is now already has v2's column, so every fresh install failed at
/// v2 with a bare "duplicate column name". The error now names the record's call and the frozen
/// form to register, and the database is as it was.
@Suite struct LiveDefinitionInMigrationTests {
    static func migrator(v1: @escaping @Sendable (Connection) throws -> Void) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: v1)
        migrator.registerMigration("v2", sql: "ALTER TABLE bookmark ADD COLUMN rating INTEGER")
        return migrator
    }

    @Test func aCreateTableInAnEarlierMigrationIsNamedWhenALaterOneFails() throws {
        let db = try Connection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) { try Self.migrator { try TrailBookmark.createTable($0) }.migrate(db) }
        let message = error?.message ?? ""
        #expect(message.hasPrefix("migration \"v2\", statement 1: duplicate column name: rating"), "\(message)")
        #expect(message.contains("migration \"v1\" created table \"bookmark\" with TrailBookmark.createTable"), "\(message)")
        #expect(message.contains("RecordSchema(TrailBookmark.self).plan(for: db).frozenMigration(\"v1\")"), "\(message)")
        #expect(error?.resultCode.primary == .error)
        #expect(try db.query("SELECT count(*) FROM sqlite_schema") as Int? == 0)
    }

    @Test func recordSchemaMigrateInAMigrationIsNamedToo() throws {
        let db = try Connection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) {
            try Self.migrator { try RecordSchema(TrailBookmark.self).migrate($0) }.migrate(db)
        }
        #expect(error?.message.contains("with RecordSchema.migrate") == true, "\(error?.message ?? "")")
    }

    /// Frozen SQL, as the docs say: no complaint, and the same failure in another shape (a bug
    /// of the app's own SQL) is left as SQLite said it.
    @Test func frozenMigrationsRunAndOtherFailuresStayAsTheyWere() throws {
        let db = try Connection(path: ":memory:")
        let frozen = Self.migrator { try $0.execute("CREATE TABLE bookmark(id INTEGER PRIMARY KEY, url TEXT NOT NULL)") }
        #expect(try frozen.migrate(db) == ["v1", "v2"])
        let other = try Connection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) {
            try Self.migrator { try $0.execute("CREATE TABLE bookmark(id INTEGER PRIMARY KEY, url TEXT, rating INTEGER)") }.migrate(other)
        }
        #expect(error?.message == "migration \"v2\", statement 1: duplicate column name: rating")
        // Outside a migrator, createTable is as before.
        try TrailBookmark.createTable(other)
        #expect(try other.query("SELECT count(*) FROM bookmark") as Int? == 0)
    }
}
