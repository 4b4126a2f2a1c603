import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// A transport for one signed-in user (or a trusted caller) that loses requests and answers, as
/// `FlakyTransport` does for a trusted one: a push applied whose answer never came is sent again.
struct LossyUserTransport: SyncTransport {
    let inner: InProcessSyncTransport
    let failures: Locked<SeededRandom>
    struct Dropped: Error {}

    func roll() -> Int { failures.withLock { $0.int(0...5) } }

    var signedInUser: String? { inner.signedInUser }

    /// `call`, unless a roll loses the request before it (0) or its answer after it ran (1).
    private func lossy<Response>(_ call: () async throws -> Response) async throws -> Response {
        let roll = roll()
        if roll == 0 { throw Dropped() }
        let response = try await call()
        if roll == 1 { throw Dropped() }
        return response
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try await lossy { try await inner.push(request) }
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        // A pull answered and lost records the replica's view at the hub all the same.
        try await lossy { try await inner.pull(request) }
    }

    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot {
        if roll() == 0 { throw Dropped() }
        return try await inner.snapshot(request)
    }
}

/// Partial sync in the model-based test: generated schedules on the running example of
/// PartialSyncTests (lists with owners and members, their todos, tags everyone has), with its
/// rules, synced by several users with generated names (quotes, a combining mark after a quote,
/// a NUL, SQL), each on devices of their own, and a trusted admin device beside them.
///
/// Steps: users add todos to lists (theirs, ones they are members of, and ones they may not
/// write), move todos between lists, rename them, create lists (some for another owner), grant
/// and revoke memberships (owners, and members who may not), write tags (which no user may); the
/// admin changes lists' owners, grants, revokes and moves todos. Faults: a transport that loses
/// requests and answers, pages and pushes of 3 or 7, pull answers of a few hundred bytes, log
/// trims, reinstalls, a second syncer on the same file, and re-logins where the same file signs
/// in as another user (under its replica ID or a new one), with or without writes pending.
///
/// Checked after every sync that completed (its refused writes, reported through
/// `entryRefused` and ``SyncReplica/pendingChanges``, discarded one by one as an app would): the
/// replica holds exactly its user's view, computed by hand-written SQL on the hub's tables (the
/// admin: every row), so no replica holds a row outside its view at any quiescent point. A sync
/// after another user signed in with writes pending refuses them as
/// ``SyncRefusal/Reason/userChanged``, and the app discards them or signs the earlier user in
/// again. At the end (every device
/// synced until nothing is pending): each replica equals its view; every insert whose `write`
/// returned was applied by the hub (an audit trigger in the hub's space records what it applied)
/// or reported refused, never both; every applied todo and list is at the hub (none is deleted).
///
/// Both hub stores: the PostgreSQL half runs with the `Hub` trait and STRATA_POSTGRES_URL (there
/// the audit is a PostgreSQL trigger, and the user with a NUL in their name is left out: no
/// PostgreSQL text holds one).
/// STRATA_SYNC_RULES_MODEL_SEED replays one schedule; STRATA_PROPERTY_SCALE multiplies the cases;
/// STRATA_SYNC_MODEL_TRACE prints the steps.
extension SyncModelPropertyTests {
    /// Users' names: quotes, a combining mark after a quote, a NUL, SQL, and a plain one.
    static let userNames = ["alice", "o'brien", "'\u{301}n", "\"q\"", "nul\u{0}user", "x' OR '1'='1", "zoë"]

    /// A device as the rules schedule drives it: who is signed in, and the syncers on its file.
    final class UserDevice {
        let name: String
        var file: String
        var replicaID: String
        /// nil: the trusted admin.
        var user: String?
        /// Who was signed in before the last re-login, until the app has signed them in again once.
        var previousUser: String?
        var syncers: [SyncReplica] = []
        init(name: String, file: String, user: String?) {
            self.name = name; self.file = file; self.replicaID = name; self.user = user
        }
    }

    /// What the schedule wrote and what it was told.
    struct RulesLedger {
        /// Every insert whose `write` returned, as "table:id".
        var inserted: Set<String> = []
        /// Every insert in a write the app was told was refused (then discarded).
        var reported: Set<String> = []
        var refusals = 0
        var userChanges = 0
        var viewChecks = 0
    }

