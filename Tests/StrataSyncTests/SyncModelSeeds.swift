import Foundation
import StrataSync
import StrataTestSupport
import Testing

/// Runs a seeded model test: on the one seed in the environment variable `variable` (hex, with or
/// without `0x`) when it is set, else on `cases` seeds drawn by `PropertyCheck.run(label)`. A
/// failing seed is recorded, as `failing` (else `label`) with the setting that reproduces it, and
/// its error rethrown.
func runModelSeeds(
    _ label: String, failing: String? = nil, seedVariable variable: String, cases: Int,
    _ body: (UInt64) async throws -> Void
) async throws {
    var seeds: [UInt64] = []
    if let text = ProcessInfo.processInfo.environment[variable],
        let seed = UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
    {
        seeds = [seed]
    } else {
        try PropertyCheck.run(label, cases: cases) { random in seeds.append(random.next()) }
    }
    for seed in seeds {
        do {
            try await body(seed)
        } catch {
            Issue.record("\(failing ?? label) failed; reproduce with \(variable)=0x\(String(seed, radix: 16, uppercase: true)) — \(error)")
            throw error
        }
    }
}

/// The hub's limits and the replicas' settings of a model run, drawn from `random`: pushes,
/// pulls and pull pages of 3 or 7 entries, pulls of 200 bytes, 1,000 bytes or 1 MiB.
func drawSyncLimits(_ random: inout SeededRandom) -> (SyncLimits, SyncReplicaSettings) {
    let small = [3, 7]
    let limits = SyncLimits(
        maximumEntriesPerPush: random.pick(small), maximumPushBytes: 1 << 20,
        maximumEntriesPerPull: random.pick(small), maximumPullBytes: random.pick([200, 1_000, 1 << 20]))
    let settings = SyncReplicaSettings(
        pullPageSize: random.pick(small), maximumPushEntries: limits.maximumEntriesPerPush,
        maximumPushBytes: 1 << 20)
    return (limits, settings)
}

extension SyncModelPropertyTests.Store {
    /// Whether a model test named `test` can run on this store: PostgreSQL needs the `Hub` trait
    /// and STRATA_POSTGRES_URL; when it cannot, says so.
    func isAvailable(to test: String) -> Bool {
        guard self == .postgres else { return true }
        #if Hub
        guard ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil else {
            print("\(test) on PostgreSQL skipped: STRATA_POSTGRES_URL is unset (eval \"$(.ci/postgres.sh start)\")")
            return false
        }
        return true
        #else
        print("\(test) on PostgreSQL skipped: built without the Hub trait")
        return false
        #endif
    }
}
