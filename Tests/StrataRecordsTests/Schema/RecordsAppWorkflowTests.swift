// A small records app written against API.md section 7 alone: versions 1 to 3 of its records,
// each release frozen as a numbered migration file and applied by `Migrator`, data kept across
// them, the drift check, and `close()` leaving the data in the main file.
import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import StrataRecords

enum ReadingListV1 {
    @Record(table: "author") struct Author: Equatable { @PrimaryKey var id: Int64?; @Unique var name: String }
    @Record(table: "book") struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(ReadingListV1.Author.self, onDelete: .cascade) var authorId: Int64
        var title: String
    }
}

enum ReadingListV2 {
    typealias Author = ReadingListV1.Author
    /// Version 2: a year (with a check) and an index on the title.
    @Record(table: "book") struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(ReadingListV1.Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        var year: Int?
    }
}

enum ReadingListV3 {
    typealias Author = ReadingListV1.Author
    /// Version 3: a nullable note, and the year no longer optional (a rebuild over rows).
    @Record(table: "book") struct Book: Equatable {
        @PrimaryKey var id: Int64?
        @References(ReadingListV1.Author.self, onDelete: .cascade) var authorId: Int64
        @Indexed var title: String
        @Check("year > 0") var year: Int
        var note: String?
    }
}

@Suite struct RecordsAppWorkflowTests {
    @Test func releasesFrozenAsMigrationFilesReachTheRecordsAndKeepTheData() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-app-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // The developer's database, moved along by `migrate`; each release's plan is frozen as SQL.
        let development = try Connection()
        try development.execute("PRAGMA foreign_keys = ON")
        var releases: [String] = []
        func freeze(_ schema: RecordSchema) throws {
            let plan = try schema.plan(for: development)
            #expect(!plan.losesData)
            releases.append(plan.sql.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n"))
            try schema.migrate(development)
            #expect(try schema.plan(for: development).isEmpty)
        }
        try freeze(RecordSchema(ReadingListV1.Author.self, ReadingListV1.Book.self))
        try freeze(RecordSchema(ReadingListV2.Author.self, ReadingListV2.Book.self))

        // A user's database at version 1 with data, in a Database for new code.
        let path = folder.appendingPathComponent("app.sqlite").path
        do {
            let database = try Database(path: path)
            let files = releases
            try await database.writeWithoutTransaction { db in
                _ = try Migrator(connection: db, desiredSchemaVersion: 1).runMigrationsIfNecessary(migrationSQLForSchemaVersion: { files[Int($0) - 1] })
            }
            try await database.write { db in
                var author = ReadingListV1.Author(id: nil, name: "Le Guin")
                try author.insert(db)
                var book = ReadingListV1.Book(id: nil, authorId: author.id ?? 0, title: "The Dispossessed")
                try book.insert(db)
            }
            try await database.close()
        }
        let walAfterClose = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(walAfterClose == 0)

        // Version 2 ships; the user's year is filled in; version 3 needs it NOT NULL.
        do {
            let database = try Database(path: path)
            let files = releases
            try await database.writeWithoutTransaction { db in
                _ = try Migrator(connection: db, desiredSchemaVersion: 2).runMigrationsIfNecessary(migrationSQLForSchemaVersion: { files[Int($0) - 1] })
            }
            try await database.write { db in try db.run("UPDATE book SET year = 1974") }
            try await database.close()
        }
        try development.execute("UPDATE book SET year = 1 WHERE year IS NULL")
        try freeze(RecordSchema(ReadingListV3.Author.self, ReadingListV3.Book.self))

        let database = try Database(path: path)
        let files = releases
        try await database.writeWithoutTransaction { db in
            // The rebuild in a frozen file needs foreign keys off, as SQLite's own procedure does.
            try db.execute("PRAGMA foreign_keys = OFF")
            _ = try Migrator(connection: db, desiredSchemaVersion: 3).runMigrationsIfNecessary(migrationSQLForSchemaVersion: { files[Int($0) - 1] })
            try db.execute("PRAGMA foreign_keys = ON")
        }
        let books: [ReadingListV3.Book] = try await database.read { try ReadingListV3.Book.fetchAll($0) }
        #expect(books.map(\.title) == ["The Dispossessed"])
        #expect(books.map(\.year) == [1974])
        // The drift check: the files reach exactly what the records declare.
        try await database.read { db in
            #expect(try RecordSchema(ReadingListV3.Author.self, ReadingListV3.Book.self).plan(for: db).isEmpty)
            try ReadingListV3.Book.checkSchema(db)
            #expect(try db.query("PRAGMA foreign_key_check") as String? == nil)
        }
        try await database.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(size == 0, "close() left \(size) bytes of WAL")
    }
}