    @Test(arguments: Store.allCases)
    func generatedSchedulesWithRulesKeepEachReplicaToItsView(store: Store) async throws {
        guard store.isAvailable(to: "the rules model test") else { return }
        try await runModelSeeds("sync model with rules", seedVariable: "STRATA_SYNC_RULES_MODEL_SEED", cases: 6) { seed in
            try await Self.runRules(seed: seed, store: store)
        }
    }

    static func runRules(seed: UInt64, store: Store = .sqlite) async throws {
        var random = SeededRandom(seed: seed)
        let folder = try SyncFolder()
        let (limits, settings) = drawSyncLimits(&random)
        let hub: SyncHub
        let readAudit: () throws -> [String]
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
            try hub.createSpace("team") { try $0.execute(PartialSyncTests.schema) }
            // The audit: a PostgreSQL trigger on the hub's tables, beside the store's own.
            for statement in [
                "CREATE TABLE team.audit(token text NOT NULL)",
                """
                CREATE FUNCTION team.audit_insert() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO team.audit VALUES (TG_TABLE_NAME || ':' || NEW.id); RETURN NEW; END $$
                """
            ] + ["list", "member", "todo"].map({ "CREATE TRIGGER audit AFTER INSERT ON team.\($0) FOR EACH ROW EXECUTE FUNCTION team.audit_insert()" }) {
                _ = try database.rows(statement)
            }
            readAudit = { try database.texts("SELECT token FROM team.audit") }
            #else
            return
            #endif
        } else {
            hub = try SyncHub(directory: URL(fileURLWithPath: folder.path("hub")), limits: limits)
            // The audit is the hub's own table, outside the synced ones: what it applied, inserted.
            try hub.createSpace("team") { connection in
                try connection.execute(PartialSyncTests.schema)
                try connection.execute("CREATE TABLE audit(token TEXT NOT NULL)")
                for table in ["list", "member", "todo"] {
                    try connection.execute("CREATE TRIGGER audit_\(table) AFTER INSERT ON \(table) BEGIN INSERT INTO audit VALUES ('\(table):' || new.id); END")
                }
            }
            readAudit = { try hub.withSpace("team") { try $0.query("SELECT token FROM audit") } }
        }
        try hub.setRules(PartialSyncTests.rules, forSpace: "team")
        let policy: SyncPolicy = random.oneIn(2) ? .hubWins : .lastWriterWins
        for table in PartialSyncTests.tables { hub.setPolicy(policy, forTable: table) }
        let failures = Locked(SeededRandom(seed: random.next()))

        var pool = store == .postgres ? userNames.filter { !$0.unicodeScalars.contains("\u{0}") } : userNames
        var users: [String] = []
        for _ in 0..<random.int(2...4) { users.append(pool.remove(at: random.int(0...pool.count - 1))) }

