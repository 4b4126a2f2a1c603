// What the linked SQLite library is and can do: its version and compile options, and the
// functions only some builds export (encryption, WAL snapshots), looked up at run time so one
// Strata binary links against any libsqlite3 and names what is missing instead of failing to load.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(SQLite3)
import SQLite3
#endif

/// A capability the linked SQLite library does not have.
///
/// Encryption and WAL snapshots exist only in some builds of SQLite (SQLCipher and SQLite3
/// Multiple Ciphers encrypt; `SQLITE_ENABLE_SNAPSHOT` builds take snapshots). Strata looks their
/// functions up when first used, so a program linked against a library without them still loads
/// and runs, and the call that needs one throws this error, which says what to link instead.
///
/// ```swift
/// do { try connection.usePassphrase("secret") }
/// catch SQLiteLibraryError.encryptionUnavailable { /* the system libsqlite3 does not encrypt */ }
/// ```
public enum SQLiteLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The linked SQLite exports neither `sqlite3_key_v2` nor `sqlite3_key` (nor the rekey
    /// functions): it cannot encrypt. Link SQLCipher or SQLite3 Multiple Ciphers.
    case encryptionUnavailable
    /// The linked SQLite exports no `sqlite3_snapshot_get` / `sqlite3_snapshot_open` (it was
    /// built without `SQLITE_ENABLE_SNAPSHOT`).
    case snapshotsUnavailable

    /// A sentence that says what is missing and what to link.
    public var description: String {
        let version = SQLiteLibrary.version
        switch self {
        case .encryptionUnavailable:
            return
                "The linked SQLite \(version) cannot encrypt (it exports no sqlite3_key_v2 or sqlite3_key): link an encrypting SQLite, such as SQLite3 Multiple Ciphers or SQLCipher, in place of libsqlite3 (see the Encryption article)"
        case .snapshotsUnavailable:
            return "The linked SQLite \(version) has no WAL snapshots (it exports no sqlite3_snapshot_get): link a SQLite built with SQLITE_ENABLE_SNAPSHOT"
        }
    }
}

extension SQLiteLibraryError: LocalizedError {
    /// The same sentence as ``description``.
    public var errorDescription: String? { description }
}

/// The functions of the linked SQLite that only some builds export, found with `dlsym` once.
///
/// `dlopen(nil)` is the program itself with every library it loaded, so the lookup finds the
/// symbols of the very libsqlite3 the process linked (the one `LD_LIBRARY_PATH` or an rpath
/// chose), never another copy on disk.
package enum SQLiteLibrary {
    /// `sqlite3_libversion()`: the version of the library loaded, not of the header compiled against.
    package static var version: String { String(cString: sqlite3_libversion()) }

    typealias KeyFunction = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int32) -> Int32
    typealias KeyWithoutSchemaFunction = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int32) -> Int32
    typealias SnapshotGetFunction = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias SnapshotOpenFunction = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?) -> Int32
    typealias SnapshotFreeFunction = @convention(c) (OpaquePointer?) -> Void
    typealias SnapshotCompareFunction = @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32

    /// The address of `name` in the loaded program and its libraries, or nil.
    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        // The program's own handle: closing it only drops the reference dlopen added.
        defer { dlclose(program) }
        return dlsym(program, name)
    }

    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        symbol(name).map { unsafeBitCast($0, to: type) }
    }

    // C function pointers are plain addresses (Sendable), looked up once, on first use.

    static let keyV2 = function("sqlite3_key_v2", as: KeyFunction.self)
    static let keyV1 = function("sqlite3_key", as: KeyWithoutSchemaFunction.self)
    static let rekeyV2 = function("sqlite3_rekey_v2", as: KeyFunction.self)
    static let rekeyV1 = function("sqlite3_rekey", as: KeyWithoutSchemaFunction.self)

    /// Calls `sqlite3_key_v2` on the main schema, or `sqlite3_key` where only it exists; nil
    /// when the library exports neither.
    static func key(_ db: OpaquePointer, _ key: UnsafeRawBufferPointer) -> Int32? {
        if let keyV2 { return keyV2(db, "main", key.baseAddress, Int32(key.count)) }
        return keyV1.map { $0(db, key.baseAddress, Int32(key.count)) }
    }

    /// Calls `sqlite3_rekey_v2` on the main schema, or `sqlite3_rekey`; nil when neither exists.
    static func rekey(_ db: OpaquePointer, _ key: UnsafeRawBufferPointer) -> Int32? {
        if let rekeyV2 { return rekeyV2(db, "main", key.baseAddress, Int32(key.count)) }
        return rekeyV1.map { $0(db, key.baseAddress, Int32(key.count)) }
    }

    static let snapshotGet = function("sqlite3_snapshot_get", as: SnapshotGetFunction.self)
    static let snapshotOpen = function("sqlite3_snapshot_open", as: SnapshotOpenFunction.self)
    static let snapshotFree = function("sqlite3_snapshot_free", as: SnapshotFreeFunction.self)
    static let snapshotCompare = function("sqlite3_snapshot_cmp", as: SnapshotCompareFunction.self)

    /// Whether the linked SQLite can encrypt (exports a key and a rekey function).
    package static var supportsEncryption: Bool { (keyV2 != nil || keyV1 != nil) && (rekeyV2 != nil || rekeyV1 != nil) }

    /// Whether the linked SQLite can take and open WAL snapshots.
    package static var supportsSnapshots: Bool {
        snapshotGet != nil && snapshotOpen != nil && snapshotFree != nil && snapshotCompare != nil
    }
}

extension Connection {
    /// The version of the SQLite library this process loaded (`sqlite3_libversion()`), such as
    /// "3.54.0": the library found at run time, which may differ from the header Strata was
    /// compiled against (`LD_LIBRARY_PATH`, an rpath, a package providing its own SQLite).
    public var sqliteVersion: String { SQLiteLibrary.version }

    /// The options the linked SQLite was compiled with (`PRAGMA compile_options`), without their
    /// `SQLITE_` prefix, such as "ENABLE_FTS5" or "MAX_VARIABLE_NUMBER=250000": what a program
    /// checks before relying on a feature only some builds have.
    /// - Throws: `SQLiteError` when the pragma fails.
    public var compileOptions: [String] {
        get throws {
            var statement: OpaquePointer?
            try check(sqlite3_prepare_v2(handle, "PRAGMA compile_options", -1, &statement, nil))
            defer { sqlite3_finalize(statement) }
            var options: [String] = []
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { return options }
                guard code == SQLITE_ROW else { throw SQLiteError(handle: handle, code: code, sql: "PRAGMA compile_options") }
                if let text = sqlite3_column_text(statement, 0) { options.append(String(cString: text)) }
            }
        }
    }
}
