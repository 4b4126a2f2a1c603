#if Hub
import Foundation
@testable import StrataSync
import StrataSyncHub
import StrataTestSupport
import Testing

@Suite struct HTTPTransportCancelTests {
    /// Requests cancelled around the moment their answers arrive all end, answered or cancelled:
    /// on Linux, Foundation's `data(for:)` deadlocked when the cancel met the answer (a stopped
    /// sync loop hung its process). Seeded delays; `STRATA_PROPERTY_SEED` replays a run.
    @Test func requestsCancelledAsTheirAnswersArriveAllEnd() async throws {
        let inFolder = try folderHub(space: "S", schema: "CREATE TABLE t(id TEXT PRIMARY KEY, v)")
        let hub = inFolder.hub
        let seed = PropertyCheck.baseSeed
        try await serveLive(buildSyncHubRouter(hub: hub)) { port async throws in
            var oneAttempt = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!)
            oneAttempt.attempts = 1
            let transport = oneAttempt
            let request = SyncSnapshotRequest(
                space: "S", replicaID: "r", tables: ["t"],
                schemaFingerprint: try hub.withSpace("S") { try SchemaFingerprint.of(tables: ["t"], in: $0) })
            // How long one answer takes here, so the cancels land on both sides of it.
            let start = ContinuousClock.now
            _ = try await transport.snapshot(request)
            let answerMicroseconds = max(200, Int((ContinuousClock.now - start) / .microseconds(1)))
            var generator = SeededRandom(seed: seed)
            var answered = 0, cancelled = 0
            for _ in 0..<20 {
                let delays = (0..<25).map { _ in Int.random(in: 0...(2 * answerMicroseconds), using: &generator) }
                let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for delay in delays {
                        group.addTask {
                            let call = Task { try await transport.snapshot(request) }
                            try await Task.sleep(for: .microseconds(delay))
                            call.cancel()
                            switch await call.result {
                            case .success: return true
                            case .failure(let error):
                                #expect(error is CancellationError, "seed \(seed): \(error)")
                                return false
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                answered += outcomes.filter { $0 }.count
                cancelled += outcomes.filter { !$0 }.count
            }
            #expect(answered + cancelled == 500, "seed \(seed)")
            // The transport still answers afterwards.
            _ = try await transport.snapshot(request)
        }
    }
}
#endif
