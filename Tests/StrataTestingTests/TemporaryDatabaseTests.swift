import Foundation
import Strata
import StrataTesting
import Testing

@Suite struct TemporaryDatabaseTests {
    @Test func theDatabaseIsARealFileAndItsFolderGoesWithTheValue() async throws {
        var folder: URL?
        do {
            let temporary = try TemporaryDatabase()
            folder = temporary.directory.url
            try await temporary.database.write { try $0.execute("CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('kept')") }
            #expect(FileManager.default.fileExists(atPath: temporary.path))
            // A second opener of the same file sees what the first wrote: a file, not memory.
            let other = try Connection(path: temporary.path)
            #expect(try other.query("SELECT body FROM note") as String? == "kept")
            #expect(temporary.path.hasPrefix(temporary.directory.url.path))
            try await temporary.database.close()
        }
        let removed = try #require(folder)
        #expect(!FileManager.default.fileExists(atPath: removed.path))
    }

    @Test func anotherOpenerAndConfigurationAreUsed() throws {
        var configuration = Database.Configuration()
        configuration.foreignKeys = false
        let configured = try TemporaryDatabase(named: "shop.sqlite", configuration: configuration)
        #expect(configured.path.hasSuffix("/shop.sqlite"))
        #expect(try configured.database.read { try $0.query("PRAGMA foreign_keys") as Int? } == 0)
        let opened = try TemporaryDatabase { path in
            let database = try Database(path: path)
            try database.write { try $0.execute("CREATE TABLE migrated(id INTEGER PRIMARY KEY)") }
            return database
        }
        #expect(try opened.database.read { try $0.query("SELECT count(*) FROM sqlite_schema WHERE name = 'migrated'") as Int? } == 1)
    }
}
