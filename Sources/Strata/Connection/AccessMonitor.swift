// What each statement execution reads and writes, on a connection that observation uses: the
// writer reports each committed transaction's writes, a reader reports what a fetch read. Strata's
// statements all step through `Statement`, so the monitor hears of every execution there: its reads
// at its first row, its writes once at its end (done, failed, or reset or finalized before done),
// and needs no SQLite hook that a user might also set.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// Hears of every statement execution on one connection (on that connection's thread).
///
/// A statement's reads and writes are learned once, from the authorizer while Strata compiles it,
/// and kept on the compiled statement; a statement compiled before monitoring began, or
/// re-prepared by SQLite since (after a schema change), is compiled again on the side to learn
/// them afresh.
package final class AccessMonitor {
    /// Receives each committed transaction's writes, when the connection's writes are tracked.
    private var onCommit: ((DatabaseAccess) -> Void)?
    /// Whether anyone observes the connection's commits now; set from any thread, read on every
    /// execution, so tracking costs one atomic load while nobody observes.
    private let isAwake = AtomicFlag(false)
    /// Whether the previous execution was tracked (the connection's thread only).
    private var wasAwake = false
    /// The writes of the transaction in progress.
    private var pendingWrites = DatabaseAccess()
    /// What the statements run so far by the fetch being recorded read.
    private var recordedReads: DatabaseAccess?
    /// A fetch read this connection inside the open transaction: it may have seen writes a
    /// ROLLBACK then undoes, so the rollback is reported as a change to what they touched.
    private var fetchedInsideTransaction = false

    init() {}

    /// The part of the monitor other threads may touch.
    package var awakeSwitch: AwakeSwitch { AwakeSwitch(monitor: self) }

    /// Starts or stops a monitor's commit reports from any thread.
    // @unchecked Sendable: it only reaches the monitor's `isAwake`, an atomic flag.
    package struct AwakeSwitch: @unchecked Sendable {
        fileprivate let monitor: AccessMonitor

        /// Starts reporting commits, from the next statement execution on.
        package func wake() { monitor.isAwake.store(true) }

        /// Stops reporting commits.
        package func sleep() { monitor.isAwake.store(false) }
    }

    /// Called at the first row of an execution: what it reads counts for the fetch being
    /// recorded. Its writes wait for the execution's end: SQLite commits an autocommit statement
    /// (an `INSERT … RETURNING` read for one row only) when it is reset, not at its first row.
    /// - Returns: Whether the monitor must hear of the execution's end even when it comes by a
    ///   reset or a finalize: when commits are tracked and the statement may write.
    func statementProducedRow(_ prepared: PreparedStatement, on connection: Connection) -> Bool {
        if recordedReads != nil { recordedReads?.formUnion(currentAccess(of: prepared, on: connection).reads) }
        return onCommit != nil && sqlite3_stmt_readonly(prepared.handle) == 0
    }

    /// Called once at the end of each execution of a statement of the connection: at
    /// `SQLITE_DONE`, at an error, and at a reset before `SQLITE_DONE` of an execution that
    /// produced a row. A failed statement counts too: with `OR FAIL` or `RAISE(FAIL)` the rows it
    /// wrote before failing stay, and autocommit commits them.
    /// - Parameter afterRow: Whether ``statementProducedRow(_:on:)`` was called for the execution.
    func statementEnded(_ prepared: PreparedStatement, on connection: Connection, afterRow: Bool) {
        if !afterRow, recordedReads != nil { recordedReads?.formUnion(currentAccess(of: prepared, on: connection).reads) }
        guard tracksWritesNow() else { return }
        writesEnded(currentAccess(of: prepared, on: connection), on: connection)
    }

    /// Called when a statement whose execution produced a row is finalized before its end, with
    /// `finalize` doing it: SQLite commits then, so the writes are reported after it, and learned
    /// before it while the statement is still there to learn them from.
    func statementFinalized(_ prepared: PreparedStatement, on connection: Connection, finalize: () -> Void) {
        guard tracksWritesNow() else { return finalize() }
        let access = currentAccess(of: prepared, on: connection)
        finalize()
        writesEnded(access, on: connection)
    }

    /// Whether commits are reported now; when they stop, forgets the writes pending, which the
    /// next wake-up treats as unknown.
    private func tracksWritesNow() -> Bool {
        guard onCommit != nil, isAwake.load() else {
            if wasAwake {
                wasAwake = false
                pendingWrites = DatabaseAccess()
            }
            return false
        }
        return true
    }

    /// Adds an ended execution's writes to the transaction's, and reports them all when no
    /// transaction is left open (an autocommit statement, a COMMIT).
    private func writesEnded(_ access: StatementAccess, on connection: Connection) {
        let inTransaction = sqlite3_get_autocommit(connection.handle) == 0
        if !wasAwake {
            wasAwake = true
            // Woken in the middle of a transaction: what it wrote before is unknown.
            if inTransaction ? !access.writes.beginsTransaction : access.writes.endsTransaction || access.writes.rollsBack {
                pendingWrites.insertEverything()
            }
        }
        if access.writes.rollsBack {
            // A fetch on this connection (a ConnectionQueue's, or an in-memory database's) during
            // the transaction saw its writes: their undoing changes what it would read now.
            let undone = pendingWrites
            pendingWrites = DatabaseAccess()
            if fetchedInsideTransaction, !undone.isEmpty { onCommit?(undone) }
        } else if !access.writes.isEmpty {
            pendingWrites.formUnion(access.writes)
        }
        if !inTransaction {
            if !pendingWrites.isEmpty { transactionEnded() }
            fetchedInsideTransaction = false
        }
    }

    /// What `prepared` reads and writes now, learning it again when it is unknown or stale.
    private func currentAccess(of prepared: PreparedStatement, on connection: Connection) -> StatementAccess {
        if let access = prepared.access, prepared.accessCapturedAt == prepared.reprepareCount { return access }
        let access = connection.analyse(prepared.sql)
        prepared.access = access
        return access
    }

    /// Records writes made outside Strata's statements (a changeset applied); reported at once
    /// when no transaction is open.
    func noteWrites(_ written: DatabaseAccess, on connection: Connection) {
        guard onCommit != nil, isAwake.load() else { return }
        pendingWrites.formUnion(written)
        if !pendingWrites.isEmpty, sqlite3_get_autocommit(connection.handle) != 0 { transactionEnded() }
    }

    private func transactionEnded() {
        fetchedInsideTransaction = false
        let written = pendingWrites
        pendingWrites = DatabaseAccess()
        onCommit?(written)
    }

    fileprivate func trackWrites(_ onCommit: @escaping (DatabaseAccess) -> Void) {
        self.onCommit = onCommit
        pendingWrites = DatabaseAccess()
    }

    fileprivate func startRecordingReads(inTransaction: Bool) -> DatabaseAccess? {
        if inTransaction { fetchedInsideTransaction = true }
        defer { recordedReads = DatabaseAccess() }
        return recordedReads
    }

    fileprivate func stopRecordingReads(restoring outer: DatabaseAccess?) -> DatabaseAccess {
        defer { recordedReads = outer }
        return recordedReads ?? DatabaseAccess()
    }
}

