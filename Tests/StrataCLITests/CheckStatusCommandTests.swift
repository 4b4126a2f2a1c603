#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import Strata
import Testing

/// `strata check --status`: limits, the connection's counters and the process's, after the checks.
@Suite struct CheckStatusCommandTests {
    @Test func checkWithStatusReportsLimitsAndCounters() throws {
        let sandbox = try Sandbox()
        try sandbox.makeBigDatabase("big.db", rows: 100)
        let plain = try sandbox.strata("check", "big.db")
        let result = try sandbox.strata("check", "big.db", "--status")
        #expect(result.status == 0, "\(result.stderr)")
        // The usual report comes first, unchanged.
        #expect(result.stdout.hasPrefix(plain.stdout))
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("limits:"))
        #expect(lines.contains("connection status:"))
        #expect(lines.contains("process status:"))
        let limits = try #require(lines.firstIndex(of: "limits:"))
        #expect(lines[limits + 1].hasPrefix("  length              "))
        #expect(lines.contains { $0.hasPrefix("  sql_length          ") })
        #expect(lines.contains { $0.hasPrefix("  worker_threads      ") })
        let cacheUsed = try #require(lines.first { $0.hasPrefix("  cache used          ") })
        #expect(!cacheUsed.hasSuffix(" 0 bytes"))
        let memory = try #require(lines.first { $0.hasPrefix("  memory used         ") })
        #expect(memory.contains("highwater"))
        // Without the flag nothing more is printed.
        #expect(!plain.stdout.contains("limits:"))
    }
}
#endif
