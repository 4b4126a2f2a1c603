import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Observations tied to a scope or a collection, so the compiler's `_ =` fix-it cannot end one
/// by mistake.
@Suite struct ObservationScopeTests {
    private func database() throws -> (TemporaryDirectory, Database) {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("scope.sqlite"))
        try database.executeWrite { try $0.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)") }
        return (directory, database)
    }

    @Test func withObservationDeliversWhileTheBodyRunsAndEndsAfter() async throws {
        let (directory, database) = try database()
        _ = directory
        let counts = Locked<[Int]>([])
        let returned = try await database.withObservation(
            { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 },
            onChange: { result in
                if case .success(let count) = result { counts.withLock { $0.append(count) } }
            }
        ) { () async throws -> String in
            #expect(try await eventually { database.activeObservationCount == 1 })
            try database.executeWrite { try $0.run("INSERT INTO t DEFAULT VALUES") }
            let deadline = Date().addingTimeInterval(60)
            while !counts.current.contains(1), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            return "done"
        }
        #expect(returned == "done")
        #expect(counts.current.last == 1)
        #expect(try await eventually { database.activeObservationCount == 0 })
        // Ended: a later commit is not delivered.
        let delivered = counts.current.count
        try database.executeWrite { try $0.run("INSERT INTO t DEFAULT VALUES") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(counts.current.count == delivered)
    }

    @Test func withObservationEndsWhenTheBodyThrows() async throws {
        let (directory, database) = try database()
        _ = directory
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await database.withObservation({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }, onChange: { _ in }) {
                throw Stop()
            }
        }
        #expect(try await eventually { database.activeObservationCount == 0 })
    }

    @Test func tokensStoredInASetLiveUntilRemoved() async throws {
        let (directory, database) = try database()
        _ = directory
        var tokens = Set<ObservationToken>()
        database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }, onChange: { _ in }).store(in: &tokens)
        var list: [ObservationToken] = []
        database.observe({ try $0.query("SELECT 1") as Int? ?? 0 }, onChange: { _ in }).store(in: &list)
        #expect(tokens.count == 1 && list.count == 1)
        #expect(try await eventually { database.activeObservationCount == 2 })
        tokens.removeAll()
        list.removeAll()
        #expect(try await eventually { database.activeObservationCount == 0 })
    }
}
