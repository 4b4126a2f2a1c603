import Foundation
import StrataSQift
import Strata
import Testing

/// `strata schema` shows foreign keys and CHECK constraints; `strata checkpoint` says how many
/// frames a TRUNCATE checkpoint wrote back (SQLite reports 0 of 0 once it has emptied the WAL).
@Suite struct SchemaCheckpointReportTests {
    @Test func schemaShowsForeignKeysAndCheckConstraints() throws {
        let sandbox = try Sandbox()
        let connection = try Connection(storageLocation: .onDisk(sandbox.path("library.db")))
        try connection.execute(
            """
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE edition(isbn TEXT, printing INTEGER, PRIMARY KEY(isbn, printing));
            CREATE TABLE book(
                id INTEGER PRIMARY KEY,
                authorId INTEGER NOT NULL REFERENCES author ON DELETE CASCADE,
                year INTEGER CHECK (year > 0),
                title TEXT /* a comment ) */ CHECK(title <> 'it''s (not) a title'),
                isbn TEXT, printing INTEGER,
                CONSTRAINT "sane year" CHECK ( year   <   3000 -- a line comment
                    AND year IS NOT NULL ),
                FOREIGN KEY (isbn, printing) REFERENCES edition(isbn, printing) ON UPDATE SET NULL ON DELETE RESTRICT
            );
            """)
        let result = try sandbox.strata("schema", "library.db")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                TABLE author
                  id    INTEGER  PRIMARY KEY
                  name  TEXT     NOT NULL
                TABLE book
                  id        INTEGER  PRIMARY KEY
                  authorId  INTEGER  NOT NULL
                  year      INTEGER
                  title     TEXT
                  isbn      TEXT
                  printing  INTEGER
                  FOREIGN KEY (authorId) REFERENCES author (id) ON DELETE CASCADE
                  FOREIGN KEY (isbn, printing) REFERENCES edition (isbn, printing) ON DELETE RESTRICT ON UPDATE SET NULL
                  CHECK (year > 0)
                  CHECK (title <> 'it''s (not) a title')
                  CONSTRAINT "sane year" CHECK (year < 3000 AND year IS NOT NULL)
                TABLE edition
                  isbn      TEXT     PRIMARY KEY (1)
                  printing  INTEGER  PRIMARY KEY (2)

                """)
    }

    /// A WAL left by a program that is still running (or never closed its database).
    func databaseWithFramesInItsWAL(_ sandbox: Sandbox) throws -> (Connection, walSize: Int64, frames: Int64) {
        let path = sandbox.path("app.db")
        let connection = try Connection(storageLocation: .onDisk(path))
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
        try connection.run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) INSERT INTO t(v) SELECT randomblob(400) FROM c")
        let walSize = try #require((try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value)
        // A WAL that was never reset holds exactly its frames: a 32-byte header, then each page
        // with a 24-byte frame header.
        let frames = (walSize - 32) / (4096 + 24)
        #expect(frames > 10)
        return (connection, walSize, frames)
    }

    @Test func truncateCheckpointReportsTheFramesItWroteBackAndTheWALSizes() throws {
        let sandbox = try Sandbox()
        let (connection, walSize, frames) = try databaseWithFramesInItsWAL(sandbox)
        let result = try sandbox.strata("checkpoint", "app.db")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "Checkpoint (truncate): \(frames) of \(frames) WAL frames written back; the WAL is truncated.",
                "WAL size: \(walSize) bytes (\(String(format: "%.1f", Double(walSize) / 1024)) KiB) before, 0 bytes after."
            ])
        #expect(try connection.query("SELECT count(*) FROM t") as Int? == 300)

        // Other modes report what SQLite reports; an empty WAL is 0 of 0.
        let again = try sandbox.strata("checkpoint", "app.db")
        #expect(
            again.stdout.hasPrefix("Checkpoint (truncate): 0 of 0 WAL frames written back; the WAL is truncated.\nWAL size: 0 bytes before, 0 bytes after."))
        try connection.execute("UPDATE t SET v = randomblob(400) WHERE id <= 20")
        let full = try sandbox.strata("checkpoint", "app.db", "--mode", "full")
        let fullLines = full.stdout.split(separator: "\n").map(String.init)
        #expect(fullLines.count == 2)
        #expect(fullLines.first?.hasPrefix("Checkpoint (full): ") == true)
        #expect(fullLines.first?.hasPrefix("Checkpoint (full): 0 of 0") == false)
        #expect(fullLines.last?.hasPrefix("WAL size: ") == true)

        // The rows are in the database file itself: a copy of it alone holds them. (Last: reading
        // the file in this process drops the open connection's POSIX locks.)
        _ = try sandbox.strata("checkpoint", "app.db")
        let copy = sandbox.path("copy.db")
        try FileManager.default.copyItem(atPath: sandbox.path("app.db"), toPath: copy)
        #expect(try integer("SELECT count(*) FROM t", in: copy) == 300)
    }

    /// A refused TRUNCATE (Litestream replicates the database) runs no checkpoint at all, not
    /// even the PASSIVE one that counts frames: the database file is untouched.
    @Test func aRefusedTruncateTouchesNothing() throws {
        let sandbox = try Sandbox()
        let (connection, walSize, _) = try databaseWithFramesInItsWAL(sandbox)
        try connection.execute("CREATE TABLE _litestream_lock (id INTEGER); CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)")
        // Sizes only (stat): reading the file here would drop the connection's POSIX locks.
        func size(_ name: String) throws -> Int64? {
            (try FileManager.default.attributesOfItem(atPath: sandbox.path(name))[.size] as? NSNumber)?.int64Value
        }
        let before = try size("app.db")
        #expect(try size("app.db-wal") ?? 0 >= walSize)
        let refused = try sandbox.strata("checkpoint", "app.db")
        #expect(refused.status == 1)
        #expect(refused.errorLines.count == 1 && refused.errorLines[0].contains("would reset the WAL while Litestream replicates it"))
        // A checkpoint of 300 rows' frames would have grown the file.
        #expect(try size("app.db") == before)
        let passive = try sandbox.strata("checkpoint", "app.db", "--mode", "passive")
        #expect(passive.status == 0)
        #expect(try size("app.db") ?? 0 > before ?? 0)
    }
}
