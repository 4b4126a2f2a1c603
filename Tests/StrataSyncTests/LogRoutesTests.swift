import Foundation
import StrataSQift
import Strata
import StrataTestSupport
import Testing

@testable import StrataSync

/// A log per bucket (``LogRoutes``): a pull with a view reads only the entries filed under its
/// instances' values and the whole history of each row found there. Differential, on both stores:
/// two replicas of each user, one answered by the routes and one by the whole log, must hold the
/// same rows after every sync, under generated rules (routable, qualified, reversed, with a second
/// conjunct, and with `OR`, which files a table whole) and generated writes whose pinned values
/// compare across storage classes the way `=` converts them (5, '5', 5.0, ' 5', '1e2'), with
/// -0.0, infinities, Int64's limits, NULL, NUL and a quote before a combining mark (SQLite; on
/// PostgreSQL each column's own kind).
@Suite struct LogRoutesTests {
    typealias Store = ListClaimTests.Store

    static let schema = """
        CREATE TABLE grant_(id TEXT PRIMARY KEY, user TEXT NOT NULL, gi INTEGER, gt TEXT);
        CREATE TABLE item(id TEXT PRIMARY KEY, g INTEGER, title TEXT);
        CREATE TABLE note(id TEXT PRIMARY KEY, g TEXT, owner TEXT, body TEXT);
        CREATE TABLE misc(id TEXT PRIMARY KEY, g INTEGER, flag INTEGER);
        """
    static let tables = ["grant_", "item", "note", "misc"]
    static let users = ["alice", "bob", "c'\u{301}arol"]
    /// Values of every storage class, for any column (SQLite keeps what it is given).
    static let values: [BindingValue] = [
        .integer(5), .text("5"), .real(5.0), .text(" 5"), .text("5.0"), .text("1e2"), .integer(100), .real(-0.0), .integer(0),
        .text("0"), .integer(.max), .integer(.min), .real(.infinity), .real(1e300), .null, .text("a'\u{301}"), .text("e\u{0}ve"),
        .blob(Data([0x35])), .text("")
    ]
    static let common: [BindingValue] = [.integer(5), .text("5"), .integer(7), .real(7.0), .integer(8)]

    /// A value for `column` (`gi`/`g` of item and misc are integers, `gt`/`g` of note text): on
    /// PostgreSQL of the column's own kind (its columns hold nothing else, nor NUL in text).
    static func value(_ random: inout SeededRandom, store: Store, integer: Bool) -> BindingValue {
        if store == .sqlite { return random.oneIn(3) ? random.pick(values) : random.pick(common) }
        if integer { return random.pick([.integer(5), .integer(7), .integer(8), .integer(0), .integer(.max), .integer(.min), .null]) }
        return random.pick([.text("5"), .text("7"), .text("8"), .text(""), .text("a'\u{301}"), .text(" 5"), .null])
    }

    static func rules(_ random: inout SeededRandom) -> SyncRules {
        let item = random.pick([
            "g = bucket.g", "bucket.g = g", "item.g = bucket.g", "g = bucket.g AND title IS NOT NULL", "title IS NOT NULL AND g = bucket.g",
            "g = bucket.g OR title = 'pub'"
        ])
        let note = random.pick(["g = bucket.g", "owner = auth.user", "g = bucket.g AND owner = auth.user", "owner = auth.user OR g = bucket.g"])
        return SyncRules(buckets: [
            SyncBucket(
                name: "numbers", parameters: "SELECT gi AS g FROM grant_ WHERE user = auth.user",
                data: ["item": item, "misc": "g = bucket.g OR flag = 1"]),
            SyncBucket(name: "texts", parameters: "SELECT gt AS g FROM grant_ WHERE user = auth.user", data: ["note": note])
        ])
    }

    /// A hub on `store` with the space `s` of these tables (nil: PostgreSQL without a server).
    /// `ListClaimTests.hub(_:_:schema:)` on this suite's schema, with `rules` on its space `s`.
    static func hub(_ store: Store, _ folder: SyncFolder, rules: SyncRules) throws -> (SyncHub, Any?)? {
        guard let (hub, keep) = try ListClaimTests.hub(store, folder, schema: schema) else { return nil }
        try hub.setRules(rules, forSpace: "s")
        return (hub, keep)
    }

