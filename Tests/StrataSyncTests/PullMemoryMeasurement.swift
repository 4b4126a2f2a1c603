import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// By hand, not in CI: one user's pull after she joins STRATA_PULL_MEMORY groups (each with an
/// item), with the process's peak memory before and after. Issue 79 measured 0.56 GB at 1,000
/// groups and 24 GB at 30,000 (one OR of every instance); the pull is now linear, and past
/// `SyncLimits.maximumRowsPerPull` a snapshot.
///
///     STRATA_PULL_MEMORY=30000 swift test --filter PullMemoryMeasurement
@Suite struct PullMemoryMeasurement {
    /// The process's peak resident memory since the last reset (`VmHWM`), in MB.
    static func peakMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.unicodeScalars.filter { ("0"..."9").contains($0) }
            return (Double(String(String.UnicodeScalarView(digits))) ?? 0) / 1024
        }
        return 0
    }

    /// Resets the peak to the memory resident now (Linux: `5` to `/proc/self/clear_refs`).
    static func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

    @Test func onePullAfterJoiningThousandsOfGroups() async throws {
        guard let text = ProcessInfo.processInfo.environment["STRATA_PULL_MEMORY"], let groups = Int(text) else { return }
        let folder = try SyncFolder()
        let schema = """
            CREATE TABLE grp(id TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL);
            CREATE TABLE item(id TEXT PRIMARY KEY NOT NULL, grp TEXT NOT NULL);
            """
        let hub = try folder.hub(schema)
        try hub.setRules(
            SyncRules(buckets: [
                SyncBucket(
                    name: "groups", parameters: "SELECT id AS g FROM grp WHERE owner = auth.user",
                    data: ["grp": "id = bucket.g", "item": "grp = bucket.g"])
            ]), forSpace: "s")
        for name in ["admin", "alice"] { try Connection(storageLocation: .onDisk(folder.path(name + ".sqlite"))).execute(schema) }
        let admin = try SyncReplica(
            database: try Database(path: folder.path("admin.sqlite")), replicaID: "admin", space: "s", tables: ["grp", "item"],
            transport: InProcessSyncTransport(hub: hub))
        let alice = try SyncReplica(
            database: try Database(path: folder.path("alice.sqlite")), replicaID: "alice", space: "s", tables: ["grp", "item"],
            transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "alice")))
        try await alice.sync()
        var start = 0
        while start < groups {
            let range = start..<min(groups, start + 2_000)
            try await admin.write { db in
                for index in range {
                    try db.run("INSERT INTO grp VALUES (?, 'alice')", "g\(index)")
                    try db.run("INSERT INTO item VALUES (?, ?)", "i\(index)", "g\(index)")
                }
            }
            try await admin.sync()
            start = range.upperBound
        }
        Self.resetPeak()
        let before = Self.peakMegabytes()
        let clock = ContinuousClock()
        let elapsed = try await clock.measure { try await alice.sync() }
        let after = Self.peakMegabytes()
        let held = try await alice.database.read { try $0.query("SELECT count(*) FROM item") as Int? }
        print("pull after joining \(groups) groups: \(elapsed), resident \(Int(before)) MB before, peak \(Int(after)) MB during, \(held ?? 0) items held")
        #expect(held == groups)
    }
}
