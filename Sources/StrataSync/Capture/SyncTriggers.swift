// Triggers meet sync changes: a changeset already holds what the origin's triggers did to synced
// tables, so a trigger that writes a synced table must not fire again where the change arrives
// (hub and replicas would then disagree), while one that keeps local state (an FTS5 index over a
// synced table) must see the rows that arrive.
import Foundation
import Strata

/// The triggers that write synced tables, switched off while sync changes are applied.
package enum SyncTriggers {
    package struct Trigger {
        let name: String
        let createSQL: String
    }

    /// The triggers of the main schema that write one of `tables` (directly; a trigger that
    /// writes a local table whose own trigger writes a synced one stays, and that one goes),
    /// learned by compiling, not running, an INSERT, an UPDATE of every column and a DELETE on
    /// each table that has triggers: SQLite codes the triggers then, and its authorizer names the
    /// trigger behind each write. Read at each use, so a trigger added later is seen.
    package static func writingSyncedTables(_ tables: [String], _ connection: Connection) throws -> [Trigger] {
        let rows: [Row] = try connection.query(literal: SQLFragment(sql: "SELECT name, tbl_name, sql FROM main.sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL"))
        guard !rows.isEmpty else { return [] }
        let synced = Set(tables.map { $0.lowercased() })
        var targets: [String] = []
        for row in rows {
            let table: String = row.value(at: 1) ?? ""
            if !targets.contains(where: { $0.lowercased() == table.lowercased() }) { targets.append(table) }
        }
        var writers = Set<String>()
        let writes: Set<Int32> = [Connection.AuthorizerAction.insert, .update, .delete].map(\.rawValue).reduce(into: []) { $0.insert($1) }
        connection.inspectingCompiles({ code, table, _, _, trigger in
            guard writes.contains(code), let trigger, let table, synced.contains(table.lowercased()) else { return }
            writers.insert(trigger.lowercased())
        }) {
            for table in targets {
                let name = quoteIdentifier("main") + "." + quoteIdentifier(table)
                var statements = ["INSERT INTO " + name + " DEFAULT VALUES", "DELETE FROM " + name]
                let columns = (try? connection.schemaReader.columns(ofTable: table).filter { $0.hidden == 0 }.map(\.name)) ?? []
                if !columns.isEmpty {
                    statements.append("UPDATE " + name + " SET " + columns.map { quoteIdentifier($0) + " = " + quoteIdentifier($0) }.joined(separator: ", "))
                }
                // A view's INSTEAD OF triggers, or a table that refuses a form, compile no write: skipped.
                for sql in statements { _ = try? connection.prepare(sql) }
            }
        }
        return rows.compactMap { row in
            let name: String = row.value(at: 0) ?? ""
            guard writers.contains(name.lowercased()), let sql: String = row.value(at: 2) else { return nil }
            return Trigger(name: name, createSQL: sql)
        }
    }

    /// Runs `body` with `triggers` dropped, and makes them again after, in the caller's
    /// transaction: no other connection ever sees them missing, and a failure rolls back both.
    package static func withoutTriggers<T>(_ triggers: [Trigger], _ connection: Connection, _ body: () throws -> T) throws -> T {
        guard !triggers.isEmpty else { return try body() }
        guard connection.isInTransaction else {
            throw SyncError.refused("sync changes are applied inside a transaction, and none is open to switch the triggers off in")
        }
        // Strata's own statements: kept out of the user's trace and authorizer.
        try connection.withBookkeeping {
            for trigger in triggers {
                try connection.execute("DROP TRIGGER " + quoteIdentifier("main") + "." + quoteIdentifier(trigger.name))
            }
        }
        let result = try body()
        try connection.withBookkeeping {
            for trigger in triggers { try connection.execute(trigger.createSQL) }
        }
        return result
    }
}
