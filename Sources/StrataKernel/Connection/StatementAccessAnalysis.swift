// What a statement reads and writes, learned from the authorizer while it compiles: the kernel's
// access analysis, which observation's monitor (Observation/AccessMonitor.swift) relies on.
import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

extension Connection {
    /// What `sql` reads and writes, by compiling it on the side with the hub recording;
    /// everything when it no longer compiles (a `CREATE TABLE` that has run, say).
    package func analyse(_ sql: SQL) -> StatementAccess {
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
    package func installAuthorizerHubIfNeeded(forceReinstall: Bool) {
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
