import Foundation
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Generated schedules on the running example: users who own lists, are granted and revoked
/// memberships, move todos between lists, change owners, and write what the rules refuse; after
/// every sync of a replica it holds exactly its user's view (the hand-written query on the hub),
/// never a row outside it; every write the hub accepted is on the hub; every refused write was
/// reported as forbidden. Names user IDs and titles with quotes, combining marks and NUL.
@Suite struct PartialSyncPropertyTests {
    typealias Example = PartialSyncTests

    static let users = ["alice", "bob", "carol", "d'\u{301}ave\"", "e\u{0}ve"]

    @Test func everyReplicaHoldsExactlyItsViewAfterEverySync() async throws {
        try await PropertyCheck.runAsync("partial sync views", cases: 6) { random in
            let folder = try SyncFolder()
            let hub = try Example.hub(folder)
            let admin = try Example.replica(folder, hub, user: nil)
            var replicas: [String: SyncReplica] = [:]
            for (index, user) in Self.users.enumerated() {
                replicas[user] = try Example.replica(folder, hub, user: user, name: "u\(index)")
            }
            var lists: [String] = []
            var todos: [String] = []
            var next = 0
            func fresh(_ prefix: String) -> String { next += 1; return prefix + "\(next)" }
            var accepted: [String] = []
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
                    lists.append(list); todos.append(todo); accepted.append(todo)
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
                case 5:
                    // A tag: readable by everyone, written by nobody.
                    let tag = fresh("g")
                    try await replica.write { try $0.run("INSERT INTO tag VALUES (?, ?)", tag, user) }
                default:
                    break
                }
                // Sync one replica and check it at this quiescent point.
                let syncing = random.pick(Self.users)
                guard let synced = replicas[syncing] else { continue }
                let refusals = try await Example.sync(synced)
                for refusal in refusals {
                    try require(refusal.reason == .forbidden || refusal.reason == .dependsOnRefused,
                                "step \(step): \(syncing)'s write was refused for another reason: \(refusal)")
                }
                if !refusals.isEmpty {
                    for change in try await synced.pendingChanges where change.refusal != nil { _ = try await synced.discard(change) }
                    _ = try await Example.sync(synced)
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
                    _ = try await Example.sync(replica)
                }
                try await Example.checkView(replica, hub, user: user, "at the end")
            }
            for todo in accepted {
                let count: Int = try hub.withSpace("team") { try $0.query("SELECT count(*) FROM todo WHERE id = ?", todo) } ?? 0
                try require(count == 1, "the accepted todo \(todo) is not on the hub")
            }
        }
    }
}
