// Changesets: a capability beyond the seeds, over SQLite's session
// extension (record what a connection changes, invert, combine, apply with conflict handling,
// rebase). It is declared by Strata's own StrataSQLiteSession header on every platform and
// checked once at run time (the linked library may lack it).
import Foundation
import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif
import StrataSQLiteSession

/// What can go wrong with changesets before SQLite is asked.
public enum ChangesetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The linked SQLite was built without `SQLITE_ENABLE_SESSION` and `SQLITE_ENABLE_PREUPDATE_HOOK`.
    case sessionExtensionUnavailable
    /// The session was closed; record again with `recordChanges`.
    case sessionClosed
    /// The changeset is larger than SQLite's in-memory functions take (2 GiB); use the streaming forms.
    case tooLarge(bytes: Int)
    /// The option needs a newer SQLite than the one linked.
    case optionUnavailable(String)
    /// The table has generated columns, whose changes the linked SQLite's session extension
    /// cannot record (it fails every changeset with "database schema has changed").
    case generatedColumnsUnsupported(table: String)

    /// A sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case .sessionExtensionUnavailable:
            return
                "The linked SQLite has no session extension (SQLITE_ENABLE_SESSION and SQLITE_ENABLE_PREUPDATE_HOOK); changesets need a build with both, such as Debian's libsqlite3"
        case .sessionClosed:
            return "The change session is closed; start a new one with recordChanges()"
        case .tooLarge(let bytes):
            return "A changeset of \(bytes) bytes is over SQLite's 2 GiB in-memory limit; use the streaming forms"
        case .optionUnavailable(let option):
            return "\(option) needs a newer SQLite than \(String(cString: sqlite3_libversion()))"
        case .generatedColumnsUnsupported(let table):
            return
                "Table \(table) has generated columns, which the session extension of SQLite \(String(cString: sqlite3_libversion())) cannot record (every changeset would fail with SQLITE_SCHEMA); record a table without them, or compute the value in a view"
        }
    }
}

/// Whether the linked SQLite has the session extension, asked once.
enum SessionExtension {
    static let isAvailable: Bool =
        sqlite3_compileoption_used("ENABLE_SESSION") == 1 && sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK") == 1

    static func require() throws {
        guard isAvailable else { throw ChangesetError.sessionExtensionUnavailable }
    }

    /// Whether a session can record a table with a generated column: SQLite 3.40's counts the
    /// generated column in the pre-update hook but not in `table_info`, and answers SQLITE_SCHEMA.
    /// Asked once, of the linked library itself, on a private in-memory database.
    static let recordsGeneratedColumns: Bool = {
        guard isAvailable else { return false }
        var db: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else { return false }
        defer { sqlite3_close_v2(db) }
        guard sqlite3_exec(db, "CREATE TABLE t(k INTEGER PRIMARY KEY, a, g AS (a))", nil, nil, nil) == SQLITE_OK else { return false }
        var session: OpaquePointer?
        guard sqlite3session_create(db, "main", &session) == SQLITE_OK, let session else { return false }
        defer { sqlite3session_delete(session) }
        guard sqlite3session_attach(session, "t") == SQLITE_OK,
            sqlite3_exec(db, "INSERT INTO t(k, a) VALUES (1, 2)", nil, nil, nil) == SQLITE_OK
        else { return false }
        var count: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let code = sqlite3session_changeset(session, &count, &bytes)
        sqlite3_free(bytes)
        return code == SQLITE_OK && count > 0
    }()
}

/// The kind of change a ``Change`` records (`.insert`, `.update`, `.delete`): the one row
/// operation type, shared with update hooks.
public typealias ChangeOperation = Connection.UpdateHookType

