// What code written against a database needs, apart from how it was opened: a `Database`, a
// read-only replica, or a test's temporary database all answer these the same way.

/// A database that reads: every read runs in one snapshot, on the calling thread (synchronous)
/// or without blocking it (async). Write functions of code that only reads against
/// `some DatabaseReader`, and hand it a ``Database`` or a read-only replica alike.
///
/// ```swift
/// func bookCount(in database: some DatabaseReader) async throws -> Int {
///     try await database.read { db in try db.query("SELECT count(*) FROM book") as Int? } ?? 0
/// }
/// ```
import StrataKernel
import StrataSchema
public protocol DatabaseReader: AnyObject, Sendable {
    /// Runs `closure` in one read transaction without blocking the caller's thread.
    func read<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// Runs `closure` in one read transaction, blocking the calling thread.
    @discardableResult
    func read<T>(_ closure: (Connection) throws -> T) throws -> T
    /// Drains the calls still running and closes; later calls throw ``SQLiteError/closed``.
    func close() async throws
}

/// A database that also writes: every write is one IMMEDIATE transaction that commits when its
/// closure returns and rolls back when it throws; `writeWithoutTransaction` says by
/// name that it is bare.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `closure` in one IMMEDIATE transaction without blocking the caller's thread.
    func write<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// Runs `closure` in one IMMEDIATE transaction, blocking the calling thread.
    @discardableResult
    func write<T>(_ closure: (Connection) throws -> T) throws -> T
    /// Runs `closure` with no transaction around it (`VACUUM`, pragmas) without blocking the caller's thread.
    func writeWithoutTransaction<T: Sendable>(_ closure: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// Runs `closure` with no transaction around it, blocking the calling thread.
    @discardableResult
    func writeWithoutTransaction<T>(_ closure: (Connection) throws -> T) throws -> T
}

extension Database: DatabaseWriter {}
