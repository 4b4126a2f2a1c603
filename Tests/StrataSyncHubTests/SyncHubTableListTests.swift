#if Hub
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import Strata
@testable import StrataSync
import StrataSyncHub
import Testing

/// Issue 64, item 11 over HTTP: a bad table list answers 4xx with the hub's JSON, never an
/// empty 500.
@Suite struct SyncHubTableListTests {
    static let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v); CREATE TABLE counter(id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER)"

    @Test func badTableListsAnswer4xxWithTheHubsWords() async throws {
        // The folder (removed when released) lives as long as the hub.
        let inFolder = try folderHub(space: "S", schema: Self.schema)
        let hub = inFolder.hub
        try await serveLive(buildSyncHubRouter(hub: hub)) { port async throws in
            for tables in ["t,t", "t,T", "sqlite_sequence", "_strata_sync_log", "nope", "t,,t", ""] {
                let list = tables.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                let fingerprint = (try? hub.withSpace("S") { try SchemaFingerprint.of(tables: list, in: $0) }) ?? "x"
                for route in ["snapshot", "pull"] {
                    var components = URLComponents(string: "http://127.0.0.1:\(port)/spaces/S/\(route)")!
                    components.queryItems = [
                        .init(name: "replica", value: "r"), .init(name: "tables", value: tables),
                        .init(name: "fingerprint", value: fingerprint), .init(name: "after", value: "0")
                    ]
                    let (data, response) = try await URLSession.shared.data(from: components.url!)
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    let answer = try? JSONDecoder().decode(SyncErrorAnswer.self, from: data)
                    if tables.isEmpty {
                        // No tables: nothing wrong in the list (an empty snapshot, an empty page).
                        #expect(status == 200 || (400..<500).contains(status), "\(route) of \(tables.debugDescription): \(status)")
                        continue
                    }
                    #expect((400..<500).contains(status), "\(route) of \(tables): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
                    #expect(answer != nil, "\(route) of \(tables): the body is \(String(decoding: data, as: UTF8.self).debugDescription)")
                }
            }
            // The duplicate, by name, through the transport.
            var transport = HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)")!)
            transport.attempts = 1
            let fingerprint = try hub.withSpace("S") { try SchemaFingerprint.of(tables: ["t", "t"], in: $0) }
            await #expect(throws: SyncError.refused("the list of tables names t twice")) {
                _ = try await transport.snapshot(SyncSnapshotRequest(space: "S", replicaID: "r", tables: ["t", "t"], schemaFingerprint: fingerprint))
            }
            // A failure the hub did not foresee (its log gone from under it) still answers in words.
            try hub.withSpace("S") { try $0.execute("DROP TABLE _strata_sync_log") }
            let pullFingerprint = try hub.withSpace("S") { try SchemaFingerprint.of(tables: ["t"], in: $0) }
            let url = URL(string: "http://127.0.0.1:\(port)/spaces/S/pull?replica=r&tables=t&after=0&fingerprint=\(pullFingerprint)")!
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 500)
            let answer = try JSONDecoder().decode(SyncErrorAnswer.self, from: data)
            #expect(answer.message?.contains("the hub failed") == true, "\(answer)")
        }
    }
}
#endif