/// One row change of a changeset.
///
/// `oldValues` and `newValues` have one element per column of the table. An element is nil
/// when the changeset does not carry that value (an INSERT has no old values, a DELETE no new
/// ones, an UPDATE carries only the changed columns and the primary key); `.null` is SQL NULL.
public struct Change: Sendable, Equatable {
    /// The table the row belongs to.
    public let table: String
    /// What happened to the row.
    public let operation: ChangeOperation
    /// The row's values before the change.
    public let oldValues: [BindingValue?]
    /// The row's values after the change.
    public let newValues: [BindingValue?]
    /// Which columns make up the table's primary key.
    public let primaryKeyColumns: [Bool]
    /// Whether the change was made indirectly (by a trigger or foreign key action, or while the
    /// session was marked indirect).
    public let isIndirect: Bool

    /// The primary key's values, from the old row (or the new one for an INSERT).
    public var primaryKey: [BindingValue] {
        zip(primaryKeyColumns.indices, primaryKeyColumns).compactMap { index, isKey in
            isKey ? (oldValues[index] ?? newValues[index]) : nil
        }
    }
}

extension Change {
    /// Reads the change the iterator is on.
    init(iterator: OpaquePointer, patchset: Bool = false) throws {
        var tableName: UnsafePointer<CChar>?
        var columnCount: Int32 = 0
        var code: Int32 = 0
        var indirect: Int32 = 0
        try checkSession(sqlite3changeset_op(iterator, &tableName, &columnCount, &code, &indirect))
        guard let operation = ChangeOperation(code: code) else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: "The changeset holds an unknown operation (\(code))")
        }
        var keyFlags: UnsafeMutablePointer<UInt8>?
        var keyCount: Int32 = 0
        try checkSession(sqlite3changeset_pk(iterator, &keyFlags, &keyCount))
        let columns = Int(max(0, columnCount))
        table = tableName.map { String(cString: $0) } ?? ""
        self.operation = operation
        isIndirect = indirect != 0
        primaryKeyColumns = (0..<columns).map { index in keyFlags.map { $0[index] != 0 } ?? false }
        oldValues =
            operation == .insert
            ? Array(repeating: nil, count: columns)
            : try (0..<columns).map { try Change.value(iterator, Int32($0), sqlite3changeset_old) }
        newValues =
            operation == .delete
            ? Array(repeating: nil, count: columns)
            : try (0..<columns).map { try Change.value(iterator, Int32($0), sqlite3changeset_new) }
    }

    private typealias ValueReader = (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32

    private static func value(_ iterator: OpaquePointer, _ column: Int32, _ read: ValueReader) throws -> BindingValue? {
        var value: OpaquePointer?
        let code = read(iterator, column, &value)
        // A patchset carries no old values for updates and deletes beyond the key: SQLite says so with SQLITE_MISUSE.
        if code == SQLITE_MISUSE { return nil }
        try checkSession(code)
        return value.map(BindingValue.init(reading:))
    }
}

/// Throws for a session-extension result code that is not a success.
func checkSession(_ code: Int32, _ what: String = "changeset") throws {
    guard code != SQLITE_OK else { return }
    let message = sqlite3_errstr(code).map { String(cString: $0) } ?? "error \(code)"
    throw SQLiteError(code: code & 0xFF, message: "The \(what) could not be read or written: \(message)", extendedCode: code)
}

/// A set of row changes, as SQLite's session extension encodes them: record them with
/// `Connection.recordChanges(tables:)`, apply them with `Connection.apply(_:filter:options:onConflict:)`.
///
/// ```swift
/// let session = try db.recordChanges()
/// try db.run("UPDATE players SET score = score + 1")
/// let changeset = try session.changeset()
/// try db.apply(try changeset.inverted()) { _ in .abort }   // undo
/// ```
/// A changeset is a value over its bytes (`data`), so it can be stored, sent and compared.
/// See <https://www.sqlite.org/sessionintro.html>.
public struct Changeset: Sendable, Equatable, Sequence {
    /// The changeset's bytes, in SQLite's format.
    public let data: Data

    /// A changeset from bytes made by SQLite (a file, a message from a replica). They are checked
    /// when the changeset is read or applied.
    public init(data: Data) { self.data = data }

    /// Whether the changeset holds no change.
    public var isEmpty: Bool { data.isEmpty }

