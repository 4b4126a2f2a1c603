import Foundation

/// What a ``Database`` throws for work it can no longer do.
public enum DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ``Database/close()`` was called: the database takes no new work.
    case closed

    /// Says what happened and why the call was refused.
    public var description: String {
        switch self {
        case .closed: return "The database is closed: close() was called, so it takes no new work"
        }
    }
}

extension DatabaseError: LocalizedError {
    /// The same sentence as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
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
