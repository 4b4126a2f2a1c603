// Which tables and columns each committed transaction changed, on a connection that observation
// watches. Strata's statements all step through `Statement`, so the tracker hears of every
// execution there, once per execution (not per row), and needs no SQLite hook a user might also set.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Collects what the statements of the current transaction wrote and hands it on after each
/// commit, on the connection's own thread.
///
/// A statement's writes are learned once, from the authorizer while Strata compiles it, and kept
/// on the compiled statement; a statement that ran is added to the transaction's writes, and when
/// the connection is back in autocommit mode the transaction is over: committed (reported) or
/// rolled back (forgotten). Because the report comes after `sqlite3_step` returned from the
/// COMMIT, a connection opened afterwards sees the commit.
package final class WriteTracker {
    /// Receives each committed transaction's writes (never empty).
    private let onCommit: (DatabaseAccess) -> Void
    /// The writes of the transaction in progress.
    private var pending = DatabaseAccess()

    package init(onCommit: @escaping (DatabaseAccess) -> Void) {
        self.onCommit = onCommit
    }

    /// Called once per execution of a statement of the tracked connection.
    func statementRan(_ prepared: PreparedStatement, on connection: Connection) {
        if let written = prepared.writeAccess {
            if written.rollsBack {
                pending = DatabaseAccess()
            } else if !written.isEmpty {
                pending.formUnion(written)
            }
        } else if sqlite3_stmt_readonly(prepared.handle) == 0 {
            // Compiled before tracking began: what it wrote is unknown, so assume everything.
            pending.insertEverything()
        }
        if !pending.isEmpty, sqlite3_get_autocommit(connection.handle) != 0 { commitEnded() }
    }

    /// Records writes made outside Strata's statements (a changeset applied, a backup restored);
    /// reported at once when no transaction is open.
    package func noteWrites(_ written: DatabaseAccess, on connection: Connection) {
        pending.formUnion(written)
        if !pending.isEmpty, sqlite3_get_autocommit(connection.handle) != 0 { commitEnded() }
    }

    private func commitEnded() {
        let written = pending
        pending = DatabaseAccess()
        onCommit(written)
    }
}

extension Connection {
    /// Starts reporting each committed transaction's writes to `tracker`, replacing any earlier
    /// one. Call it on the connection's thread. Statements already cached are dropped, so every
    /// statement that runs from now on is compiled with its writes recorded.
    package func trackWrites(with tracker: WriteTracker) {
        writeTracker = tracker
        authorizerHub.isTracking = true
        installAuthorizerHubIfNeeded(forceReinstall: false)
        statementCache.removeAll()
    }

    /// Runs `body`, returning with its result what the statements it compiled read (tables and
    /// columns), for an observation's region. Statements compiled earlier are expired first, so
    /// SQLite compiles them again and reports their reads too.
    package func recordingReads<T>(_ body: () throws -> T) rethrows -> (T, DatabaseAccess) {
        let outer = authorizerHub.readCapture
        authorizerHub.readCapture = DatabaseAccess()
        // Setting an authorizer expires every statement of the connection (SQLite's rule), which
        // is what makes cached statements report their reads again.
        installAuthorizerHubIfNeeded(forceReinstall: true)
        defer {
            authorizerHub.readCapture = outer
            installAuthorizerHubIfNeeded(forceReinstall: false)
        }
        let value = try body()
        return (value, authorizerHub.readCapture ?? DatabaseAccess())
    }

    /// Installs the hub when someone listens and removes it when nobody does.
    func installAuthorizerHubIfNeeded(forceReinstall: Bool) {
        let hub = authorizerHub
        if hub.isNeeded {
            guard forceReinstall || !hub.isInstalled else { return }
            sqlite3_set_authorizer(handle, { pointer, code, p1, p2, p3, p4 in
                guard let pointer else { return SQLITE_OK }
                return Unmanaged<AuthorizerHub>.fromOpaque(pointer).takeUnretainedValue().authorize(code, p1, p2, p3, p4)
            }, Unmanaged.passUnretained(hub).toOpaque())
            hub.isInstalled = true
        } else if hub.isInstalled {
            sqlite3_set_authorizer(handle, nil, nil)
            hub.isInstalled = false
        }
    }
}
