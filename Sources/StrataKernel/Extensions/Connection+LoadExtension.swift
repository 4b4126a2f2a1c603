// Loadable extensions (spatial functions, Litestream's read-replica VFS, ...), enabled only for
// the one call that loads them, so SQL can never load one (`load_extension()` stays off).
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Why an extension could not be loaded.
public enum ExtensionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file at the path.
    case fileNotFound(path: String)
    /// The linked SQLite was built without extension loading (`SQLITE_OMIT_LOAD_EXTENSION`).
    case loadingDisabled
    /// SQLite could not load the file (not a shared library, no entry point, the entry point failed).
    case loadFailed(path: String, reason: String)

    /// A sentence that says what happened.
    public var description: String {
        switch self {
        case .fileNotFound(let path): return "No extension file at \(path)"
        case .loadingDisabled: return "The linked SQLite does not allow loading extensions"
        case .loadFailed(let path, let reason): return "Cannot load the extension \(path): \(reason)"
        }
    }
}

extension Connection {
    /// Loads a SQLite extension from a shared library.
    ///
    /// ```swift
    /// try connection.loadExtension(at: "/usr/lib/x86_64-linux-gnu/mod_spatialite.so", entryPoint: nil)
    /// ```
    /// Loading is enabled for this call only (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`) and turned
    /// off again, so SQL run later cannot load anything. `entryPoint` nil lets SQLite derive it
    /// from the file name. See <https://www.sqlite.org/loadext.html>.
    ///
    /// An extension may open SQLite files of its own through the process's default VFS:
    /// mod_spatialite's PROJ keeps `proj.db` open and closes it at exit, finding its file's
    /// methods by the size of whatever VFS is the default *then*. Register a custom VFS as the
    /// default before loading such an extension, or not at all (give it by name per connection):
    /// a default changed in between crashes the process at exit.
    /// - Throws: ``ExtensionError``: no such file, loading not built in, or SQLite's reason.
    public func loadExtension(at path: String, entryPoint: String? = nil) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw ExtensionError.fileNotFound(path: path) }
        #if STRATA_SQLITE_SHIM
        guard sqlite3_compileoption_used("OMIT_LOAD_EXTENSION") == 0 else { throw ExtensionError.loadingDisabled }
        var previous: Int32 = 0
        guard strata_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, -1, &previous) == SQLITE_OK,
            strata_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, nil) == SQLITE_OK
        else {
            throw ExtensionError.loadingDisabled
        }
        defer { _ = strata_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, previous, nil) }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_load_extension(handle, path, entryPoint, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw ExtensionError.loadFailed(path: path, reason: message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code)))
        }
        #else
        // Apple's SQLite does not offer extension loading.
        throw ExtensionError.loadingDisabled
        #endif
    }
}

extension Connection {
    /// Runs `body` with double-quoted strings off (`SQLITE_DBCONFIG_DQS_DML`): a quoted name that
    /// names nothing is an error, not the string SQLite's legacy rule would make of it. For
    /// layers that compile SQL they quote themselves (the sync engine's rules) to check names.
    package func withoutDoubleQuotedStrings<T>(_ body: () throws -> T) throws -> T {
        var previous: Int32 = 1
        guard strata_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, -1, &previous) == SQLITE_OK else { return try body() }
        _ = strata_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 0, nil)
        defer { _ = strata_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, previous, nil) }
        // Statements prepared before keep the setting they were compiled under.
        return try body()
    }
}

extension ExtensionError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
