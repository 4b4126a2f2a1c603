import Foundation
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Generated schedules on the running example: users who own lists, are granted and revoked
/// memberships, move todos between lists, change owners, and write what the rules refuse; after
/// every sync of a replica it holds exactly its user's view (the hand-written query on the hub),
/// never a row outside it; every write the hub accepted is on the hub; every refused write was
/// reported as forbidden. Names user IDs and titles with quotes, combining marks and NUL. Faults:
/// answers lost after the hub acted (the request is sent again), and reinstalls (a new database
/// under a new replica ID for the same user).
@Suite struct PartialSyncPropertyTests {
    /// Loses the answer of one request in `every` after the hub acted on it, as a dropped
    /// connection does.
    struct LosingAnswers: SyncTransport {
        let inner: any SyncTransport
        let every: Int
        let counter = Counter()

        final class Counter: @unchecked Sendable {
            // @unchecked Sendable: `count` is only touched under `lock`.
            private let lock = NSLock()
            private var count = 0
            func next() -> Int {
                lock.withLock {
                    count += 1; return count
                }
            }
        }

        func lose<T>(_ answer: T) throws -> T {
            if every > 0, counter.next() % every == 0 { throw SyncError.hubUnreachable(url: "in process", reason: "the answer was lost") }
            return answer
        }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try lose(try await inner.push(request)) }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try lose(try await inner.pull(request)) }
        func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try lose(try await inner.snapshot(request)) }
    }

    typealias Example = PartialSyncTests

    /// `STRATA_PARTIAL_SYNC_TRACE=1` prints each step.
    static let tracing = ProcessInfo.processInfo.environment["STRATA_PARTIAL_SYNC_TRACE"] != nil

    static let users = ["alice", "bob", "carol", "d'\u{301}ave\"", "e\u{0}ve"]

    @Test func everyReplicaHoldsExactlyItsViewAfterEverySync() async throws {
        try await PropertyCheck.runAsync("partial sync views", cases: 6) { random in
            let folder = try SyncFolder()
            let hub = try Example.hub(folder)
            let admin = try Example.replica(folder, hub, user: nil)
            var replicas: [String: SyncReplica] = [:]
            let losing = random.pick([0, 0, 3, 5, 7])
            var generation = 0
            func install(_ user: String) throws -> SyncReplica {
                generation += 1
                let index = Self.users.firstIndex(of: user) ?? 0
                return try Example.replica(folder, hub, user: user, name: "u\(index)-\(generation)") { LosingAnswers(inner: $0, every: losing) }
            }
            for user in Self.users { replicas[user] = try install(user) }
            /// Syncs until an attempt is not cut by a lost answer.
            func sync(_ replica: SyncReplica) async throws -> [SyncRefusal] {
                for _ in 0..<20 {
                    do { return try await Example.sync(replica) } catch SyncError.hubUnreachable {}
                }
                throw PropertyViolation("twenty syncs in a row lost an answer")
            }
            var lists: [String] = []
            var todos: [String] = []
            var next = 0
            func fresh(_ prefix: String) -> String { next += 1; return prefix + "\(next)" }
            var accepted: [String] = []
            var createdBy: [String: String] = [:]
            func onHub(_ todo: String) throws -> Bool {
                try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = ?", todo) as Int? } == 1
            }
            let steps = random.int(25...45)
            for step in 0..<steps {
                let user = random.pick(Self.users)
                guard let replica = replicas[user] else { continue }
                switch random.int(0...9) {
                case 0:
                    // A user creates a list of their own (always allowed) with a todo.
                    let list = fresh("L"), todo = fresh("t")
                    let title = Gen.text(&random, maxPieces: 3)
                    try await replica.write { db in
                        try db.run("INSERT INTO list VALUES (?, ?, ?)", list, user, title)
                        try db.run("INSERT INTO todo VALUES (?, ?, ?)", todo, list, title)
                    }
                    lists.append(list); todos.append(todo); accepted.append(todo); createdBy[todo] = user
                case 1 where !lists.isEmpty:
                    // The admin grants a membership, or revokes one.
                    let list = random.pick(lists), member = random.pick(Self.users)
                    try await admin.sync()
                    if random.oneIn(2) {
                        try await admin.write { try $0.run("INSERT OR IGNORE INTO member VALUES (?, ?, ?)", "m:\(list):\(member)", list, member) }
                    } else {
                        try await admin.write { try $0.run("DELETE FROM member WHERE list = ? AND user = ?", list, member) }
                    }
                    try await admin.sync()
                case 2 where !todos.isEmpty && !lists.isEmpty:
                    // The admin moves a todo to another list.
                    try await admin.sync()
                    let todo = random.pick(todos), list = random.pick(lists)
                    try await admin.write { try $0.run("UPDATE todo SET list = ? WHERE id = ?", list, todo) }
                    try await admin.sync()
                case 3 where !lists.isEmpty:
                    // The admin gives a list to another owner.
                    try await admin.sync()
                    let list = random.pick(lists), owner = random.pick(Self.users)
                    try await admin.write { try $0.run("UPDATE list SET owner = ? WHERE id = ?", owner, list) }
                    try await admin.sync()
                case 4 where !lists.isEmpty:
                    // A user adds a todo to any list: refused unless they may write it.
                    let list = random.pick(lists), todo = fresh("t"), title = Gen.text(&random, maxPieces: 3)
                    try await replica.write { try $0.run("INSERT INTO todo VALUES (?, ?, ?)", todo, list, title) }
                    todos.append(todo)
                case 6 where random.oneIn(3):
                    // A reinstall: the user's unpushed writes go with the old database.
                    accepted = try accepted.filter { try createdBy[$0] != user || onHub($0) }
                    replicas[user] = try install(user)
                case 5:
                    // A tag: readable by everyone, written by nobody.
                    let tag = fresh("g")
                    try await replica.write { try $0.run("INSERT INTO tag VALUES (?, ?)", tag, user) }
                default:
                    break
                }
                // Sync one replica and check it at this quiescent point.
                let syncing = random.pick(Self.users)
                if Self.tracing {
                    FileHandle.standardError.write(Data("step \(step): \(user.debugDescription) acted, \(syncing.debugDescription) syncs\n".utf8))
                }
                guard let synced = replicas[syncing] else { continue }
                let started = ContinuousClock.now
                let refusals = try await sync(synced)
                if Self.tracing { FileHandle.standardError.write(Data("  sync took \(ContinuousClock.now - started)\n".utf8)) }
                for refusal in refusals {
                    try require(
                        refusal.reason == .forbidden || refusal.reason == .dependsOnRefused,
                        "step \(step): \(syncing)'s write was refused for another reason: \(refusal)")
                }
                if !refusals.isEmpty {
                    for change in try await synced.pendingChanges where change.refusal != nil { _ = try await synced.discard(change) }
                    _ = try await sync(synced)
                }
                if try await synced.pendingChanges.isEmpty {
                    try await Example.checkView(synced, hub, user: syncing, "step \(step)")
                }
            }
            // Quiescence: every replica, synced, holds exactly its view; accepted writes are on the hub.
            for user in Self.users {
                guard let replica = replicas[user] else { continue }
                for _ in 0..<3 {
                    for change in try await replica.pendingChanges where change.refusal != nil { _ = try await replica.discard(change) }
                    _ = try await sync(replica)
                }
                try await Example.checkView(replica, hub, user: user, "at the end")
            }
            for todo in accepted {
                try require(try onHub(todo), "the accepted todo \(todo) is not on the hub")
            }
        }
    }
}
