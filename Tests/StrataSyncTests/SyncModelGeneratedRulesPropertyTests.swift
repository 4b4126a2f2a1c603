import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// The rules themselves generated: buckets drawn over the accepted grammar (claims in data rules
/// and in parameters; INTEGER, REAL, TEXT, BLOB and NUMERIC columns with values at their edges;
/// subqueries over other tables, joins with aliases, `UNION` and `EXISTS`; rows in several buckets; NULL bucket
/// values), identities whose claims change between syncs, rules replaced mid-schedule, and
/// backend writes that move rows. After every sync each replica must equal its identity's view,
/// computed by the test's own SQL on the hub's tables from each rule's text (the `auth.*`
/// references as bound parameters, `bucket.*` as an `EXISTS` over the parameters query), never
/// by the engine.
///
/// STRATA_SYNC_GENERATED_RULES_SEED replays one schedule; STRATA_PROPERTY_SCALE multiplies the
/// cases.
extension SyncModelPropertyTests {
    static let generatedSchema = """
        CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org INTEGER, score REAL, tag TEXT, data BLOB, amount NUMERIC, grp TEXT);
        CREATE TABLE grp(id TEXT PRIMARY KEY NOT NULL, public INTEGER, owner TEXT);
        CREATE TABLE member(id TEXT PRIMARY KEY NOT NULL, grp TEXT, user TEXT);
        """
    static let generatedTables = ["doc", "grp", "member"]
    static let generatedColumns = [
        "doc": ["id", "org", "score", "tag", "data", "amount", "grp"], "grp": ["id", "public", "owner"], "member": ["id", "grp", "user"]
    ]
    static let claimNames = ["org", "level", "role"]

    /// One bucket as the rules say it and as the test's own query reads it.
    struct GeneratedBucket {
        var bucket: SyncBucket
        /// Each table's condition on the hub's table, with `:user`, `:org`, `:level`, `:role`.
        var oracle: [String: String]
        /// The parameters query's result columns, the query as the oracle reads it (`:` for
        /// `auth.`), and each table's condition on its row `b` (nil without parameters).
        var columns: [String] = []
        var parametersOracle: String?
        var dataOracle: [String: String] = [:]

        /// Each table's condition for the instances `subscriptions` leave of this bucket (all of
        /// them when none names it); nil for a table no instance left covers.
        func oracle(_ table: String, subscriptions: [SyncSubscription]) -> String? {
            let mine = subscriptions.filter { $0.bucket.lowercased() == bucket.name.lowercased() }
            guard !mine.isEmpty else { return oracle[table] }
            var terms: [String] = []
            for subscription in mine {
                guard subscription.parameters.keys.allSatisfy({ columns.contains($0.lowercased()) }) else { continue }
                guard let parametersOracle else {
                    if subscription.parameters.isEmpty, let condition = oracle[table] { terms.append(condition) }
                    continue
                }
                guard let data = dataOracle[table] else { continue }
                // SyncSubscription's equality: numbers by value, text and bytes exactly, NULL never.
                let matches = subscription.parameters.sorted { $0.key < $1.key }.map { name, value -> String in
                    let column = "b." + quoteIdentifier(name.lowercased()), literal = SyncModelGeneratedRulesLiteral.sql(value)
                    return "(\(column) = \(literal) AND (typeof(\(column)) IN ('integer', 'real')) = (typeof(\(literal)) IN ('integer', 'real'))"
                        + " AND (typeof(\(column)) = 'blob') = (typeof(\(literal)) = 'blob'))"
                }
                terms.append("EXISTS (SELECT 1 FROM (" + parametersOracle + ") AS b WHERE (" + data + ")" + matches.map { " AND " + $0 }.joined() + ")")
            }
            return terms.isEmpty ? nil : terms.map { "(\($0))" }.joined(separator: " OR ")
        }
    }