        func open(_ device: UserDevice) throws -> SyncReplica {
            let path = folder.path(device.file + ".sqlite")
            let connection = try Connection(storageLocation: .onDisk(path))
            try connection.execute("PRAGMA busy_timeout = 10000")
            try connection.execute("PRAGMA journal_mode = WAL")
            if try connection.query("SELECT count(*) FROM sqlite_master WHERE name = 'todo'") as Int? == 0 {
                try connection.execute(PartialSyncTests.schema)
            }
            let inner = device.user.map { InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: $0)) } ?? InProcessSyncTransport(hub: hub)
            return try SyncReplica(
                database: try Database(path: path), replicaID: device.replicaID, space: "team",
                tables: PartialSyncTests.tables, transport: LossyUserTransport(inner: inner, failures: failures),
                settings: settings)
        }
        func reopen(_ device: UserDevice) throws {
            let count = max(1, device.syncers.count)
            device.syncers = []
            for _ in 0..<count { device.syncers.append(try open(device)) }
        }

        let admin = UserDevice(name: "admin", file: "admin", user: nil)
        try reopen(admin)
        var devices = [admin]
        for index in 0..<random.int(2...4) {
            let device = UserDevice(name: "d\(index)", file: "d\(index)", user: users[index % users.count])
            try reopen(device)
            devices.append(device)
        }
        var ledger = RulesLedger()
        var lists: [String] = []
        var counter = 0
        func inserted(_ token: String) {
            ledger.inserted.insert(token)
            if tracing { print("  insert \(token)") }
        }
        func fresh(_ prefix: String) -> String { counter += 1; return "\(prefix)\(counter)" }

        // The admin starts the space: a list per user, a tag.
        for user in users {
            let list = fresh("L")
            lists.append(list)
            try await admin.syncers[0].write { try $0.run("INSERT INTO list VALUES (?, ?, ?)", list, user, "list of \(user)") }
            inserted("list:" + list)
        }
        try await admin.syncers[0].write { try $0.execute("INSERT INTO tag VALUES ('g1', 'urgent')") }

        /// The rows of a synced table a replica holds.
        func held(_ syncer: SyncReplica, _ sql: String) async throws -> [String] {
            try await syncer.database.read { try $0.query(sql) }
        }

        /// Discards the writes the hub refused (each reported), and the inserts in them.
        func discardRefused(_ device: UserDevice, _ syncer: SyncReplica) async throws {
            for _ in 0..<1_000 {
                guard let change = try await syncer.pendingChanges.first(where: { $0.refusal != nil }) else { return }
                // Writes of the user signed in before: sometimes the app signs that user in again
                // (once), so they are pushed as theirs, rather than dropping them.
                if change.refusal?.reason == .userChanged, let previous = device.previousUser, random.oneIn(2) {
                    if tracing { print("  \(device.name) signs \(previous.debugDescription) in again") }
                    ledger.userChanges += 1
                    device.previousUser = nil
                    device.user = previous
                    try reopen(device)
                    return
                }
                if tracing { print("  discarding \(change.refusal.map(String.init(describing:)) ?? "") with \(try insertsIn(change).sorted())") }
                ledger.refusals += 1
                // Writes made as the user signed in before are refused by name too, and dropped alike.
                if change.refusal?.reason == .userChanged { ledger.userChanges += 1 }
                ledger.reported.formUnion(try insertsIn(change))
                try await syncer.discard(change)
            }
        }

        /// One sync of `syncer` as an app runs it; when it completed, its replica must hold
        /// exactly its user's view.
        /// The syncers whose last sync completed (its pull answered): only those are quiescent.
        var completed: Set<ObjectIdentifier> = []

        func sync(_ device: UserDevice, _ syncer: SyncReplica, _ context: String) async throws {
            // A syncer the device replaced (another user signed in meanwhile) is closed, as an app's would be.
            guard device.syncers.contains(where: { $0 === syncer }) else { return }
            var refused = false
            completed.remove(ObjectIdentifier(syncer))
            do {
                try await syncer.sync()
            } catch let error as SyncError where !error.refusals.isEmpty {
                refused = true
            } catch let error as SyncError {
                try require(false, "\(device.name) \(context): sync failed: \(error)")
            } catch {
                return
            }
            completed.insert(ObjectIdentifier(syncer))
            // Refusals reported by an earlier sync are held, and read from refusedChanges.
            let held = !(try await syncer.refusedChanges.isEmpty)
            if refused || held { try await discardRefused(device, syncer) }
            guard device.syncers.contains(where: { $0 === syncer }), try await syncer.pendingChangeCount == 0 else { return }
            ledger.viewChecks += 1
            try await checkView(device, syncer, context)
        }

        func checkView(_ device: UserDevice, _ syncer: SyncReplica, _ context: String) async throws {
            // The hub's rows, whichever store holds them: a trusted snapshot of the whole space.
            let image = try hubImage(hub)
            for table in PartialSyncTests.tables {
                let mine = try await syncer.database.read { try PartialSyncTests.rows($0, table) }
                let expected = try device.user.map { try PartialSyncTests.expectedView(image, user: $0, table) } ?? PartialSyncTests.rows(image, table)
                try require(
                    mine == expected,
                    "\(device.name) \(context) (seed \(seed)): \(device.user.map { $0.debugDescription } ?? "admin") "
                        + "holds \(mine) of \(table), the view is \(expected)")
            }
        }

        let steps = random.int(30...60)
        for step in 0..<steps {
            let device = devices[random.int(0...devices.count - 1)]
            let syncer = device.syncers[random.int(0...device.syncers.count - 1)]
            let action = random.int(0...19)
            if tracing { print("step \(step): \(device.name) (\(device.user.map { $0.debugDescription } ?? "admin")) action \(action)") }
            // The lists and todos this device holds now: what its user sees (and writes by id).
            let heldLists = try await held(syncer, "SELECT id FROM list ORDER BY id")
            let heldTodos = try await held(syncer, "SELECT id FROM todo ORDER BY id")
            let anyList = lists.isEmpty ? "L0" : random.pick(lists)
            switch action {
            case 0, 1, 2:
                // A todo into a list it sees (or, one time in four, any list at all).
                let list = heldLists.isEmpty || random.oneIn(4) ? anyList : random.pick(heldLists)
                let id = fresh("t")
                let title = random.pick(["milk", "it's", "'\u{301}", "e\u{301}", ""])
                try await syncer.write { try $0.run("INSERT INTO todo VALUES (?, ?, ?)", id, list, title) }
                inserted("todo:" + id)
            case 3:
                // A todo moves to another list (one it sees, or any).
                guard !heldTodos.isEmpty else { break }
                let todo = random.pick(heldTodos)
                let list = heldLists.isEmpty || random.oneIn(3) ? anyList : random.pick(heldLists)
                try await syncer.write { try $0.run("UPDATE todo SET list = ? WHERE id = ?", list, todo) }
            case 4:
                guard !heldTodos.isEmpty else { break }
                let todo = random.pick(heldTodos), title = "renamed \(step)"
                try await syncer.write { try $0.run("UPDATE todo SET title = ? WHERE id = ?", title, todo) }
            case 5:
                // A new list: its own (or, one time in four, for another owner: refused).
                let list = fresh("L")
                let owner = device.user.map { random.oneIn(4) ? random.pick(users) : $0 } ?? random.pick(users)
                try await syncer.write { try $0.run("INSERT INTO list VALUES (?, ?, ?)", list, owner, "made at \(step)") }
                lists.append(list)
                inserted("list:" + list)
            case 6:
                // A grant, of a list it sees: allowed when it owns the list.
                let list = heldLists.isEmpty ? anyList : random.pick(heldLists)
                let id = fresh("m"), member = random.pick(users)
                try await syncer.write { try $0.run("INSERT INTO member VALUES (?, ?, ?)", id, list, member) }
                inserted("member:" + id)
            case 7:
                // A revocation of a membership it sees.
                let members = try await held(syncer, "SELECT id FROM member ORDER BY id")
                guard !members.isEmpty else { break }
                let id = random.pick(members)
                try await syncer.write { try $0.run("DELETE FROM member WHERE id = ?", id) }
            case 8:
                // A tag: no user may write one.
                let id = fresh("g")
                try await syncer.write { try $0.run("INSERT INTO tag VALUES (?, ?)", id, "tag \(step)") }
            case 9:
                // The admin gives a list to another owner.
                guard !lists.isEmpty else { break }
                let list = random.pick(lists), owner = random.pick(users)
                try await admin.syncers[0].write { try $0.run("UPDATE list SET owner = ? WHERE id = ?", owner, list) }
            case 10, 11, 12, 13:
                try await sync(device, syncer, "step \(step)")
            case 14:
                _ = try? await syncer.push()
            case 15:
                do {
                    try await syncer.pull()
                    if try await syncer.pendingChangeCount == 0 { try await checkView(device, syncer, "pull at step \(step)") }
                } catch let error as SyncError {
                    try require(false, "\(device.name) pull at step \(step): \(error)")
                } catch {}
            case 16:
                // A second syncer on the same file, from now on used beside the first.
                if device.syncers.count == 1 { device.syncers.append(try open(device)) }
            case 17:
                // A reinstall, once nothing is pending: the file goes, a new one signs in as the same user.
                for one in device.syncers { try await sync(device, one, "before the reinstall at \(step)") }
                guard device !== admin, try await device.syncers[0].pendingChangeCount == 0 else { break }
                device.syncers = []
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder.path(device.file + ".sqlite") + suffix) }
                device.file = device.name + "-reinstalled-\(step)"
                try reopen(device)
            case 18:
                // Another user signs in on the same file, pending writes and all, under the same
                // replica ID or a new one.
                guard device !== admin, users.count > 1 else { break }
                let others = users.filter { $0 != device.user }
                device.previousUser = device.user
                device.user = random.pick(others)
                if random.oneIn(2) { device.replicaID = device.name + "-login\(step)" }
                try reopen(device)
            default:
                if random.oneIn(2) { _ = try? hub.trimLog(ofSpace: "team", keepingLast: random.int(0...5)) }
            }
        }

        // Quiescence: every syncer synced until nothing is pending and each has the hub's newest version.
        var settled = false
        for round in 0..<2_000 {
            for device in devices {
                for syncer in device.syncers { try await sync(device, syncer, "settling, round \(round)") }
            }
            var done = true
            let newest = try hub.version(ofSpace: "team")
            for device in devices {
                for syncer in device.syncers {
                    let pending = try await syncer.pendingChangeCount, pulled = try await syncer.lastPulledVersion
                    // A sync whose answer was lost is not quiescence, though its cursor may be the
                    // hub's newest version (the answer asked for a snapshot it never fetched).
                    if pending != 0 || pulled != newest || !completed.contains(ObjectIdentifier(syncer)) { done = false }
                }
            }
            if done { settled = true; break }
        }
        try require(settled, "the replicas never settled (seed \(seed))")
        for device in devices {
            for syncer in device.syncers { try await checkView(device, syncer, "at the end") }
        }
        let audit = try readAudit()
        let applied = Set(audit)
        try require(applied.count == audit.count, "the hub applied an insert twice: \(audit.sorted())")
        for token in ledger.inserted.sorted() {
            let isApplied = applied.contains(token), isReported = ledger.reported.contains(token)
            try require(isApplied || isReported, "the insert \(token.debugDescription) was neither applied nor reported refused")
            try require(!(isApplied && isReported), "the insert \(token.debugDescription) was reported refused and applied")
        }
        // Todos and lists are never deleted: every one applied is at the hub.
        let atHub = Set(try hubImage(hub).query("SELECT 'todo:' || id FROM todo UNION ALL SELECT 'list:' || id FROM list") as [String])
        for token in applied where !token.hasPrefix("member:") {
            try require(atHub.contains(token), "the accepted insert \(token.debugDescription) is not at the hub")
        }
        if tracing {
            print(
                "seed \(seed): \(steps) steps, \(ledger.inserted.count) inserts, \(ledger.refusals) refusals, \(ledger.userChanges) user changes, \(ledger.viewChecks) view checks"
            )
        }
    }

    /// The hub's synced tables, every row, in a SQLite database of their own (a trusted snapshot:
    /// the same on both stores).
    static func hubImage(_ hub: SyncHub, space: String = "team", tables: [String] = PartialSyncTests.tables) throws -> Connection {
        var fingerprint = "?"
        for _ in 0..<2 {
            do {
                let snapshot = try hub.snapshot(
                    SyncSnapshotRequest(
                        space: space, replicaID: "model-oracle", tables: tables,
                        schemaFingerprint: fingerprint))
                let connection = try Connection(storageLocation: .inMemory)
                try connection.deserialize(snapshot.database)
                return connection
            } catch SyncError.schemaMismatch(_, let remote) {
                fingerprint = remote
            }
        }
        throw SyncError.refused("the hub's snapshot kept refusing its own fingerprint")
    }

    /// The "table:id" of each row `change` inserts.
    static func insertsIn(_ change: SyncPendingChange) throws -> Set<String> {
        var found: Set<String> = []
        try change.changeset.forEachChange { row in
            guard row.operation == .insert, case .text(let id)? = row.primaryKey.first else { return }
            found.insert(row.table + ":" + id)
        }
        return found
    }
}
