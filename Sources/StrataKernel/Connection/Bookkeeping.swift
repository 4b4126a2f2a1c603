// Marks the statements Strata runs for its own bookkeeping (schema version checks, introspection,
// `PRAGMA data_version` polls, the Litestream lock check, savepoints under names Strata invents),
// so the user's trace, profile and authorizer callbacks see only the statements the program ran,
// as in SQift. Callers: the introspection reader, the external-change poller, checkpoints, the
// transaction forms that open savepoints of their own; read by the trace registration and the
// authorizer hub. Statements run for a call the user made (a helper's INSERT, a migration step)
// are the user's and are never marked.

/// How deep the connection is in Strata's own bookkeeping; read on the connection's thread only.
package final class BookkeepingMarker {
    // The connection's, on its thread: unchecked, since every reported statement reads all three.
    @exclusivity(unchecked) fileprivate(set) var depth = 0
    /// How deep the connection is in an introspection call the user made (`readSchema()`):
    /// its reads answer the program, so they are the program's statements.
    @exclusivity(unchecked) fileprivate(set) var requestedDepth = 0
    /// How deep the connection is in a cache check (`PRAGMA schema_version`): Strata's own even
    /// inside a requested introspection, which a warm cache answers without reading anything.
    @exclusivity(unchecked) fileprivate(set) var cacheCheckDepth = 0

    /// Whether the statement SQLite reports now is Strata's own.
    package var isActive: Bool { cacheCheckDepth > 0 || (depth > 0 && requestedDepth == 0) }
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

    /// Runs `body`, a check of whether a cache is still valid: bookkeeping even inside
    /// ``asRequestedIntrospection(_:)``.
    package func withCacheCheck<T>(_ body: () throws -> T) rethrows -> T {
        let marker = authorizerHub.bookkeeping
        marker.cacheCheckDepth += 1
        defer { marker.cacheCheckDepth -= 1 }
        return try body()
    }

    /// Runs `body`, an introspection the user asked for (`readSchema()`, `tableInfoForTableNamed`):
    /// the reads it makes reach the trace and the user's authorizer, which may deny them.
    package func asRequestedIntrospection<T>(_ body: () throws -> T) rethrows -> T {
        let marker = authorizerHub.bookkeeping
        marker.requestedDepth += 1
        defer { marker.requestedDepth -= 1 }
        return try body()
    }
}