    /// Subscriptions drawn over the buckets' names and columns, with names and values that
    /// match nothing among them.
    static func drawSubscriptions(_ random: inout SeededRandom, _ buckets: [GeneratedBucket]) -> [SyncSubscription] {
        guard !random.oneIn(3) else { return [] }
        return (0..<random.int(1...3)).map { _ in
            let bucket = random.oneIn(8) ? nil : buckets[random.int(0...buckets.count - 1)]
            var parameters: [String: SyncValue] = [:]
            if let bucket, !bucket.columns.isEmpty, !random.oneIn(4) {
                let column = random.oneIn(8) ? "nosuch" : random.pick(bucket.columns)
                parameters[random.oneIn(4) ? column.uppercased() : column] = random.pick([
                    .text("d1"), .text("o1"), .text("1"), .integer(1), .integer(0), .real(1.0), .text("it's"), .text("'\u{301}"), .text(""),
                    .integer(2), .null, .text("ok")
                ])
            }
            // Priorities make a sync run in phases; whatever the phases, it ends at the intersection.
            return SyncSubscription(
                bucket: bucket.map { random.oneIn(4) ? $0.bucket.name.uppercased() : $0.bucket.name } ?? "nosuch", parameters: parameters,
                priority: random.pick([0, 0, 1, 2]))
        }
    }

    /// A bucket drawn from the grammar's shapes; `name` unique in the rules.
    static func drawBucket(_ random: inout SeededRandom, name: String) -> GeneratedBucket {
        func rule(_ text: (String) -> String) -> (String, String) { (text("auth."), text(":")) }
        // Claims (text) meet TEXT columns: with any other the rules are refused (tested in
        // SyncRuleLanguagePropertyTests); bucket values meet every kind.
        let column = random.pick(["org", "score", "tag", "amount", "data"])
        let textColumn = random.pick(["tag", "grp"])
        let claim = random.pick(claimNames)
        let globals: [() -> [String: (String, String)]] = [
            { ["doc": rule { "\(textColumn) = \($0)\(claim)" }] },
            { ["doc": rule { "\(textColumn) > \($0)level OR tag IS NULL" }] },
            { ["doc": rule { _ in "grp IN (SELECT id FROM grp WHERE public = 1)" }, "grp": rule { _ in "public = 1" }] },
            { ["doc": rule { "EXISTS (SELECT 1 FROM member WHERE member.grp = doc.grp AND member.user = \($0)user)" }] },
            { ["doc": rule { _ in "org = 1 OR score = 1 OR amount = 1" }] },
            // A list claim: IN an absent or empty list is false, NOT IN it true.
            { ["doc": rule { "grp IN \(list($0))" }, "grp": rule { "id NOT IN \(list($0)) AND public = 1" }] },
            { ["doc": rule { "grp IN (SELECT id FROM grp WHERE owner = \($0)user UNION SELECT grp FROM member WHERE user = \($0)user)" }] },
            { ["grp": rule { "owner = \($0)user OR public = 1" }, "member": rule { "user = \($0)user" }] },
            { ["doc": rule { "NOT (\(column) IS NULL) AND \(textColumn) <> \($0)\(claim)" }] },
            // A join, with aliases, read by the rule's other tables.
            {
                [
                    "doc": rule {
                        "grp IN (SELECT g.id FROM grp AS g JOIN member AS m ON m.grp = g.id WHERE m.user = \($0)user AND g.public = 1)"
                    }
                ]
            }
        ]
        if random.oneIn(2) {
            let shape = globals[random.int(0...globals.count - 1)]()
            return GeneratedBucket(bucket: SyncBucket(name: name, data: shape.mapValues(\.0)), oracle: shape.mapValues(\.1))
        }
        // A bucket with parameters: its values as bound values (`+` takes a column's affinity
        // away in the oracle, as binding does).
        let shapes: [(parameters: (String) -> String, data: [String: (String) -> String])] = [
            ({ "SELECT grp AS g FROM member WHERE user = \($0)user" }, ["doc": { "grp = \($0)g" }, "grp": { "id = \($0)g" }]),
            ({ "SELECT id AS g FROM grp WHERE id IN \(list($0))" }, ["doc": { "grp = \($0)g" }, "member": { "grp = \($0)g" }]),
            ({ "SELECT id AS g, public AS p FROM grp WHERE owner = \($0)org OR public = 1" }, ["doc": { "grp = \($0)g AND org = \($0)p" }]),
            ({ "SELECT org AS o FROM doc WHERE id = \($0)role" }, ["doc": { "org = \($0)o" }]),
            // A numeric value against the numeric columns (arithmetic is refused: past 64 bits the
            // stores part ways).
            ({ "SELECT public AS n FROM grp WHERE owner = \($0)user" }, ["doc": { "org = \($0)n OR score = \($0)n OR amount = \($0)n" }]),
            ({ "SELECT \($0)\(claim) AS c" }, ["doc": { "\(textColumn) = \($0)c OR tag = \($0)c" }, "member": { "grp = \($0)c" }]),
            (
                { "SELECT m.grp AS g FROM member AS m INNER JOIN grp ON grp.id = m.grp WHERE m.user = \($0)user OR grp.owner = \($0)user" },
                ["doc": { "grp = \($0)g" }, "member": { "grp = \($0)g" }]
            )
        ]
        // Each shape's result columns, in its order.
        let shapeColumns = [["g"], ["g"], ["g", "p"], ["o"], ["n"], ["c"], ["g"]]
        let index = random.int(0...shapes.count - 1)
        let shape = shapes[index]
        let parameters = shape.parameters("auth.")
        var data: [String: String] = [:]
        var oracle: [String: String] = [:]
        var dataOracle: [String: String] = [:]
        for (table, text) in shape.data {
            data[table] = text("bucket.")
            oracle[table] = "EXISTS (SELECT 1 FROM (" + shape.parameters(":") + ") AS b WHERE " + text("+b.") + ")"
            dataOracle[table] = text("+b.")
        }
        return GeneratedBucket(
            bucket: SyncBucket(name: name, parameters: parameters, data: data), oracle: oracle, columns: shapeColumns[index],
            parametersOracle: shape.parameters(":"), dataOracle: dataOracle)
    }