extension Connection {
    /// The connection's monitor, created on first use. Call it on the connection's thread, or
    /// before the connection is shared.
    package var monitor: AccessMonitor {
        if let accessMonitor { return accessMonitor }
        let monitor = AccessMonitor()
        accessMonitor = monitor
        return monitor
    }

    /// Reports each committed transaction's writes to `onCommit` while the monitor is awake, on
    /// the connection's thread, after `sqlite3_step` returned from the commit (so a connection
    /// opened afterwards sees it). Call it before the connection is shared.
    package func trackWrites(_ onCommit: @escaping (DatabaseAccess) -> Void) {
        monitor.trackWrites(onCommit)
    }

    /// Records writes made outside Strata's statements, so observers hear of them.
    package func noteWrites(_ written: DatabaseAccess) {
        accessMonitor?.noteWrites(written, on: self)
    }

    /// The one entry point for a change made without a statement Strata saw (incremental blob
    /// I/O, a backup into this connection, deserialize, a dump restored, a changeset applied):
    /// the authorizer reported nothing, so it counts as a change to the whole database, reported
    /// with the transaction it belongs to (at once outside one). Call it on the connection's thread.
    package func noteChangeOutsideStatements() {
        noteWrites(.everything)
    }

    /// Runs `body`, returning with its result what the statements it ran read (tables and
    /// columns): an observation's region.
    package func recordingReads<T>(_ body: () throws -> T) rethrows -> (T, DatabaseAccess) {
        let monitor = self.monitor
        if !authorizerHub.isMonitoring {
            authorizerHub.isMonitoring = true
            installAuthorizerHubIfNeeded(forceReinstall: false)
        }
        let outer = monitor.startRecordingReads(inTransaction: sqlite3_get_autocommit(handle) == 0)
        do {
            let value = try body()
            return (value, monitor.stopRecordingReads(restoring: outer))
        } catch {
            _ = monitor.stopRecordingReads(restoring: outer)
            throw error
        }
    }