    /// Its changes, in order.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_CORRUPT`, ...) for bytes that are not a changeset;
    ///   ``ChangesetError`` when the extension is missing.
    public func changes() throws -> [Change] {
        var changes: [Change] = []
        try forEachChange { changes.append($0) }
        return changes
    }

    /// Calls `body` with each change in order, without building an array.
    ///
    /// - Throws: as ``changes()``, or what `body` throws.
    public func forEachChange(_ body: (Change) throws -> Void) throws {
        try SessionExtension.require()
        try withBytes { count, bytes in
            var iterator: OpaquePointer?
            try checkSession(sqlite3changeset_start(&iterator, count, bytes))
            try Changeset.walk(iterator, body)
        }
    }

    /// Reads every change of a started iterator, then finalizes it; the first error ends the walk.
    static func walk(_ iterator: OpaquePointer?, _ body: (Change) throws -> Void) throws {
        guard let iterator else { return }
        var failure: Error?
        while true {
            let code = sqlite3changeset_next(iterator)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                failure = SQLiteError(code: code & 0xFF, message: "The changeset is damaged: \(String(cString: sqlite3_errstr(code)))", extendedCode: code)
                break
            }
            do { try body(try Change(iterator: iterator)) } catch { failure = error; break }
        }
        let finalized = sqlite3changeset_finalize(iterator)
        if let failure { throw failure }
        try checkSession(finalized)
    }

    /// The changeset that undoes this one: inserts become deletes, deletes inserts, and updates
    /// swap their old and new values.
    ///
    /// - Throws: `SQLiteError` for bytes that are not a changeset (a patchset cannot be inverted).
    public func inverted() throws -> Changeset {
        try SessionExtension.require()
        return try withBytes { count, bytes in
            try Changeset.output { sqlite3changeset_invert(count, bytes, $0, $1) }
        }
    }

    /// This changeset followed by `other`, as one: changes to the same row are merged.
    ///
    /// - Throws: `SQLiteError` for bytes that are not a changeset, or a changeset and a patchset mixed.
    public func concatenated(with other: Changeset) throws -> Changeset {
        try SessionExtension.require()
        return try withBytes { count, bytes in
            try other.withBytes { otherCount, otherBytes in
                try Changeset.output { sqlite3changeset_concat(count, bytes, otherCount, otherBytes, $0, $1) }
            }
        }
    }

    /// Iterates the changes; a changeset that does not parse ends early (``changes()`` throws instead).
    public func makeIterator() -> IndexingIterator<[Change]> {
        ((try? changes()) ?? []).makeIterator()
    }

    /// Runs `body` with the bytes as SQLite takes them, checked first unless they are not a
    /// changeset (a rebase buffer).
    func withBytes<R>(validating: Bool = true, _ body: (Int32, UnsafeMutableRawPointer?) throws -> R) throws -> R {
        guard let count = Int32(exactly: data.count) else { throw ChangesetError.tooLarge(bytes: data.count) }
        if validating { try ChangesetFormat.validate(data) }
        guard count > 0 else { return try body(0, nil) }
        // SQLite's changeset functions take a non-const pointer but only read the bytes.
        return try data.withUnsafeBytes { try body(count, UnsafeMutableRawPointer(mutating: $0.baseAddress)) }
    }

    /// A changeset from a function that hands back a buffer allocated by SQLite.
    static func output(_ produce: (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Int32) throws -> Changeset {
        var count: Int32 = 0
        var buffer: UnsafeMutableRawPointer?
        let code = produce(&count, &buffer)
        defer { sqlite3_free(buffer) }
        try checkSession(code)
        guard let buffer, count > 0 else { return Changeset(data: Data()) }
        return Changeset(data: Data(bytes: buffer, count: Int(count)))
    }
}

/// A patchset: a changeset that records only the new values of updates and the keys of deleted
/// rows (smaller; it cannot be inverted). SQLite's functions take both.
public typealias Patchset = Changeset

extension ChangesetError: LocalizedError {
    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
