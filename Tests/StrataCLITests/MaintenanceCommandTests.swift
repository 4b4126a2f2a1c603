#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Strata
import Testing

/// `schema`, `check`, `checkpoint` and `vacuum`.
@Suite struct MaintenanceCommandTests {
    @Test func schemaShowsColumnsThenIndexesViewsAndTriggers() throws {
        let sandbox = try Sandbox()
        let connection = try Connection(storageLocation: .onDisk(sandbox.path("shop.db")))
        try connection.execute(
            """
            CREATE TABLE owners(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'nobody');
            CREATE TABLE cars(maker TEXT, model TEXT, price REAL NOT NULL DEFAULT 0, owner INTEGER REFERENCES owners(id),
                              PRIMARY KEY(maker, model));
            CREATE UNIQUE INDEX owners_by_name ON owners(name);
            CREATE INDEX cheap_cars ON cars(price, maker) WHERE price < 1000;
            CREATE INDEX owners_by_lower_name ON owners(lower(name) DESC, id);
            CREATE VIEW expensive AS SELECT * FROM cars WHERE price > 50000;
            CREATE TRIGGER no_free_cars BEFORE INSERT ON cars WHEN new.price = 0 BEGIN SELECT raise(ABORT, 'free'); END;
            """)
        let result = try sandbox.strata("schema", "shop.db")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                TABLE cars
                  maker  TEXT     PRIMARY KEY (1)
                  model  TEXT     PRIMARY KEY (2)
                  price  REAL     NOT NULL DEFAULT 0
                  owner  INTEGER
                  FOREIGN KEY (owner) REFERENCES owners (id)
                TABLE owners
                  id    INTEGER  PRIMARY KEY
                  name  TEXT     NOT NULL DEFAULT 'nobody'

                INDEX cheap_cars ON cars (price, maker) WHERE price < 1000
                INDEX owners_by_lower_name ON owners (<expression> DESC, id)
                UNIQUE INDEX owners_by_name ON owners (name)

                VIEW expensive
                  CREATE VIEW expensive AS SELECT * FROM cars WHERE price > 50000

                TRIGGER no_free_cars ON cars
                  CREATE TRIGGER no_free_cars BEFORE INSERT ON cars WHEN new.price = 0 BEGIN SELECT raise(ABORT, 'free'); END

                """)
    }

    @Test func checkReportsAHealthyDatabase() throws {
        let sandbox = try Sandbox()
        try sandbox.makeBigDatabase("big.db", rows: 100)
        let connection = try Connection(storageLocation: .onDisk(sandbox.path("big.db")))
        try connection.execute("DELETE FROM t WHERE id > 50") // some free pages; the WAL stays open
        let result = try sandbox.strata("check", "big.db")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Then the SQLite version line, and a warning when that version has the WAL-reset bug
        // (CheckSQLiteVersionTests).
        #expect(lines.count >= 7)
        #expect(lines[0] == "integrity_check:    ok")
        #expect(lines[1] == "foreign_key_check:  ok")
        #expect(lines[2] == "journal mode:       wal")
        let walSize = try FileManager.default.attributesOfItem(atPath: sandbox.path("big.db-wal"))[.size] as? Int ?? -1
        #expect(walSize > 0)
        #expect(lines[3].hasPrefix("WAL size:           \(walSize) bytes"))
        let pages: Int64 = try connection.query("PRAGMA page_count") ?? 0
        let free: Int64 = try connection.query("PRAGMA freelist_count") ?? 0
        #expect(free > 0)
        #expect(lines[4].hasPrefix("pages:              \(pages) x 4096 bytes = \(pages * 4096) bytes"))
        #expect(lines[5].hasPrefix("freelist:           \(free) pages (\(free * 4096) bytes"))
    }

    @Test func checkFailsOnForeignKeyViolations() throws {
        let sandbox = try Sandbox()
        let connection = try Connection(storageLocation: .onDisk(sandbox.path("fk.db")))
        try connection.execute(
            """
            CREATE TABLE owners(id INTEGER PRIMARY KEY);
            CREATE TABLE cars(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES owners(id));
            INSERT INTO cars VALUES(7, 42);
            """)
        let result = try sandbox.strata("check", "fk.db")
        #expect(result.status == 1)
        #expect(result.stdout.contains("foreign_key_check:  1 violation\n  cars row 7 refers to a missing row of owners\n"))
        #expect(result.stdout.contains("journal mode:       delete\nWAL size:           no WAL (not in WAL mode)\n"))
    }

    @Test func checkFailsOnADamagedPage() throws {
        let sandbox = try Sandbox()
        let path = try sandbox.makeBigDatabase("big.db", rows: 2000, wal: false)
        try overwrite(path, at: 4096 * 5, count: 4096 * 3)
        let result = try sandbox.strata("check", "big.db")
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("integrity_check:    "))
        #expect(!result.stdout.hasPrefix("integrity_check:    ok"))
    }

    @Test func checkpointWritesTheWALBack() throws {
        let sandbox = try Sandbox()
        let (connection, lines) = try sandbox.checkpointRewrittenBigDatabase()
        defer { withExtendedLifetime(connection) {} }
        #expect(lines[0].hasPrefix("Checkpoint (truncate): "))
        #expect(lines[0].hasSuffix(" WAL frames written back; the WAL is truncated."))
        #expect(!lines[0].hasPrefix("Checkpoint (truncate): 0 of 0"))
        #expect(lines[1].hasSuffix(", 0 bytes after."))

        let passive = try sandbox.strata("checkpoint", "big.db", "--mode", "passive")
        #expect(passive.stdout.hasPrefix("Checkpoint (passive): 0 of 0 WAL frames written back."))
        let bad = try sandbox.strata("checkpoint", "big.db", "--mode", "sometimes")
        #expect(bad.status != 0)
        #expect(bad.errorLines.count == 1)

        try sandbox.makeCarsDatabase("rollback.db")
        let notWAL = try sandbox.strata("checkpoint", "rollback.db")
        #expect(notWAL.stdout == "rollback.db is not in WAL mode (journal mode delete); there is nothing to checkpoint.\n")
    }

    @Test func vacuumInPlaceAndInto() throws {
        let sandbox = try Sandbox()
        let path = try sandbox.makeBigDatabase("big.db", rows: 1000, wal: false)
        try Connection(storageLocation: .onDisk(path)).execute("DELETE FROM t WHERE id > 100")
        let into = try sandbox.strata("vacuum", "big.db", "--into", "compact.db")
        #expect(into.status == 0, "\(into.stderr)")
        #expect(into.stdout.hasPrefix("Wrote compact.db: "))
        #expect(try integer("SELECT count(*) FROM t", in: sandbox.path("compact.db")) == 100)
        #expect(try integer("PRAGMA freelist_count", in: sandbox.path("compact.db")) == 0)
        let again = try sandbox.strata("vacuum", "big.db", "--into", "compact.db")
        #expect(again.errorLines == ["strata: compact.db already exists; VACUUM INTO writes a new file"])

        #expect(try integer("PRAGMA freelist_count", in: path) ?? 0 > 0)
        let inPlace = try sandbox.strata("vacuum", "big.db")
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        #expect(inPlace.stdout.hasPrefix("Vacuumed big.db: "))
        #expect(try integer("PRAGMA freelist_count", in: path) == 0)
        #expect(try integer("SELECT count(*) FROM t", in: path) == 100)
    }
}

extension Sandbox {
    /// "damaged.db": 2,000 rows whose table pages 6 to 8 are overwritten, its schema page intact
    /// so that the tool opens it.
    func makeDamagedDatabase() throws {
        try overwrite(try makeBigDatabase("damaged.db", rows: 2000, wal: false), at: 4096 * 5, count: 4096 * 3)
    }
}

/// Overwrites `count` bytes of the file at `path` from `offset` with 0xFF.
func overwrite(_ path: String, at offset: UInt64, count: Int) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: Data(repeating: 0xFF, count: count))
    try handle.close()
}

/// A failed `vacuum --into` removes the file it started (issue 25, item 8).
@Suite struct VacuumIntoFailureTests {
    @Test func aFailedVacuumIntoLeavesNoFileAndARerunWorks() throws {
        let sandbox = try Sandbox()
        // The schema page is intact, so the tool opens the file; the table's pages are damaged,
        // so VACUUM INTO fails partway, after SQLite has created the output file.
        try sandbox.makeDamagedDatabase()
        let before = try sandbox.snapshot()

        let failed = try sandbox.strata("vacuum", "damaged.db", "--into", "compact.db")
        #expect(failed.status != 0)
        #expect(failed.errorLines.first?.contains("malformed") == true, "\(failed.stderr)")
        for file in ["compact.db", "compact.db-journal", "compact.db-wal", "compact.db-shm"] {
            #expect(!FileManager.default.fileExists(atPath: sandbox.path(file)), "\(file) was left behind")
        }
        #expect(try sandbox.snapshot() == before)

        // The same command fails for the same reason, not because of a file it left.
        let again = try sandbox.strata("vacuum", "damaged.db", "--into", "compact.db")
        #expect(again.errorLines == failed.errorLines)

        try sandbox.makeBigDatabase("good.db", rows: 100, wal: false)
        let rerun = try sandbox.strata("vacuum", "good.db", "--into", "compact.db")
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try integer("SELECT count(*) FROM t", in: sandbox.path("compact.db")) == 100)
    }

    @Test func aFileThatWasThereIsNeverRemoved() throws {
        let sandbox = try Sandbox()
        try sandbox.makeDamagedDatabase()
        // A stray file beside the target: not the command's to remove. (Not a -journal or -wal:
        // SQLite itself deletes those beside an empty database file.)
        try sandbox.write("stale", to: "compact.db-shm")
        let failed = try sandbox.strata("vacuum", "damaged.db", "--into", "compact.db")
        #expect(failed.status != 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("compact.db")))
        #expect(FileManager.default.contents(atPath: sandbox.path("compact.db-shm")) == Data("stale".utf8))
    }
}
#endif
