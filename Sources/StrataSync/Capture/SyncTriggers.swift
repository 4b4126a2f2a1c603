// Triggers meet sync changes: a changeset already holds what the origin's triggers did to synced
// tables, so a trigger that writes a synced table must not fire again where the change arrives
// (hub and replicas would then disagree), while one that keeps local state (an FTS5 index over a
// synced table) must see the rows that arrive.
import Foundation
import Strata

/// The triggers that write synced tables, switched off while sync changes are applied.
package enum SyncTriggers {
    package struct Trigger {
        /// `main` or `temp`: a connection's TEMP triggers fire on the main schema's tables too.
        let schema: String
        let name: String
        let table: String
        let createSQL: String
    }

    /// Every trigger of the main and temp schemas, with the SQL that makes it again. SQLite
    /// keeps a TEMP trigger's text without its TEMP keyword, so it is put back.
    static func all(_ connection: Connection) throws -> [Trigger] {
        let rows: [Row] = try connection.query(
            literal: SQLFragment(
                sql: """
                    SELECT 'main', name, tbl_name, sql FROM main.sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL
                    UNION ALL SELECT 'temp', name, tbl_name, sql FROM temp.sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL
                    """))
        return rows.compactMap { row in
            guard let schema: String = row.value(at: 0), let name: String = row.value(at: 1),
                let table: String = row.value(at: 2), let sql: String = row.value(at: 3)
            else { return nil }
            var createSQL = sql
            let create = Array("CREATE ".utf8)
            if schema == "temp", sql.utf8.count > create.count,
                zip(sql.utf8.prefix(create.count), create).allSatisfy({ ($0 | 0x20) == ($1 | 0x20) })
            {
                createSQL = "CREATE TEMP " + String(decoding: sql.utf8.dropFirst(create.count), as: UTF8.self)
            }
            return Trigger(schema: schema, name: name, table: table, createSQL: createSQL)
        }
    }

    /// The triggers on `tables` that do not write a synced table (`writers`): they keep local
    /// state (an FTS5 index, an audit log), so they must see each row that arrives once, and
    /// never the undoing and remaking of the replica's own pending writes. (Their rebase applies a
    /// session's net change, which cannot tell 0.0 from -0.0: a snapshot's -0.0 over a local 0.0
    /// stays 0.0 on such a table, as a write from 0.0 to -0.0 is never captured either.)
    static func keepingLocalState(on tables: [String], besides writers: [Trigger], _ connection: Connection) throws -> [Trigger] {
        let synced = Set(tables.map { $0.lowercased() })
        let skipped = Set(writers.map { $0.schema + "." + $0.name.lowercased() })
        // The sync engine's own guards (a NULL key refused at the statement) keep nothing.
        return try all(connection).filter { trigger in
            synced.contains(trigger.table.lowercased()) && !skipped.contains(trigger.schema + "." + trigger.name.lowercased())
                && !SyncBookkeeping.isBookkeeping(trigger.name)
        }
    }

    /// The triggers of the main and temp schemas that write one of `tables` (directly; a trigger that
    /// writes a local table whose own trigger writes a synced one stays, and that one goes),
    /// learned by compiling, not running, an INSERT, an UPDATE of every column and a DELETE on
    /// each table that has triggers: SQLite codes the triggers then, and its authorizer names the
    /// trigger behind each write. Read at each use, so a trigger added later is seen.
    package static func writingSyncedTables(_ tables: [String], _ connection: Connection) throws -> [Trigger] {
        let triggers = try all(connection)
        guard !triggers.isEmpty else { return [] }
        let synced = Set(tables.map { $0.lowercased() })
        var targets: [String] = []
        for trigger in triggers where !targets.contains(where: { $0.lowercased() == trigger.table.lowercased() }) {
            targets.append(trigger.table)
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
        // The authorizer names a trigger without its schema: a main and a TEMP trigger of one
        // name both count as writers.
        return triggers.filter { writers.contains($0.name.lowercased()) }
    }

    /// Drops `triggers` (inside the caller's transaction, whose rollback brings them back).
    package static func drop(_ triggers: [Trigger], _ connection: Connection) throws {
        // Strata's own statements: kept out of the user's trace and authorizer.
        try connection.withBookkeeping {
            for trigger in triggers {
                try connection.execute("DROP TRIGGER " + quoteIdentifier(trigger.schema) + "." + quoteIdentifier(trigger.name))
            }
        }
    }

    /// Runs `body` with `triggers` dropped, and makes them again after, in the caller's
    /// transaction: no other connection ever sees them missing, and a failure rolls back both.
    package static func withoutTriggers<T>(_ triggers: [Trigger], _ connection: Connection, _ body: () throws -> T) throws -> T {
        guard !triggers.isEmpty else { return try body() }
        guard connection.isInTransaction else {
            throw SyncError.refused("sync changes are applied inside a transaction, and none is open to switch the triggers off in")
        }
        try drop(triggers, connection)
        let result = try body()
        try connection.withBookkeeping {
            for trigger in triggers { try connection.execute(trigger.createSQL) }
        }
        return result
    }
}
