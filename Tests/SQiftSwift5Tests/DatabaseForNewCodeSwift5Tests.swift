import Foundation
import StrataTestSupport
import Testing
import Strata

// API.md section 7, "A `Database` for new code", as Swift 5 client code writes it.
@Suite struct DatabaseForNewCodeSwift5Tests {
    @Test func apiSpellings() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        var configuration = Database.Configuration() // defaults: foreignKeys = true, journalMode = .wal,
        configuration.maximumReaderCount = 5 // busyTimeout = 5 s, synchronous = .normal, maximumReaderCount = 5
        #expect(configuration.foreignKeys && configuration.journalMode == .wal && configuration.synchronous == .normal)
        #expect(configuration.busyTimeout == 5)
        let database = try Database(path: path, configuration: configuration)
        let defaulted = try Database(path: directory.path("other.sqlite"))
        try await defaulted.close()

        try await database.writeWithoutTransaction { db in try db.execute("CREATE TABLE book(title TEXT NOT NULL)") }
        let n: Int = try await database.write { db in
            try db.run("INSERT INTO book VALUES('Dune')"); return 1
        }
        #expect(n == 1)
        try await database.writeWithoutTransaction { db in try db.execute("VACUUM") }
        let rows = try await database.read { db in try db.query("SELECT title FROM book") as [String] }
        #expect(rows == ["Dune"])
        let kept = try await database.writeInTransaction { db in try db.query("SELECT count(*) FROM book") as Int? }
        #expect(kept == 1)
        try await database.close()

        do {
            _ = try await database.read { db in try db.query("SELECT title FROM book") as [String] }
            Issue.record("a read after close() ran")
        } catch DatabaseError.closed {
        }
        try await database.close()
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber
        #expect((wal?.intValue ?? 0) == 0)
    }
}
