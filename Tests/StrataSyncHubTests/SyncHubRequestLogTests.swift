#if Hub
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import JWTKit
import Logging
import MetricsTestKit
import Strata
import StrataSync
import StrataSyncHub
import Testing

/// Issue 66, item 5: one log line per request, with its status, the JWT's user, the replica, the
/// space, the entries and a refusal's reason, never the token nor the query string's values;
/// and the metrics beside it.
@Suite struct SyncHubRequestLogTests {
    @Test func eachRequestIsOneLineNamingWhoAndWhyAndNeverTheToken() async throws {
        let (folder, hub) = try folderHub(schema: SyncHubTokenTests.schema)
        let keys = await hmacKeys("a-secret-for-the-request-log-of-32-bytes")
        let logs = InMemoryLogHandler()
        let metrics = TestMetrics()
        let router = buildSyncHubRouter(hub: hub, requestLogLevel: .info, metricsFactory: metrics, authentication: .jwt(keys))
        let good = try await SyncHubTokenTests.token(keys)
        let readOnly = try await SyncHubTokenTests.token(keys, spaces: ["team": "r"])
        let expired = try await SyncHubTokenTests.token(keys, expires: Date().addingTimeInterval(-60))
        try await serveLive(router, logger: Logger(label: "hub") { _ in logs }) { port async throws in
            #expect(try await SyncHubTokenTests.outcome(folder, port: port, token: good) == nil)
            #expect(try await SyncHubTokenTests.outcome(folder, port: port, token: readOnly) != nil)
            #expect(try await SyncHubTokenTests.outcome(folder, port: port, token: expired) != nil)
        }
        let lines = logs.entries.filter { $0.metadata["status"] != nil }
        func value(_ entry: InMemoryLogHandler.Entry, _ key: String) -> String? { entry.metadata[key].map { "\($0)" } }
        let push = try #require(
            lines.first { "\($0.message)".hasPrefix("POST /spaces/team/push") && value($0, "status") == "200" },
            "\(lines)")
        #expect(value(push, "user") == "ada")
        #expect(value(push, "space") == "team")
        #expect(value(push, "replica")?.hasPrefix("phone") == true)
        #expect(value(push, "entries") == "1")
        #expect(lines.contains { "\($0.message)".hasPrefix("GET /spaces/team/pull 200") && value($0, "user") == "ada" })
        let forbidden = try #require(lines.first { value($0, "status") == "403" }, "\(lines)")
        #expect(value(forbidden, "reason") == "readOnly")
        #expect(value(forbidden, "user") == "ada", "a refused request names its user too")
        #expect(value(forbidden, "detail")?.contains("may read team, not write it") == true)
        let unauthorized = try #require(lines.first { value($0, "status") == "401" }, "\(lines)")
        #expect(value(unauthorized, "reason") == "expired")
        // Never a token, never the query string's values.
        for entry in logs.entries {
            let text = "\(entry.message) \(entry.metadata)"
            for token in [good, readOnly, expired] { #expect(!text.contains(token)) }
            #expect(!text.contains("?") && !text.contains("fingerprint="), "\(text)")
        }
        #expect(try metrics.expectCounter("strata_sync_hub_pushes", [("space", "team")]).totalValue >= 1)
        #expect(try metrics.expectCounter("strata_sync_hub_pulls", [("space", "team")]).totalValue >= 1)
        #expect(try metrics.expectCounter("strata_sync_hub_refusals", [("reason", "readOnly")]).totalValue >= 1)
        #expect(try metrics.expectCounter("strata_sync_hub_refusals", [("reason", "expired")]).totalValue >= 1)
        #expect(try metrics.expectTimer("strata_sync_hub_apply_duration", [("space", "team")]).values.count >= 1)
    }
}
#endif
