// Marks the statements Strata runs for its own bookkeeping (schema version checks, introspection,
// `PRAGMA data_version` polls, the Litestream lock check, savepoints under names Strata invents),
// so the user's trace, profile and authorizer callbacks see only the statements the program ran,
// as in SQift. Callers: the introspection reader, the external-change poller, checkpoints, the
// transaction forms that open savepoints of their own; read by the trace registration and the
// authorizer hub. Statements run for a call the user made (a helper's INSERT, a migration step)
// are the user's and are never marked.

/// How deep the connection is in Strata's own bookkeeping; read on the connection's thread only.
final class BookkeepingMarker {
    fileprivate(set) var depth = 0

    /// Whether the statement SQLite reports now is Strata's own.
    var isActive: Bool { depth > 0 }
}

extension Connection {
    /// Runs `body`, whose statements are Strata's bookkeeping: they reach neither `traceEvent`,
    /// `trace` nor the user's authorizer. `body` must finish (reset) the statements it runs, so
    /// their profile events fall inside the scope too.
    package func withBookkeeping<T>(_ body: () throws -> T) rethrows -> T {
        let marker = authorizerHub.bookkeeping
        marker.depth += 1
        defer { marker.depth -= 1 }
        return try body()
    }
}