    static func drawRules(_ random: inout SeededRandom) -> [GeneratedBucket] {
        (0..<random.int(1...3)).map { drawBucket(&random, name: "b\($0)") }
    }

    /// Values at the edges of every storage class, for any column.
    static func drawValue(_ random: inout SeededRandom) -> BindingValue {
        random.pick([
            .null, .integer(0), .integer(1), .integer(-1), .integer(2), .integer(.max), .integer(.min), .real(1.0), .real(-0.0),
            .real(2.5), .real(.infinity), .real(-.infinity), .real(1e300), .text("1"), .text("01"), .text("1.0"), .text("o1"),
            .text(""), .text("ok"), .text("abc"), .text("it's"), .text("'\u{301}"), .blob(Data("ok".utf8)), .blob(Data()),
            .text("9223372036854775807"), .text("-0")
        ])
    }

    /// `auth.groups` as a rule lists it, or the oracle's list of the JSON array bound to `:groups`.
    static func list(_ prefix: String) -> String { prefix == ":" ? "(SELECT value FROM json_each(:groups))" : "auth.groups" }

    /// A list claim `groups`, absent, empty or of a few values.
    static func drawListClaims(_ random: inout SeededRandom) -> [String: [String]] {
        guard !random.oneIn(4) else { return [:] }
        return ["groups": ["d1", "d2", "o1", "1", "", "it's", "'\u{301}"].filter { _ in random.oneIn(2) }]
    }

    static func drawClaims(_ random: inout SeededRandom) -> [String: String] {
        var claims: [String: String] = [:]
        for name in claimNames where !random.oneIn(4) {
            claims[name] = random.pick(["1", "01", "1.0", "o1", "2", "", "9223372036854775807", "-0", "ok", "d1", "d2", "abc"])
        }
        return claims
    }

    /// A value of a column's own kind (PostgreSQL's columns hold nothing else).
    static func drawValue(_ random: inout SeededRandom, column: String) -> BindingValue {
        switch column {
        case "org": random.pick([.null, .integer(0), .integer(1), .integer(-1), .integer(2), .integer(.max), .integer(.min)])
        case "score", "amount": random.pick([.null, .integer(1), .integer(2), .real(1.0), .real(-0.0), .real(2.5), .real(1e300), .integer(-1)])
        case "data": random.pick([.null, .blob(Data("ok".utf8)), .blob(Data()), .blob(Data([0, 1]))])
        default: random.pick([.null, .text("1"), .text("01"), .text("o1"), .text(""), .text("ok"), .text("it's"), .text("'\u{301}"), .text("d1")])
        }
    }

