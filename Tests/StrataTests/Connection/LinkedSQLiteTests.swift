import Foundation
import StrataSQift
import Testing
import Strata
#if canImport(SQLite3)
import SQLite3
#endif

/// Which SQLite the run loaded, so a pass of the suite on another library (`.ci/run` runs it
/// again on SQLite 3.54 through LD_LIBRARY_PATH) cannot silently have run the system one.
@Suite struct LinkedSQLiteTests {
    @Test func theRunLoadedTheSQLiteItMeantTo() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let expected =
            ProcessInfo.processInfo.environment["STRATA_EXPECT_SQLITE_VERSION"].flatMap { $0.isEmpty ? nil : $0 }
            // Unset: the library the header came from (3.40.1 on Debian 12).
            ?? SQLITE_VERSION
        #expect(connection.sqliteVersion == expected)
        #expect(connection.sqliteVersion == String(cString: sqlite3_libversion()))
    }

    @Test func compileOptionsAreThoseOfTheLoadedLibrary() throws {
        let connection = try Connection(storageLocation: .inMemory)
        let options = try connection.compileOptions
        #expect(!options.isEmpty)
        #expect(options.allSatisfy { !$0.hasPrefix("SQLITE_") })
        // The suite relies on these, in both libraries CI runs it on.
        #expect(options.contains("ENABLE_FTS5"))
        #expect(options.contains("ENABLE_SESSION"))
        #expect(options.contains("THREADSAFE=1"))
        #expect(options.contains("ENABLE_SNAPSHOT") == SQLiteLibrary.supportsSnapshots)
    }

    @Test func whatIsMissingIsNamedWithWhatToLink() {
        #expect(SQLiteLibraryError.encryptionUnavailable.description.contains("SQLite3 Multiple Ciphers"))
        #expect(SQLiteLibraryError.snapshotsUnavailable.description.contains("SQLITE_ENABLE_SNAPSHOT"))
        #expect(SQLiteLibraryError.encryptionUnavailable.localizedDescription.contains("cannot encrypt"))
    }
}
