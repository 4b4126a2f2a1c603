// Squeal's spellings that exist for ported code: its getters, `next()`/`selectNext…`, bindings by
// name, its transaction forms and its connection surface, beside its type names (StrataSqueal.swift).

import Foundation
import Strata

/// Squeal's `Database` surface on `Connection`: opening by path, where the data lives, and
/// running one statement with positional parameters.
extension Connection {
    /// Opens (creating if needed) the database at `path`; `":memory:"` opens an in-memory
    /// database and `""` a temporary one, as in Squeal.
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened.
    public convenience init(path: String) throws {
        try self.init(storageLocation: StorageLocation(path: path), flags: OpenFlags.make())
    }

    /// A new, empty in-memory database.
    ///
    /// Opening an in-memory database fails only when SQLite cannot allocate memory, which stops
    /// the program as any other allocation failure would.
    public class func newInMemoryDatabase() -> Connection {
        openInfallibly(.inMemory)
    }

    /// A new, empty temporary database: on disk in a file SQLite deletes when it closes.
    ///
    /// SQLite creates the file only when it first needs it, so opening fails only when SQLite
    /// cannot allocate memory or an automatic extension (`sqlite3_auto_extension`) refuses the
    /// connection; Squeal's signature cannot throw, so either stops the program.
    public class func newTemporaryDatabase() -> Connection {
        openInfallibly(.temporary)
    }

    /// Opens a location that touches no file: only memory exhaustion or a refusing automatic
    /// extension can fail it.
    static func openInfallibly(_ location: StorageLocation) -> Connection {
        do {
            return try Connection(storageLocation: location, flags: OpenFlags.make())
        } catch {
            // Out of memory, or an automatic extension refused the connection (litestream-vfs
            // 0.5.17 registers one): Squeal's non-throwing signature leaves no other way out.
            fatalError("SQLite could not open a \(location == .inMemory ? "in-memory" : "temporary") database: \(error)")
        }
    }

    /// The path the database was opened with: `":memory:"` for in-memory databases, `""` for
    /// temporary ones, otherwise the file path as given.
    public var path: String { openedPath }

    /// Whether the main database lives only in memory.
    public var isInMemoryDatabase: Bool { !openedPath.isEmpty && fileName.isEmpty }

    /// Whether the main database is a temporary one, deleted when the connection closes.
    public var isTemporaryDatabase: Bool { openedPath.isEmpty }

    /// Whether the main database is a file that outlives the connection.
    public var isPersistentDatabase: Bool { !fileName.isEmpty }

    /// The rowid of the most recent successful INSERT (Squeal's name for ``lastInsertRowID``).
    public var lastInsertedRowId: Int64 { lastInsertRowID }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE (Squeal's name for ``changes``).
    public var numberOfChangedRows: Int { changes }

    /// Prepares one statement, binding positional `parameters` when any are given.
    ///
    /// ```swift
    /// let statement = try db.prepareStatement("SELECT * FROM contacts WHERE name = ?", parameters: ["Amelia"])
    /// ```
    /// - Throws: `SQLiteError` for invalid SQL or a parameter count that does not match.
    public func prepareStatement(_ sql: SQL, parameters: [Bindable?] = []) throws -> Statement {
        try prepare(sql, parameters)
    }

    /// Runs one statement with positional `parameters` bound (through the statement cache).
    ///
    /// - Throws: `SQLiteError` for invalid SQL, a parameter count that does not match, or a
    ///   failing statement.
    public func execute(_ sql: SQL, parameters: [Bindable?]) throws {
        try run(sql, parameters)
    }
}
