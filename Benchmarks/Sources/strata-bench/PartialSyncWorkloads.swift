import Foundation
import StrataSQift
import Strata
import StrataSync

/// Partial sync's costs (issue 65), in one run, on the docs' running example:
/// - `sync-partial-pull`: one user's catch-up pull over the changes made since its cursor, in a
///   space of `lists` lists x 100 todos whose users are each in 3 lists, against the same user
///   pulling the same rows from a space holding only their 3 lists.
/// - `sync-partial-push`: pushes of one-row todo updates by the lists' owners, applied with the
///   write rules checked, against the same pushes on the same space without rules.
/// - `sync-partial-move`: the pull that brings a list of 100 todos after its owner adds the user
///   (one pull), against a pull with nothing to bring.
enum PartialSyncWorkloads {
    typealias Result = SyncWorkloads.Result

    static let schema = """
        CREATE TABLE list(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, name TEXT);
        CREATE TABLE member(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, user TEXT NOT NULL);
        CREATE TABLE todo(id TEXT PRIMARY KEY NOT NULL, list TEXT NOT NULL, title TEXT);
        CREATE INDEX todo_list ON todo(list);
        CREATE INDEX member_user ON member(user);
        CREATE INDEX list_owner ON list(owner);
        """
    static let tables = ["list", "member", "todo"]
    static let rules = SyncRules(
        buckets: [
            SyncBucket(
                name: "lists",
                parameters: "SELECT id AS list FROM list WHERE owner = auth.user UNION SELECT list FROM member WHERE user = auth.user",
                data: ["list": "id = bucket.list", "todo": "list = bucket.list", "member": "list = bucket.list"])
        ],
        writes: [
            "list": "owner = auth.user",
            "todo": "list IN (SELECT id FROM list WHERE owner = auth.user UNION SELECT list FROM member WHERE user = auth.user)",
            "member": "list IN (SELECT id FROM list WHERE owner = auth.user)"
        ])

    static func selected(_ name: String) -> Bool { SyncWorkloads.selected(name) }

    @MainActor static func measureAll() async throws -> [Result] {
        var results: [Result] = []
        if selected("sync-partial-pull") { results.append(try await catchUp()) }
        if selected("sync-partial-push") { results.append(try await push()) }
        if selected("sync-partial-move") { results.append(try await move()) }
        return results
    }

    /// Lists in the big space: 1,000 (the issue's), fewer with `--rows` (a tenth of the rows).
    static var lists: Int { options.rows.map { max(10, min(1_000, $0 / 10)) } ?? 1_000 }

    static func newHub(withRules: Bool) throws -> SyncHub {
        let hub = try SyncHub(directory: directory.appendingPathComponent("partial-" + UUID().uuidString))
        try hub.createSpace("team") { try $0.execute(schema) }
        if withRules { try hub.setRules(rules, forSpace: "team") }
        return hub
    }