    @Test(arguments: Store.allCases)
    func generatedRulesKeepEachReplicaToItsView(store: Store) async throws {
        guard store.isAvailable(to: "the generated rules model test") else { return }
        try await runModelSeeds("sync model with generated rules", seedVariable: "STRATA_SYNC_GENERATED_RULES_SEED", cases: 8) { seed in
            try await Self.runGeneratedRules(seed: seed, store: store)
        }
    }

    static func runGeneratedRules(seed: UInt64, store: Store = .sqlite) async throws {
        var random = SeededRandom(seed: seed)
        let folder = try SyncFolder()
        let limits = SyncLimits(maximumRowsPerPull: random.pick([5, 50_000]))
        let hub: SyncHub
        #if Hub
        var postgres: SyncModelPostgresDatabase?
        defer { withExtendedLifetime(postgres) {} }
        #endif
        if store == .postgres {
            #if Hub
            guard let server = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return }
            let database = try SyncModelPostgresDatabase(server: server)
            postgres = database
            hub = SyncHub(store: try .postgres(url: database.url), limits: limits)
            #else
            return
            #endif
        } else {
            hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")), limits: limits)
        }
        try hub.createSpace("s") { try $0.execute(generatedSchema) }
        var buckets = drawRules(&random)
        try hub.setRules(SyncRules(buckets: buckets.map(\.bucket)), forSpace: "s")

        func open(_ file: String, _ identity: SyncIdentity?) throws -> SyncReplica {
            let path = folder.path(file + ".sqlite")
            if !FileManager.default.fileExists(atPath: path) { try Connection(storageLocation: .onDisk(path)).execute(generatedSchema) }
            let transport = identity.map { InProcessSyncTransport(hub: hub, identity: $0) } ?? InProcessSyncTransport(hub: hub)
            return try SyncReplica(database: try Database(path: path), replicaID: file, space: "s", tables: generatedTables, transport: transport)
        }
        let admin = try open("admin", nil)
        let users = ["alice", "bob", "o'brien"]
        var identities = users.map { SyncIdentity(user: $0, claims: drawClaims(&random), listClaims: drawListClaims(&random)) }
        var replicas = try users.indices.map { try open("u\($0)", identities[$0]) }
        var subscriptions = users.map { _ in [SyncSubscription]() }

        /// The rows as one text (each row's quoted values, one row a line, in order).
        @Sendable func rowsText(_ table: String, where condition: String) -> String {
            let columns = (generatedColumns[table] ?? []).map { "quote(\(quoteIdentifier($0)))" }.joined(separator: " || '|' || ")
            return "SELECT coalesce(group_concat(r, char(10)), '') FROM (SELECT \(columns) AS r FROM \(quoteIdentifier(table)) WHERE \(condition) ORDER BY 1)"
        }
        func view(_ identity: SyncIdentity, _ subscribed: [SyncSubscription], _ table: String, _ connection: Connection) throws -> String {
            let conditions = buckets.compactMap { $0.oracle(table, subscriptions: subscribed) }
            guard !conditions.isEmpty else { return "" }
            // Every parameter named once, so that each statement takes all four.
            let condition =
                "coalesce(:user, :org, :level, :role, :groups, 1) IS NOT NULL AND (" + conditions.map { "(\($0))" }.joined(separator: " OR ") + ")"
            var arguments: [String: Bindable?] = [":user": identity.user]
            for name in claimNames { arguments[":" + name] = identity.claims[name] }
            let groups = try identity.listClaims["groups"].map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
            arguments[":groups"] = groups
            return try connection.query(rowsText(table, where: condition), arguments) ?? ""
        }
        func held(_ replica: SyncReplica, _ table: String) async throws -> String {
            let sql = rowsText(table, where: "true")
            return try await replica.database.read { try $0.query(sql) ?? "" }
        }
        func check(_ index: Int, _ step: String) async throws {
            for table in generatedTables {
                let expected = try view(identities[index], subscriptions[index], table, try hubImage(hub, space: "s", tables: generatedTables))
                let actual = try await held(replicas[index], table)
                try require(
                    actual == expected,
                    "\(step): \(identities[index].user) (claims \(identities[index].claims.sorted { $0.key < $1.key }), lists \(identities[index].listClaims), subscriptions \(subscriptions[index])) holds \(actual) of \(table), its view is \(expected); rules \(buckets.map(\.bucket))"
                )
            }
        }