    /// What `sql` reads and writes, by compiling it on the side with the hub recording;
    /// everything when it no longer compiles (a `CREATE TABLE` that has run, say).
    func analyse(_ sql: SQL) -> StatementAccess {
        let hub = authorizerHub
        if !hub.isMonitoring {
            // From now on every compile on this connection records what it touches.
            hub.isMonitoring = true
            installAuthorizerHubIfNeeded(forceReinstall: false)
        }
        let outer = hub.capture
        hub.capture = StatementAccess()
        defer { hub.capture = outer }
        var statement: SQLiteStatementHandle?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard code == SQLITE_OK, let access = hub.capture else { return .unknown }
        guard let statement else { return access }
        return widenedWhereUnderReported(access, of: statement)
    }

    /// `access` as the authorizer reported it for `statement`, widened where SQLite's authorizer
    /// under-reports, so that no commit is missed (a wider write only costs a fetch):
    /// - a statement that writes (not `sqlite3_stmt_readonly`) yet reported no write and is no
    ///   transaction statement (VACUUM) changes the whole database;
    /// - an UPDATE that may resolve a conflict by REPLACE (`UPDATE OR REPLACE`, or a REPLACE
    ///   conflict clause in the table's definition) deletes other rows: the whole table is written;
    /// - an UPDATE of a table with generated columns changes them too (they are read through their
    ///   inputs, which the authorizer does not name).
    func widenedWhereUnderReported(_ access: StatementAccess, of statement: SQLiteStatementHandle) -> StatementAccess {
        var access = access
        if access.writes.isEverything { return access }
        if access.writes.isEmpty {
            // BEGIN IMMEDIATE and BEGIN EXCLUSIVE are not read-only for SQLite (they take the write
            // lock) yet write nothing: widened, every `Database.write` woke every observer.
            let controlsTransaction = access.writes.beginsTransaction || access.writes.endsTransaction || access.writes.rollsBack
            if !controlsTransaction, sqlite3_stmt_readonly(statement) == 0 { access.writes.insertEverything() }
            return access
        }
        let updated = Array(access.writes.columns.keys)
        guard !updated.isEmpty else { return access }
        let hub = authorizerHub
        let outer = hub.capture
        hub.capture = nil
        defer { hub.capture = outer }
        withBookkeeping {
            for table in updated {
                let shape = updateShape(of: table, statementSQL: sqlite3_sql(statement))
                if shape.mayReplace {
                    access.writes.insertTable(table)
                } else {
                    for column in shape.generatedColumns { access.writes.insertColumn(column, of: table) }
                }
            }
        }
        return access
    }

    /// Whether an UPDATE of `table` (its text `statementSQL`) may delete rows by REPLACE, and the
    /// table's generated columns; read with SQLite's own functions, no text processed here. A
    /// failing lookup answers "may replace", the safe side.
    private func updateShape(of table: String, statementSQL: UnsafePointer<CChar>?) -> (mayReplace: Bool, generatedColumns: [String]) {
        func rows(_ sql: String, _ body: (SQLiteStatementHandle) -> Void) -> Bool {
            var statement: SQLiteStatementHandle?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, table, -1, sqliteTransient)
            if let statementSQL { sqlite3_bind_text(statement, 2, statementSQL, -1, sqliteTransient) }
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_ROW { body(statement); continue }
                return code == SQLITE_DONE
            }
        }
        var mayReplace = false
        let replaceFound = rows(
            """
            SELECT instr(upper(?2), 'REPLACE') > 0
                OR EXISTS (SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE AND instr(upper(sql), 'REPLACE') > 0)
                OR EXISTS (SELECT 1 FROM temp.sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE AND instr(upper(sql), 'REPLACE') > 0)
            """
        ) { mayReplace = sqlite3_column_int($0, 0) != 0 }
        guard replaceFound, !mayReplace else { return (true, []) }
        var generated: [String] = []
        let generatedFound = rows("SELECT name FROM pragma_table_xinfo(?1) WHERE hidden IN (2, 3)") { statement in
            if let name = sqlite3_column_text(statement, 0) { generated.append(String(cString: name)) }
        }
        return generatedFound ? (false, generated) : (true, [])
    }

    /// Installs the hub when someone listens and removes it when nobody does.
    func installAuthorizerHubIfNeeded(forceReinstall: Bool) {
        let hub = authorizerHub
        if hub.isNeeded {
            guard forceReinstall || !hub.isInstalled else { return }
            sqlite3_set_authorizer(
                handle,
                { pointer, code, p1, p2, p3, p4 in
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