    static func replica(_ hub: SyncHub, user: String?, name: String) throws -> SyncReplica {
        let database = try Database(path: directory.appendingPathComponent(name + "-" + UUID().uuidString + ".sqlite").path)
        try database.executeWrite { try $0.execute(schema) }
        let transport = user.map { InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: $0)) } ?? InProcessSyncTransport(hub: hub)
        return try SyncReplica(database: database, replicaID: name, space: "team", tables: tables, transport: transport)
    }

    /// Fills `hub` with lists `range` (100 todos each, owner `owner<i>`) and, for each user
    /// `u<j>`, memberships of lists j, j+1, j+2 that fall in `range`.
    static func fill(_ hub: SyncHub, lists range: Range<Int>, total: Int) async throws {
        let admin = try replica(hub, user: nil, name: "admin")
        try await admin.write { db in
            for list in range {
                try db.run("INSERT INTO list VALUES (?, ?, ?)", "L\(list)", "owner\(list)", "list \(list)")
                for todo in 0..<100 { try db.run("INSERT INTO todo VALUES (?, ?, ?)", "T\(list)-\(todo)", "L\(list)", "todo \(todo)") }
            }
            for user in 0..<total {
                for list in [user, (user + 1) % total, (user + 2) % total] where range.contains(list) {
                    try db.run("INSERT INTO member VALUES (?, ?, ?)", "M\(user)-\(list)", "L\(list)", "u\(user)")
                }
            }
        }
        try await admin.sync()
    }

    /// 10,000 todo updates spread over `lists` lists (those in `range` applied), 10 per entry.
    static func change(_ hub: SyncHub, lists total: Int, only range: Range<Int>) async throws {
        let admin = try replica(hub, user: nil, name: "changer")
        try await admin.sync()
        let changes = 10_000
        var index = 0
        while index < changes {
            let batch = (index..<min(changes, index + 10)).map { ($0 * 7_919) % (total * 100) }
            let title = "changed \(index)"
            try await admin.write { db in
                for todo in batch where range.contains(todo / 100) {
                    try db.run("UPDATE todo SET title = ? WHERE id = ?", title, "T\(todo / 100)-\(todo % 100)")
                }
            }
            index += 10
            if index % 1_000 == 0 { try await admin.push() }
        }
        try await admin.sync()
    }

    @MainActor static func catchUp() async throws -> Result {
        SyncWorkloads.progress("sync-partial-pull")
        let total = lists
        let big = try newHub(withRules: true), small = try newHub(withRules: true)
        try await fill(big, lists: 0..<total, total: total)
        try await fill(small, lists: 0..<3, total: total)
        var bigReplicas: [SyncReplica] = [], smallReplicas: [SyncReplica] = []
        for round in 0...options.runs {
            let a = try replica(big, user: "u0", name: "big-\(round)"), b = try replica(small, user: "u0", name: "small-\(round)")
            try await a.sync(); try await b.sync()
            bigReplicas.append(a); smallReplicas.append(b)
        }
        try await change(big, lists: total, only: 0..<total)
        try await change(small, lists: total, only: 0..<3)
        var inSmall = Measurement(), inBig = Measurement()
        for round in 0...options.runs {
            for (replica, isBig) in [(smallReplicas[round], false), (bigReplicas[round], true)] {
                let start = DispatchTime.now().uptimeNanoseconds
                try await replica.sync()
                let time = SyncWorkloads.elapsed(start)
                if round > 0 { if isBig { inBig.times.append(time) } else { inSmall.times.append(time) } }
            }
            let rowsBig: [String] = try await bigReplicas[round].database.read { try $0.query("SELECT id || title FROM todo ORDER BY id") }
            let rowsSmall: [String] = try await smallReplicas[round].database.read { try $0.query("SELECT id || title FROM todo ORDER BY id") }
            guard rowsBig == rowsSmall, rowsBig.count == 300 else {
                throw BenchError.mismatch("sync-partial-pull: the user's rows differ between the spaces (\(rowsBig.count), \(rowsSmall.count))")
            }
        }
        return Result(
            workload: "sync-partial-pull (\(total) lists x 100 todos, 10,000 changes; user in 3 lists)", rows: 300,
            baseline: inSmall, sync: inBig, baselineName: "the same rows from a space of their 3 lists")
    }

    @MainActor static func push() async throws -> Result {
        SyncWorkloads.progress("sync-partial-push")
        let total = min(lists, 100)
        let entries = options.quick ? 100 : 1_000
        var plain = Measurement(), ruled = Measurement()
        for round in 0...options.runs {
            for withRules in [false, true] {
                let hub = try newHub(withRules: withRules)
                try await fill(hub, lists: 0..<total, total: total)
                let owners = try (0..<10).map { try replica(hub, user: withRules ? "owner\($0)" : nil, name: "owner-\($0)") }
                for owner in owners { try await owner.sync() }
                for index in 0..<entries {
                    let list = index % 10
                    try await owners[list].write { try $0.run("UPDATE todo SET title = ? WHERE id = ?", "by owner \(index)", "T\(list)-\(index % 100)") }
                }
                let start = DispatchTime.now().uptimeNanoseconds
                for owner in owners { try await owner.push() }
                let time = SyncWorkloads.elapsed(start)
                guard try await owners.asyncAllPushed() else { throw BenchError.mismatch("sync-partial-push: a write was not applied") }
                if round > 0 { if withRules { ruled.times.append(time) } else { plain.times.append(time) } }
            }
        }
        return Result(
            workload: "sync-partial-push (\(entries) one-row entries from 10 owners)", rows: entries, baseline: plain,
            sync: ruled, baselineName: "the same pushes without rules")
    }

    @MainActor static func move() async throws -> Result {
        SyncWorkloads.progress("sync-partial-move")
        let total = lists
        var quiet = Measurement(), moved = Measurement()
        let hub = try newHub(withRules: true)
        try await fill(hub, lists: 0..<total, total: total)
        for round in 0...options.runs {
            let user = "newcomer\(round)"
            let replica = try Self.replica(hub, user: user, name: user)
            try await replica.sync()
            var start = DispatchTime.now().uptimeNanoseconds
            try await replica.sync()
            let quietTime = SyncWorkloads.elapsed(start)
            let owner = try Self.replica(hub, user: "owner\(round % total)", name: "owner-\(round)")
            try await owner.sync()
            try await owner.write { try $0.run("INSERT INTO member VALUES (?, ?, ?)", "N\(round)", "L\(round % total)", user) }
            try await owner.sync()
            start = DispatchTime.now().uptimeNanoseconds
            try await replica.pull()
            let movedTime = SyncWorkloads.elapsed(start)
            guard try await replica.database.read({ try $0.query("SELECT count(*) FROM todo") as Int? }) == 100 else {
                throw BenchError.mismatch("sync-partial-move: the list's 100 todos did not arrive")
            }
            if round > 0 { quiet.times.append(quietTime); moved.times.append(movedTime) }
        }
        return Result(
            workload: "sync-partial-move (a grant brings 100 todos in one pull)", rows: 100, baseline: quiet, sync: moved,
            baselineName: "a pull with nothing to bring")
    }
}

extension Array where Element == SyncReplica {
    /// Whether every replica's outbox is empty (every write applied).
    func asyncAllPushed() async throws -> Bool {
        for replica in self where try await replica.pendingChangeCount > 0 { return false }
        return true
    }
}
