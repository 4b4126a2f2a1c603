import Foundation
import StrataCore
#if canImport(SQLite3)
import SQLite3
#endif
import StrataSQLiteSession

/// Records the changes made through one connection, to turn them into a changeset.
///
/// ```swift
/// let session = try db.recordChanges(tables: ["players"])
/// try db.run("UPDATE players SET score = 12 WHERE id = ?", 1)
/// let changeset = try session.changeset()
/// ```
/// Only tables with a primary key are recorded (SQLite's rule); ``untrackedTables()`` names the
/// others so they are not missed silently. A session belongs to its connection's thread; it
/// closes on ``close()`` or when it goes away. See <https://www.sqlite.org/session/intro.html>.
public final class ChangeSession {
    /// The connection whose changes are recorded.
    public let connection: Connection
    private var handle: OpaquePointer?
    /// nil when every table is recorded.
    private var tables: [String]?

    init(connection: Connection, tables: [String]?) throws {
        try SessionExtension.require()
        self.connection = connection
        // SQLite would chain the hook capture's context as if it were a session (and crash).
        guard !PreupdateHookOwners.isCapturing(connection.handle) else {
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message: "Cannot record changes while a sync replica's write captures this connection's changes: record them before or after the write")
        }
        connection.deleteRowByRow()
        var session: OpaquePointer?
        try checkSession(sqlite3session_create(connection.handle, "main", &session), "session")
        handle = session
        PreupdateHookOwners.sessionOpened(on: connection.handle)
        if let tables {
            self.tables = []
            for table in tables { try attach(table: table) }
        } else {
            try checkSession(sqlite3session_attach(session, nil), "session")
        }
    }

    deinit { close() }

    /// Ends the session and frees what it recorded. Further calls throw ``ChangesetError/sessionClosed``.
    public func close() {
        if let handle {
            sqlite3session_delete(handle)
            PreupdateHookOwners.sessionClosed(on: connection.handle)
        }
        handle = nil
    }

    private func open() throws -> OpaquePointer {
        guard let handle else { throw ChangesetError.sessionClosed }
        return handle
    }

    /// Records one more table too.
    ///
    /// - Throws: ``ChangesetError/sessionClosed``; `SQLiteError` from SQLite.
    public func attach(table: String) throws {
        try checkSession(sqlite3session_attach(try open(), table), "session")
        if tables != nil, !(tables ?? []).contains(where: { sameIdentifier($0, table) }) { tables?.append(table) }
    }

    /// Adds to the session the changes that turn `table` of the attached database `database`
    /// into `table` of the main database, as if they had been made here.
    ///
    /// ```swift
    /// try db.attachDatabase(from: .onDisk(oldPath), withName: "old")
    /// try session.diff(from: "old", table: "players")
    /// ```
    /// - Throws: `SQLiteError` when the two tables differ in shape or have no primary key.
    public func diff(from database: String, table: String) throws {
        let session = try open()
        try attach(table: table)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3session_diff(session, database, table, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            throw SQLiteError(code: code & 0xFF, message: "Cannot diff \(table) from \(database): \(text)", extendedCode: code)
        }
    }

    /// The recorded changes, with old and new values. A key renamed to one its collation calls
    /// equal (`'k'` to `'K'` under NOCASE) is the DELETE of the old row and the INSERT of the new.
    ///
    /// - Throws: ``ChangesetError/sessionClosed``; ``ChangesetError/generatedColumnsUnsupported(table:)``
    ///   for a recorded table with generated columns where the linked SQLite cannot record them;
    ///   `SQLiteError` from SQLite.
    public func changeset() throws -> Changeset {
        let session = try open()
        // A key renamed under its collation comes out as an UPDATE no apply accepts: made a DELETE
        // (not in `patchset()`, whose UPDATE lacks the old key, nor in the streamed file).
        return try explainingGeneratedColumns { try Changeset.output { sqlite3session_changeset(session, $0, $1) } }.withKeyChangesAsDeletes()
    }

    /// Refuses, by name, a table whose changes the linked SQLite cannot record (generated columns
    /// on SQLite 3.40): for a caller that will record it on every write and wants to know first.
    /// Checked here rather than on every attach, which runs inside write transactions.
    package static func refuseUnrecordable(tables: [String], on connection: Connection) throws {
        guard !SessionExtension.recordsGeneratedColumns else { return }
        for table in tables where try connection.schemaReader.columns(ofTable: table).contains(where: { $0.hidden == 2 || $0.hidden == 3 }) {
            throw ChangesetError.generatedColumnsUnsupported(table: table)
        }
    }

    /// SQLite 3.40's session answers SQLITE_SCHEMA for a table with generated columns: that
    /// failure is named for what it is.
    private func explainingGeneratedColumns<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.code == SQLITE_SCHEMA && !SessionExtension.recordsGeneratedColumns {
            let recorded = try tables ?? connection.schemaReader.userTableNames()
            try Self.refuseUnrecordable(tables: recorded, on: connection)
            throw error
        }
    }

    /// The recorded changes as a patchset: new values only (smaller; cannot be inverted).
    ///
    /// - Throws: ``ChangesetError/sessionClosed``; `SQLiteError` from SQLite.
    public func patchset() throws -> Patchset {
        let session = try open()
        return try explainingGeneratedColumns { try Changeset.output { sqlite3session_patchset(session, $0, $1) } }
    }

    /// Writes the changeset to a file in pieces, for changesets larger than memory.
    ///
    /// - Throws: ``ChangesetError/sessionClosed``; `SQLiteError` from SQLite or the file.
    public func writeChangeset(to url: URL) throws {
        let session = try open()
        try ChangesetFile.write(to: url) { output, context in sqlite3session_changeset_strm(session, output, context) }
    }

    /// Whether nothing has been recorded (a closed session is empty).
    public var isEmpty: Bool {
        guard let handle else { return true }
        return sqlite3session_isempty(handle) != 0
    }

    /// Whether changes are being recorded; set false to pause.
    public var isEnabled: Bool {
        get { handle.map { sqlite3session_enable($0, -1) != 0 } ?? false }
        set { if let handle { sqlite3session_enable(handle, newValue ? 1 : 0) } }
    }

    /// Whether the changes recorded from now on are marked indirect.
    public var isIndirect: Bool {
        get { handle.map { sqlite3session_indirect($0, -1) != 0 } ?? false }
        set { if let handle { sqlite3session_indirect(handle, newValue ? 1 : 0) } }
    }

    /// The memory the session uses, in bytes.
    public var memoryUsed: Int64 {
        handle.map { Int64(sqlite3session_memory_used($0)) } ?? 0
    }

    /// The recorded tables (all user tables when the session records every table) that SQLite
    /// does not track because they have no primary key.
    ///
    /// - Throws: `SQLiteError` when the schema cannot be read.
    public func untrackedTables() throws -> [String] {
        let reader = connection.schemaReader
        let names = try tables ?? reader.userTableNames()
        return try names.filter { name in
            try reader.table(named: name) != nil && !reader.columns(ofTable: name).contains { $0.primaryKeyIndex > 0 }
        }
    }
}

