// Module StrataSqueal: Squeal's spellings over Strata, so code written for Squeal ports by changing
// its import: its type names (`Database`, `Table`, `ColumnType`, ...; here), its SQL helpers, the
// getters on `Statement` and `Row`, the statement extras, its transaction and savepoint forms, its
// connection surface and `DatabasePool` (the other files). `import Strata` alone carries none of
// them; they run on the kernel's own mechanisms (statement cache, renderer, pool core, savepoints).

@_exported import Strata
// SQift's spellings too (`Connection(storageLocation:)`, `executeWrite`): code written for Squeal
// sat on a SQift-shaped core, and imported beside this module `StrataSQift` would make its names
// ambiguous with this module's (`Database`, `Bindable`).
@_exported import StrataSQift
// Squeal's own code and its users' code lean on Foundation (`Data`, `NSNull`, `NSError`) without
// importing it, as Squeal's Apple-only builds made it visible; re-exported so that code ports as is.
@_exported import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Squeal's database type: a Strata `Connection`, with Squeal's helpers (`insertInto`,
/// `selectFrom`, `countFrom`, ...). Declared here, it shadows SQift's `Database` pool type for
/// code that imports `StrataSqueal`; that type stays reachable as `Strata.Database`.
public typealias Database = Connection

extension Connection {
    /// Opens a new, empty in-memory database, as Squeal's `Database()` does.
    ///
    /// Only in `StrataSqueal`: in core, SQift's `try Connection()` keeps meaning its throwing
    /// initializer. Opening an in-memory database fails only when SQLite cannot allocate memory
    /// or an automatic extension (`sqlite3_auto_extension`) refuses the connection; Squeal's
    /// signature cannot throw, so either stops the program. `try Connection(path: ":memory:")`
    /// is the throwing form.
    public convenience init() {
        do {
            try self.init(storageLocation: .inMemory, flags: OpenFlags.make())
        } catch {
            // Out of memory, or an automatic extension refused the connection.
            fatalError("SQLite could not open an in-memory database: \(error)")
        }
    }
}

/// Squeal's name for a rowid, as `insertInto` and `selectIdsFrom` return it.
public typealias RowId = Int64

extension Connection {
    /// `PRAGMA user_version` as Squeal's `Int32`, for code that asks for that type
    /// (`let v: Int32 = try db.queryUserVersionNumber()`); an unannotated call still gets core's `Int`.
    ///
    /// - Throws: `SQLiteError` when the pragma fails.
    @_disfavoredOverload
    public func queryUserVersionNumber() throws -> Int32 {
        // user_version is a 32-bit field in the database header, so this never truncates.
        Int32(truncatingIfNeeded: try queryUserVersionNumber() as Int)
    }

    /// Sets `PRAGMA user_version` from an `Int`, so the `Int` that `queryUserVersionNumber()`
    /// returns can be written back (`try db.updateUserVersionNumber(version + 1)`).
    ///
    /// - Throws: `SQLiteError` with code `SQLITE_RANGE` when `number` does not fit the 32-bit
    ///   field; `SQLiteError` when the pragma fails.
    @_disfavoredOverload
    public func updateUserVersionNumber(_ number: Int) throws {
        try UserVersionStore().record(Int64(number), self)
    }
}