        var counter = 0
        for stepIndex in 0..<random.int(12...24) {
            let step = "step \(stepIndex)"
            switch random.int(0...9) {
            case 0...3:
                // The backend writes: rows arrive, move between groups and orgs, and leave.
                var statements: [SQLFragment] = []
                for _ in 0..<random.int(1...4) {
                    counter += 1
                    switch random.int(0...5) {
                    case 0, 1:
                        var values: [BindingValue] = [.text("d\(counter)")]
                        for column in ["org", "score", "tag", "data", "amount"] {
                            values.append(store == .postgres ? drawValue(&random, column: column) : drawValue(&random))
                        }
                        values.append(.text(random.pick(["g1", "g2", "g3"])))
                        statements.append(SQLFragment(sql: "INSERT OR REPLACE INTO doc VALUES (?, ?, ?, ?, ?, ?, ?)", arguments: values))
                    case 2:
                        let column = random.pick(["org", "score", "tag", "data", "amount"])
                        statements.append(
                            SQLFragment(
                                sql: "UPDATE doc SET \(quoteIdentifier(column)) = ? WHERE id IN (SELECT id FROM doc ORDER BY id LIMIT 2 OFFSET ?)",
                                arguments: [store == .postgres ? drawValue(&random, column: column) : drawValue(&random), .integer(Int64(random.int(0...6)))]))
                    case 3:
                        statements.append(
                            SQLFragment(
                                sql: "INSERT OR REPLACE INTO grp VALUES (?, ?, ?)",
                                arguments: [
                                    .text(random.pick(["g1", "g2", "g3"])),
                                    random.pick(
                                        store == .postgres ? [.integer(0), .integer(1), .null] : [.integer(0), .integer(1), .real(1.0), .text("1"), .null]),
                                    .text(random.pick(users + ["o1", "1"]))
                                ]))
                    case 4:
                        statements.append(
                            SQLFragment(
                                sql: "INSERT OR REPLACE INTO member VALUES (?, ?, ?)",
                                arguments: [.text("m\(random.int(1...6))"), .text(random.pick(["g1", "g2", "g3", "1", "ok"])), .text(random.pick(users))]))
                    default:
                        statements.append(
                            SQLFragment(
                                sql: random.pick([
                                    "DELETE FROM doc WHERE id IN (SELECT id FROM doc ORDER BY id LIMIT 1 OFFSET \(random.int(0...6)))",
                                    "DELETE FROM member WHERE id IN (SELECT id FROM member ORDER BY id LIMIT 1 OFFSET \(random.int(0...4)))",
                                    "UPDATE grp SET public = 1 - coalesce(public, 0)"
                                ]), arguments: []))
                    }
                }
                let batch = statements
                try await admin.write { db in for statement in batch { try db.run(literal: statement) } }
                try await admin.sync()
            case 5:
                // Other subscriptions: the next sync moves the rows they add or drop.
                let index = random.int(0...users.count - 1)
                subscriptions[index] = drawSubscriptions(&random, buckets)
                try await replicas[index].setSubscriptions(subscriptions[index])
            case 4:
                // A new token with other claims, on the same file and replica ID.
                let index = random.int(0...users.count - 1)
                identities[index].claims = drawClaims(&random)
                identities[index].listClaims = drawListClaims(&random)
                replicas[index] = try open("u\(index)", identities[index])
            case 6:
                buckets = drawRules(&random)
                try hub.setRules(SyncRules(buckets: buckets.map(\.bucket)), forSpace: "s")
            default:
                let index = random.int(0...users.count - 1)
                try await replicas[index].sync()
                try await check(index, step)
            }
        }
        for index in users.indices {
            try await replicas[index].sync()
            try await check(index, "the end")
        }
    }
}

/// A value as an SQL literal, for the oracle's own queries: the kernel's.
enum SyncModelGeneratedRulesLiteral {
    static func sql(_ value: SyncValue) -> String { sqlLiteral(value.binding) }
}
