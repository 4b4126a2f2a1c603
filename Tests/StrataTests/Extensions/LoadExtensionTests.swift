#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataSQift
import Testing
import StrataTestSupport
import Strata
@testable import StrataCore

/// Loadable extensions, with a real one: the test compiles a small extension with the system's
/// C compiler against `sqlite3ext.h` (libsqlite3-dev) and loads the shared library.
@Suite struct LoadExtensionTests {
    static let source = """
        #include <sqlite3ext.h>
        SQLITE_EXTENSION_INIT1
        static void twice(sqlite3_context *context, int count, sqlite3_value **values) {
            sqlite3_result_int64(context, 2 * sqlite3_value_int64(values[0]));
        }
        int sqlite3_strataext_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
            SQLITE_EXTENSION_INIT2(api);
            return sqlite3_create_function(db, "strata_twice", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, twice, 0, 0);
        }
        """

    /// Builds `strataext.so` in `directory` and returns its path.
    static func buildExtension(in directory: TemporaryDirectory) throws -> String {
        let sourcePath = directory.path("strataext.c")
        let libraryPath = directory.path("strataext.so")
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let compiler = ChildProcess()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-shared", "-fPIC", "-o", libraryPath, sourcePath]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "cc could not build the test extension (.ci/run installs gcc)")
        return libraryPath
    }

    @Test func loadsARealExtensionForThatCallOnly() async throws {
        // A child process: on a thread of its own, not one of the cooperative pool's.
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let path = try Self.buildExtension(in: directory)
            let db = try Connection(storageLocation: .inMemory)
            #expect(throws: SQLiteError.self) { try db.query("SELECT strata_twice(21)") as Int? }
            try db.loadExtension(at: path, entryPoint: nil)
            #expect(try db.query("SELECT strata_twice(21)") as Int? == 42)
            // Loading stays off for SQL: load_extension() is refused after the call.
            let error = sqliteError { _ = try db.query("SELECT load_extension(?)", path) as Int? }
            #expect(error?.message.contains("not authorized") == true)
            // An explicit entry point works too.
            let other = try Connection(storageLocation: .inMemory)
            try other.loadExtension(at: path, entryPoint: "sqlite3_strataext_init")
            #expect(try other.query("SELECT strata_twice(-4)") as Int? == -8)
        }
    }

    @Test func missingAndBrokenFilesGiveClearErrors() async throws {
        // A child process: on a thread of its own, not one of the cooperative pool's.
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let db = try Connection(storageLocation: .inMemory)
            let missing = directory.path("nope.so")
            #expect(throws: ExtensionError.fileNotFound(path: missing)) { try db.loadExtension(at: missing) }
            let text = directory.path("text.so")
            try "not a library".write(toFile: text, atomically: true, encoding: .utf8)
            do {
                try db.loadExtension(at: text)
                Issue.record("a text file must not load")
            } catch ExtensionError.loadFailed(let path, let reason) {
                #expect(path == text && !reason.isEmpty)
            }
            let path = try Self.buildExtension(in: directory)
            do {
                try db.loadExtension(at: path, entryPoint: "no_such_entry_point")
                Issue.record("a missing entry point must fail")
            } catch ExtensionError.loadFailed(_, let reason) {
                #expect(reason.contains("no_such_entry_point"))
            }
        }
    }

    @Test func aDatabaseLoadsItsExtensionsOnEveryConnection() async throws {
        // A child process: on a thread of its own, not one of the cooperative pool's.
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let path = try Self.buildExtension(in: directory)
            let database = try Database(storageLocation: .onDisk(directory.path("db.sqlite")), extensions: [path])
            #expect(try database.executeWrite { try $0.query("SELECT strata_twice(5)") as Int? } == 10)
            #expect(try database.executeRead { try $0.query("SELECT strata_twice(6)") as Int? } == 12)
            #expect(throws: ExtensionError.self) {
                _ = try Database(storageLocation: .onDisk(directory.path("other.sqlite")), extensions: [directory.path("nope.so")])
            }
        }
    }
}
#endif