    static func rows(_ database: Database) async throws -> [String] {
        try await database.read { db in
            var rows: [String] = []
            for table in ["item", "note", "misc"] {
                let columns = try db.schemaReader.columns(ofTable: table).map { "quote(" + quoteIdentifier($0.name) + ")" }
                let found: [String] = try db.query("SELECT " + columns.joined(separator: " || ',' || ") + " FROM " + quoteIdentifier(table))
                rows += found.map { table + ":" + $0 }
            }
            return rows.sorted()
        }
    }

    @Test(arguments: Store.allCases)
    func routedPullsLeaveEachReplicaWhatTheWholeLogDoes(store: Store) async throws {
        try await PropertyCheck.runAsync("log routes (\(store))", cases: store == .sqlite ? 8 : 3) { random in
            let folder = try SyncFolder()
            let rules = Self.rules(&random)
            guard let (hub, keep) = try Self.hub(store, folder, rules: rules) else { return }
            defer { withExtendedLifetime(keep) {} }
            func replica(_ name: String, user: String?) throws -> SyncReplica {
                try Connection(storageLocation: .onDisk(folder.path(name + ".sqlite"))).execute(Self.schema)
                let database = try Database(path: folder.path(name + ".sqlite"))
                let transport = user.map { InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: $0)) } ?? InProcessSyncTransport(hub: hub)
                return try SyncReplica(database: database, replicaID: name, space: "s", tables: Self.tables, transport: transport)
            }
            let admin = try replica("admin", user: nil)
            var routed: [SyncReplica] = []
            var whole: [SyncReplica] = []
            for (index, user) in Self.users.enumerated() {
                routed.append(try replica("routed\(index)", user: user))
                whole.append(try replica("whole\(index)", user: user))
            }
            // Grants of the common values from the start, so rows are often in views.
            try await admin.write { db in
                try db.run(
                    "INSERT INTO grant_ VALUES ('g1', ?, 5, '5'), ('g2', ?, 7, '7'), ('g3', ?, 8, '8')", Self.users[0], Self.users[1], Self.users[2])
            }
            var ids: [String: [String]] = ["grant_": ["g1", "g2", "g3"]]
            var next = 0
            for step in 0..<random.int(30...60) {
                let table = random.pick(["grant_", "item", "note", "misc"])
                // Mostly a few values, so rows move in and out of views often.
                let grantColumn = random.pick(["gi", "gt"])
                let value = Self.value(&random, store: store, integer: table == "item" || table == "misc" || (table == "grant_" && grantColumn == "gi"))
                let existing = ids[table] ?? []
                let action = existing.isEmpty ? 0 : random.int(0...6)
                let target = existing.isEmpty ? "" : random.pick(existing)
                let user = random.pick(Self.users)
                let flag = random.int(0...1)
                let pub = random.oneIn(3)
                next += 1
                let id = "r\(next)"
                let quoted = quoteIdentifier(table)
                switch action {
                case 0, 1:
                    ids[table, default: []].append(id)
                case 4:
                    ids[table] = existing.filter { $0 != target }
                case 5:
                    ids[table] = existing.filter { $0 != target } + [id]
                default:
                    break
                }
                let column = table == "item" ? "title" : table == "note" ? "owner" : "flag"
                let new: BindingValue =
                    table == "note" ? .text(user) : table == "item" ? (pub ? .text("pub") : flag == 0 ? .null : .text("x")) : .integer(Int64(flag))
                let other = SQLFragment(sql: "UPDATE " + quoted + " SET " + quoteIdentifier(column) + " = ? WHERE id = ?", arguments: [new, .text(target)])
                try await admin.write { db in
                    switch action {
                    case 0, 1:
                        switch table {
                        case "grant_":
                            try db.run(
                                literal: SQLFragment(
                                    sql: "INSERT INTO grant_(id, user, " + grantColumn + ") VALUES (?, ?, ?)", arguments: [.text(id), .text(user), value]))
                        case "item":
                            try db.run(
                                literal: SQLFragment(sql: "INSERT INTO item VALUES (?, ?, ?)", arguments: [.text(id), value, .text(pub ? "pub" : "t\(id)")]))
                        case "note":
                            try db.run(
                                literal: SQLFragment(sql: "INSERT INTO note VALUES (?, ?, ?, ?)", arguments: [.text(id), value, .text(user), .text("b\(id)")]))
                        default:
                            try db.run(literal: SQLFragment(sql: "INSERT INTO misc VALUES (?, ?, ?)", arguments: [.text(id), value, .integer(Int64(flag))]))
                        }
                    case 2, 6:
                        // The pinned value moves.
                        let column = table == "grant_" ? grantColumn : "g"
                        try db.run(literal: SQLFragment(sql: "UPDATE " + quoted + " SET " + column + " = ? WHERE id = ?", arguments: [value, .text(target)]))
                    case 3 where table != "grant_":
                        // Another column changes, the pinned one stays (read from the table).
                        try db.run(literal: other)
                    case 4:
                        try db.run("DELETE FROM " + quoted + " WHERE id = ?", target)
                    case 5:
                        // A key change: a DELETE and an INSERT in the changeset.
                        try db.run("UPDATE " + quoted + " SET id = ? WHERE id = ?", id, target)
                    default:
                        break
                    }
                }
                if action == 6, table != "grant_" {
                    // The row's pinned value moved in the entry before; now another column
                    // changes in an entry filed under the new value only.
                    try await admin.write { try $0.run(literal: other) }
                }
                try await admin.sync()
                let index = random.int(0...(Self.users.count - 1))
                hub.readsLogRoutes.withLock { $0 = true }
                try await routed[index].sync()
                hub.readsLogRoutes.withLock { $0 = false }
                try await whole[index].sync()
                hub.readsLogRoutes.withLock { $0 = true }
                let left = try await Self.rows(routed[index].database)
                let right = try await Self.rows(whole[index].database)
                if left != right {
                    throw PropertyViolation(
                        "step \(step), \(Self.users[index].debugDescription) under \(rules): routed \(left), whole log \(right)")
                }
            }
        }
    }

    /// Differential against SQLite's `=`: whenever a column of any declared type holding one
    /// value equals a bound value, their route keys share one (a missed key would leave an entry
    /// unread, and a row in a view it left).
    @Test func routeKeysShareOneWheneverSQLiteFindsTwoValuesEqual() throws {
        let numeric = [
            "5", " 5", "5.0", "+5", "1e2", "0x10", "-0", "9223372036854775807", "9223372036854775808", "1.5", ".5", "5.", "  -3  ", "inf", "NaN", "1e400",
            "-0.0", "", "\u{0B}5", "5\u{0B}", "\u{0C}7\r"
        ]
        var equalPairs = 0
        try PropertyCheck.run("route keys cover =", cases: 400) { random in
            let connection = try Connection(storageLocation: .inMemory)
            let declared = random.pick(["INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB", "", "VARCHAR(3)", "FLOAT"])
            try connection.execute("CREATE TABLE t(c " + declared + ")")
            var stored: BindingValue
            switch random.int(0...3) {
            case 0: stored = .text(random.pick(numeric))
            case 1: stored = Gen.value(&random)
            case 2: stored = .integer(Gen.int64(&random))
            default: stored = .real(Gen.double(&random))
            }
            if random.oneIn(8) {
                try connection.run(literal: SQLFragment(sql: "INSERT INTO t VALUES (CAST(? AS TEXT))", arguments: [.blob(Gen.invalidUTF8(&random))]))
            } else {
                try connection.run(literal: SQLFragment(sql: "INSERT INTO t VALUES (?)", arguments: [stored]))
            }
            // As the table holds it: what a changeset carries.
            let held = try connection.valueRows(literal: "SELECT c FROM t").rows.first?.first ?? .null
            var probes: [BindingValue] = [held, Gen.value(&random), .text(random.pick(numeric))]
            switch held {
            case .integer(let integer): probes += [.text(String(integer)), .real(Double(integer)), .text(" \(integer) "), .text("\(integer).0")]
            case .real(let real): probes += [.text(String(real)), .text("\(real)"), real == real.rounded() && abs(real) < 1e18 ? .integer(Int64(real)) : .null]
            case .text(let text): probes += [.text(text), Int64(text).map { .integer($0) } ?? .null, Double(text).map { .real($0) } ?? .null]
            default: break
            }
            for probe in probes {
                let equal: Int = try connection.query(literal: SQLFragment(sql: "SELECT count(*) FROM t WHERE c = ?", arguments: [probe])) ?? 0
                guard equal == 1 else { continue }
                equalPairs += 1
                let shared = Set(LogRoutes.equalityKeys(held)).intersection(LogRoutes.equalityKeys(probe))
                if shared.isEmpty {
                    throw PropertyViolation("a \(declared) column holding \(held) = \(probe) in SQLite, but their route keys share none")
                }
            }
        }
        let cases = PropertyCheck.caseCount(default: 400)
        #expect(equalPairs > cases, "only \(equalPairs) equal pairs in \(cases) cases")
    }

    /// A row leaves a view by its pinned column, then another column changes in an entry filed
    /// under the new value only: the pull must still read that entry (the row's history) to know
    /// the row was in the view at the cursor and remove it.
    @Test(arguments: Store.allCases)
    func aRowThatLeftAndChangedAgainIsRemoved(store: Store) async throws {
        let folder = try SyncFolder()
        let rules = SyncRules(buckets: [
            SyncBucket(
                name: "texts", parameters: "SELECT gt AS g FROM grant_ WHERE user = auth.user",
                data: ["note": "g = bucket.g AND owner = auth.user"])
        ])
        guard let (hub, keep) = try Self.hub(store, folder, rules: rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        func replica(_ name: String, user: String?) throws -> SyncReplica {
            try Connection(storageLocation: .onDisk(folder.path(name + ".sqlite"))).execute(Self.schema)
            let transport = user.map { InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: $0)) } ?? InProcessSyncTransport(hub: hub)
            return try SyncReplica(
                database: try Database(path: folder.path(name + ".sqlite")), replicaID: name, space: "s", tables: Self.tables, transport: transport)
        }
        let admin = try replica("admin", user: nil)
        let alice = try replica("alice", user: "alice")
        try await admin.write { db in
            try db.run("INSERT INTO grant_ VALUES ('a', 'alice', NULL, '5')")
            try db.run("INSERT INTO note VALUES ('n1', '5', 'alice', 'x')")
        }
        try await syncInTurn(admin, alice)
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM note") as Int? } == 1)
        try await admin.write { try $0.run("UPDATE note SET g = '9' WHERE id = 'n1'") }
        try await admin.sync()
        try await admin.write { try $0.run("UPDATE note SET owner = 'bob' WHERE id = 'n1'") }
        try await syncInTurn(admin, alice)
        #expect(try await alice.database.read { try $0.query("SELECT count(*) FROM note") as Int? } == 0)
    }

    /// The routes narrow the read: of a thousand entries for other users, a pull of one user's
    /// view reads that user's entries (and their rows' histories), not the log.
    @Test func aPullReadsItsInstancesEntriesNotTheLog() async throws {
        let folder = try SyncFolder()
        let hub = try folder.hub(Self.schema)
        let rules = SyncRules(buckets: [
            SyncBucket(name: "numbers", parameters: "SELECT gi AS g FROM grant_ WHERE user = auth.user", data: ["item": "g = bucket.g"])
        ])
        try hub.setRules(rules, forSpace: "s")
        try Connection(storageLocation: .onDisk(folder.path("admin.sqlite"))).execute(Self.schema)
        let admin = try SyncReplica(
            database: try Database(path: folder.path("admin.sqlite")), replicaID: "admin", space: "s", tables: Self.tables,
            transport: InProcessSyncTransport(hub: hub))
        try await admin.write { try $0.run("INSERT INTO grant_ VALUES ('a', 'alice', 7, NULL)") }
        for batch in 0..<10 {
            try await admin.write { db in
                for row in 0..<100 { try db.run("INSERT INTO item VALUES (?, ?, 'x')", "i\(batch)-\(row)", 1_000 + row) }
            }
            // One of alice's rows among a hundred of others, in one entry.
            try await admin.write { db in
                try db.run("INSERT INTO item VALUES (?, 7, 'mine')", "m\(batch)")
                for row in 0..<100 { try db.run("INSERT INTO item VALUES (?, ?, 'x')", "j\(batch)-\(row)", 2_000 + row) }
            }
            try await admin.sync()
        }
        let (entries, found) = try hub.storage.withSpace("s") { storage in
            guard let compiled = try hub.compiledRules("s", storage) else { throw PropertyViolation("no rules") }
            let view = SyncView(rules: compiled, identity: SyncIdentity(user: "alice"), storage: storage)
            return try storage.read {
                try view.entriesToRead(after: 0, limit: 10_000, tables: Self.tables, instances: try view.instances(), then: view.identity)
            }
        }
        // The ten entries holding alice's rows (the grant's table is in no bucket's data), and
        // of their 1,010 rows only alice's ten are the moves' to weigh.
        let versions = try hub.version(ofSpace: "s")
        #expect(entries.count == 10, "read \(entries.count) of \(versions) entries")
        #expect(found?.rows == Set((0..<10).map { LogRoutes.row("item", key: [.text("m\($0)")]) }))
        #expect(found?.wholeTables == [])
    }
}