extension Connection {
    /// Starts recording the changes made through this connection to `tables` (every table when nil).
    ///
    /// ```swift
    /// let session = try db.recordChanges()
    /// try db.run("INSERT INTO players(name) VALUES(?)", "Ann")
    /// let undo = try session.changeset().inverted()
    /// ```
    /// - Throws: ``ChangesetError/sessionExtensionUnavailable`` when the linked SQLite lacks the
    ///   session extension; `SQLiteError` from SQLite.
    public func recordChanges(tables: [String]? = nil) throws -> ChangeSession {
        try ChangeSession(connection: self, tables: tables)
    }
}

/// Who holds each connection's pre-update hook: its sessions (which SQLite chains together) or
/// one hook capture (which must be alone). SQLite only hands back a hook's context, so the
/// owners are tracked here, by connection handle, for each side to see the other first.
package enum PreupdateHookOwners {
    private struct Owners {
        var sessions = 0
        var capturing = false
    }

    private static let owners = Locked<[UInt: Owners]>([:])

    private static func key(_ handle: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle))) }

    static func isCapturing(_ handle: OpaquePointer) -> Bool { owners.withLock { $0[key(handle)]?.capturing ?? false } }

    package static func hasSessions(_ handle: OpaquePointer) -> Bool { owners.withLock { ($0[key(handle)]?.sessions ?? 0) > 0 } }

    static func sessionOpened(on handle: OpaquePointer) { owners.withLock { $0[key(handle), default: Owners()].sessions += 1 } }

    static func sessionClosed(on handle: OpaquePointer) { update(handle) { $0.sessions = max(0, $0.sessions - 1) } }

    package static func capture(_ capturing: Bool, on handle: OpaquePointer) { update(handle) { $0.capturing = capturing } }

    private static func update(_ handle: OpaquePointer, _ change: (inout Owners) -> Void) {
        owners.withLock { owners in
            var entry = owners[key(handle)] ?? Owners()
            change(&entry)
            owners[key(handle)] = entry.sessions == 0 && !entry.capturing ? nil : entry
        }
    }
}
