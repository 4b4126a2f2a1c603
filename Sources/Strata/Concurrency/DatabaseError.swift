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
