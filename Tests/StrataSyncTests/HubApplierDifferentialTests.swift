import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// The hub's own changeset applier (``DirectChangesetApplier``) against SQLite's changeset apply,
/// under the hub's policies, on generated schemas and changesets: every storage class, composite
/// and WITHOUT ROWID keys, key changes, UNIQUE and CHECK constraints, foreign keys (deferred and
/// with cascades), patchsets, and entries that meet rows the hub changed since (data, not found,
/// conflict, constraint). Each push runs on two copies of the hub's database, one with the
/// applier and one without, entry by entry in one transaction as the SQLite store runs them:
/// the databases, each entry's refusal and each entry's logged changes must be identical.
///
/// Reproduce a failure with `STRATA_PROPERTY_SEED=0x... STRATA_PROPERTY_CASES=1` (printed).
@Suite struct HubApplierDifferentialTests {
    typealias Value = ChangeCaptureDifferentialTests.Value

    struct Schema {
        var tables: [ChangeCaptureDifferentialTests.Table]
        var statements: [String]
        var hasActions: Bool
    }

    /// Tables with typed, composite or WITHOUT ROWID keys, sometimes a UNIQUE or CHECK column,
    /// and a child table whose foreign key is deferred, immediate, or cascades.
    static func schema(_ random: inout SeededRandom) -> Schema {
        var tables: [ChangeCaptureDifferentialTests.Table] = []
        var statements: [String] = []
        let types = ["INTEGER", "TEXT", "BLOB", "REAL", "", "NUMERIC"]
        for index in 0..<random.int(1...2) {
            let name = "t\(index)"
            let keys = (0..<random.int(1...2)).map { "k\($0)" }
            let others = (0..<random.int(1...3)).map { "c\($0)" }
            let withoutRowID = random.oneIn(2)
            let integerAlias = !withoutRowID && keys.count == 1 && random.oneIn(3)
            var definitions = keys.map { "\"\($0)\" \(integerAlias ? "INTEGER" : random.pick(types)) NOT NULL" }
            for (position, other) in others.enumerated() {
                var definition = "\"\(other)\" \(random.pick(types))"
                if position == 0, random.oneIn(4) { definition += " UNIQUE" }
                if position == 1, random.oneIn(4) { definition += " CHECK (typeof(\"\(other)\") <> 'real')" }
                definitions.append(definition)
            }
            definitions.append("PRIMARY KEY(\(keys.map { "\"\($0)\"" }.joined(separator: ", ")))")
            let sql = "CREATE TABLE \"\(name)\"(\(definitions.joined(separator: ", ")))" + (withoutRowID ? " WITHOUT ROWID" : "")
            tables.append(.init(name: name, keyColumns: keys, otherColumns: others, sql: sql))
            statements.append(sql)
        }
        var hasActions = false
        if random.oneIn(2) {
            // A child of t0 by its first key column, when that column alone is t0's key.
            let parent = tables[0]
            if parent.keyColumns.count == 1 {
                let action = random.pick(["", " DEFERRABLE INITIALLY DEFERRED", " ON DELETE CASCADE", " ON UPDATE SET NULL"])
                hasActions = action.hasPrefix(" ON")
                let sql = "CREATE TABLE child(id INTEGER PRIMARY KEY, parent REFERENCES t0(k0)\(action), note)"
                tables.append(.init(name: "child", keyColumns: ["id"], otherColumns: ["parent", "note"], sql: sql))
                statements.append(sql)
            }
        }
        return Schema(tables: tables, statements: statements, hasActions: hasActions)
    }

    static func keyValue(_ random: inout SeededRandom) -> Value {
        random.pick([
            .integer(1), .integer(2), .integer(3), .integer(.min), .integer(.max), .text("a"), .text("'\u{301}"), .real(2.5), .blob([0, 1]), .rawText([0xFF])
        ])
    }

    /// A statement of a replica's write transaction (or of the hub's own writes, which make the
    /// entries conflict).
    static func statement(_ tables: [ChangeCaptureDifferentialTests.Table], _ random: inout SeededRandom) -> (String, [Bindable?]) {
        let table = random.pick(tables)
        func value(for column: String) -> Value {
            if table.name == "child" {
                if column == "id" { return .integer(Int64(random.int(1...6))) }
                if column == "parent" { return random.oneIn(5) ? .null : keyValue(&random) }
            }
            if table.keyColumns.contains(column) { return keyValue(&random) }
            return random.oneIn(4) ? keyValue(&random) : random.pick(ChangeCaptureDifferentialTests.hardValues)
        }
        func predicate() -> (String, [Bindable?]) {
            let parts = table.keyColumns.map { column -> (String, Bindable?) in
                let (expression, argument) = value(for: column).sql
                return ("\"\(column)\" = \(expression)", argument)
            }
            return (parts.map(\.0).joined(separator: " AND "), parts.map(\.1))
        }
        switch random.int(0...7) {
        case 0, 1, 2:
            let values = table.columns.map { value(for: $0).sql }
            let verb = random.pick(["INSERT", "INSERT OR REPLACE", "INSERT OR IGNORE"])
            return (
                "\(verb) INTO \"\(table.name)\"(\(table.columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(values.map(\.0).joined(separator: ", ")))",
                values.map(\.1)
            )
        case 3, 4:
            let column = random.pick(table.otherColumns)
            let (expression, argument) = value(for: column).sql
            let (condition, arguments) = predicate()
            return ("UPDATE \"\(table.name)\" SET \"\(column)\" = \(expression) WHERE \(condition)", [argument] + arguments)
        case 5:
            // A key change: a DELETE and an INSERT in the changeset.
            let column = random.pick(table.keyColumns)
            let (expression, argument) = value(for: column).sql
            let (condition, arguments) = predicate()
            return ("UPDATE OR REPLACE \"\(table.name)\" SET \"\(column)\" = \(expression) WHERE \(condition)", [argument] + arguments)
        default:
            let (condition, arguments) = predicate()
            return ("DELETE FROM \"\(table.name)\" WHERE \(condition)", arguments)
        }
    }

    /// What one entry's apply left: its logged changes, the rows settled, or its refusal.
    static func outcome(_ result: Result<AppliedChanges, any Error>) -> String {
        switch result {
        case .success(let applied):
            return "made \(applied.made.base64EncodedString()) settled \(applied.settled.map { "\($0.0) \($0.1)" })"
        case .failure(let error):
            return "refused \(String(describing: error))"
        }
    }

    /// Applies `entries` to `connection` as the SQLite store does: one transaction, an entry a
    /// savepoint checked for deferred foreign keys, with or without the hub's applier.
    static func push(
        _ entries: [Data], tables: [String], policies: [String: SyncPolicy], withApplier: Bool, on connection: Connection
    ) throws -> [String] {
        var outcomes: [String] = []
        try connection.transaction(transactionType: .immediate) {
            let fastPath = try HubApply.entriesAreTheChangesMade(tables: tables, connection)
            let direct = withApplier && fastPath ? try DirectChangesetApplier(tables: tables, connection: connection) : nil
            for entry in entries {
                let result = Result<AppliedChanges, any Error> {
                    try connection.strataSavepoint(named: "entry") {
                        let applied = try HubApply.apply(
                            entry, replica: "r", tables: tables, policies: policies, fastPath: fastPath, direct: direct, on: connection)
                        if let violation = connection.outstandingDeferredForeignKeyError() { throw violation }
                        return applied
                    }
                }
                outcomes.append(outcome(result))
            }
        }
        return outcomes
    }

    @Test func theHubsApplierDoesWhatSQLitesApplyDoes() throws {
        var applied = 0, declined = 0
        try PropertyCheck.run("hub applier = SQLite's apply", cases: 120) { random in
            let schema = Self.schema(&random)
            let names = schema.tables.map(\.name)
            let source = try Connection(storageLocation: .inMemory)
            try source.execute("PRAGMA foreign_keys = ON")
            for statement in schema.statements { try source.execute(statement) }
            for _ in 0..<random.int(0...10) {
                let (sql, arguments) = Self.statement(schema.tables, &random)
                try? source.run(sql, arguments)
            }
            let start = try source.serialize()
            // The replica's entries: write transactions recorded by a session, each a changeset
            // or (sometimes) a patchset.
            var entries: [Data] = []
            var replicaStatements: [(String, [Bindable?])] = []
            let replica = try ChangeCaptureDifferentialTests.copy(start)
            try replica.execute("PRAGMA foreign_keys = ON")
            for _ in 0..<random.int(1...6) {
                let session = try replica.recordChanges(tables: names)
                for _ in 0..<random.int(1...4) {
                    let (sql, arguments) = Self.statement(schema.tables, &random)
                    replicaStatements.append((sql, arguments))
                    try? replica.run(sql, arguments)
                }
                let data = random.oneIn(5) ? try session.patchset().data : try session.changeset().data
                session.close()
                if !data.isEmpty { entries.append(data) }
            }
            guard !entries.isEmpty else { return }
            // The hub: the same start, then (sometimes) writes of its own the entries meet.
            let hubImage: Data
            do {
                let hub = try ChangeCaptureDifferentialTests.copy(start)
                try hub.execute("PRAGMA foreign_keys = ON")
                switch random.int(0...3) {
                case 0, 1:
                    for _ in 0..<random.int(1...4) {
                        let (sql, arguments) = Self.statement(schema.tables, &random)
                        try? hub.run(sql, arguments)
                    }
                case 2:
                    // The replica's own writes made here first: every entry then meets its rows
                    // as it leaves them (a row that exists, old values that differ, a row gone).
                    for (sql, arguments) in replicaStatements { try? hub.run(sql, arguments) }
                default:
                    break
                }
                hubImage = try hub.serialize()
            }
            let policy: SyncPolicy = random.pick([.lastWriterWins, .hubWins, .custom { $0.kind == .data ? .replace : .omit }])
            let policies = Dictionary(uniqueKeysWithValues: names.map { ($0, policy) })
            var results: [([String], [String: [String]])] = []
            for withApplier in [true, false] {
                let hub = try ChangeCaptureDifferentialTests.copy(hubImage)
                try hub.execute("PRAGMA foreign_keys = ON")
                let before = HubApply.counts.current
                let outcomes = try Self.push(entries, tables: names, policies: policies, withApplier: withApplier, on: hub)
                if withApplier {
                    let after = HubApply.counts.current
                    applied += after.direct - before.direct
                    declined += after.declined - before.declined
                }
                results.append((outcomes, try ChangeCaptureDifferentialTests.rows(hub, schema.tables)))
            }
            guard results[0].0 == results[1].0 else {
                throw PropertyViolation("the entries' outcomes differ:\nwith the applier: \(results[0].0)\nSQLite's apply: \(results[1].0)")
            }
            guard results[0].1 == results[1].1 else {
                throw PropertyViolation("the databases differ:\nwith the applier: \(results[0].1)\nSQLite's apply: \(results[1].1)")
            }
        }
        // Both ways are exercised: entries the applier took, and entries it left to SQLite.
        #expect(applied > 0)
        #expect(declined > 0)
    }

    /// The shapes the applier declines, one by one: each leaves the database as it was and SQLite's
    /// apply then settles the entry as it always did.
    @Test func theApplierDeclinesWhatItCannotVouchFor() throws {
        let hub = try Connection(storageLocation: .inMemory)
        try hub.execute(
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE p(id INTEGER PRIMARY KEY, v TEXT UNIQUE);
            CREATE TABLE c(id INTEGER PRIMARY KEY, p REFERENCES p(id));
            INSERT INTO p VALUES (1, 'one');
            """)
        let replica = try Connection(storageLocation: .inMemory)
        try replica.deserialize(try hub.serialize())
        func entry(_ sql: String) throws -> Data {
            let session = try replica.recordChanges(tables: ["p", "c"])
            defer { session.close() }
            try replica.execute(sql)
            return try session.changeset().data
        }
        let applier = try DirectChangesetApplier(tables: ["p", "c"], connection: hub)
        // The applier's own PRAGMA and savepoints stay out of the user's trace.
        let traced = Locked<[String]>([])
        hub.trace { sql in traced.withLock { $0.append(sql) } }
        defer { hub.trace(nil) }
        func attempt(_ data: Data) throws -> Bool {
            try hub.transaction { try applier.apply(data, on: hub) { _ in true } }
        }
        // Taken: a new row, then its update and a child row.
        #expect(try attempt(try entry("INSERT INTO p VALUES (2, 'two')")))
        #expect(try attempt(try entry("UPDATE p SET v = 'deux' WHERE id = 2; INSERT INTO c VALUES (1, 2)")))
        // Declined: the row exists (a conflict), an old value that differs (data), a row that
        // is gone (not found), a UNIQUE value taken (constraint), a foreign key left broken.
        try hub.execute("UPDATE p SET v = 'hub' WHERE id = 2")
        try hub.execute("INSERT INTO p VALUES (3, 'three')")
        #expect(try !attempt(try entry("INSERT INTO p VALUES (3, 'trois')")))
        #expect(try !attempt(try entry("UPDATE p SET v = 'zwei' WHERE id = 2")))
        try hub.execute("DELETE FROM c; DELETE FROM p WHERE id = 1")
        #expect(try !attempt(try entry("DELETE FROM p WHERE id = 1")))
        #expect(try !attempt(try entry("INSERT INTO p VALUES (4, 'hub')")))
        #expect(try !attempt(try entry("INSERT INTO c VALUES (9, 99)")))
        // A table it was not made for, and bytes that are no changeset.
        let other = try DirectChangesetApplier(tables: ["c"], connection: hub)
        #expect(try !hub.transaction { try other.apply(try entry("INSERT INTO p VALUES (5, 'five')"), on: hub) { _ in true } })
        #expect(try !attempt(Data([0x54, 0x02])))
        // A decline inside the caller's transaction leaves it open, with only its own savepoint
        // undone: the caller's earlier write stays, and the transaction commits.
        try hub.execute("BEGIN IMMEDIATE")
        try hub.execute("INSERT INTO c VALUES (7, NULL)")
        #expect(try !applier.apply(try entry("UPDATE p SET v = 'again' WHERE id = 2"), on: hub) { _ in true })
        #expect(hub.isInTransaction)
        try hub.execute("DELETE FROM c WHERE id = 7")
        try hub.execute("COMMIT")
        #expect(!hub.isInTransaction)
        // Nothing a declined entry ran is left behind.
        #expect(try hub.query(literal: "SELECT group_concat(id || ':' || coalesce(v, ''), ',') FROM p") == "2:hub,3:three")
        #expect(try hub.query(literal: "SELECT count(*) FROM c") == 0)
        #expect(applier.applied == 2)
        #expect(!traced.current.contains { $0.contains("defer_foreign_keys") || $0.contains("strata_direct_apply") })
    }
}
