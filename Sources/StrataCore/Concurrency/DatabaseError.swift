import StrataKernel
import StrataSchema
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// GRDB's name for SQLite's error, so code and habits from GRDB read as they mean: a
/// `DatabaseError` is an ``SQLiteError`` (its result code, message and SQL).
public typealias DatabaseError = SQLiteError

extension SQLiteError {
    /// What every call on a closed ``Database`` (or its queues) throws: `SQLITE_MISUSE`, with a
    /// message that says ``Database/close()`` was called.
    ///
    /// ```swift
    /// do { try await database.read { _ in } } catch DatabaseError.closed { /* shut down */ }
    /// ```
    public static let closed = SQLiteError(
        code: SQLITE_MISUSE, message: "The database is closed: close() was called, so it takes no new work")

    /// Matches an error against a particular one in a `catch` or `case` pattern, as
    /// `catch DatabaseError.closed` does; errors of other types never match.
    public static func ~= (pattern: SQLiteError, error: any Error) -> Bool {
        (error as? SQLiteError) == pattern
    }
}

/// What an observation's iterator throws for a use it cannot serve.
public enum ObservationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `next()` was called while another task awaited `next()` on a copy of the same iterator.
    /// Iterate one iterator from one task at a time, or make an iterator per task.
    case concurrentIteration

    /// Says what happened and what to do instead.
    public var description: String {
        switch self {
        case .concurrentIteration:
            return
                "An observation's next() was awaited by two tasks at once (two copies of one iterator): iterate it from one task, or make an iterator per task with makeAsyncIterator()"
        }
    }
}

extension ObservationError: LocalizedError {
    /// The same sentence as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
