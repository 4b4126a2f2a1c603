import Foundation
import StrataSQift
import Testing
import Strata

// Observation as Swift 5 client code writes it: the spellings the README documents.
@Suite struct ObservationSwift5Tests {
    final class Counts: @unchecked Sendable {
        // @unchecked Sendable: `values` is only reached under `lock`.
        private let lock = NSLock()
        private var values: [Int] = []
        func append(_ value: Int) { lock.lock(); values.append(value); lock.unlock() }
        var current: [Int] { lock.lock(); defer { lock.unlock() }; return values }
    }

    @Test func asyncSequenceAndTokenForms() async throws {
        let fixture = try onDiskDatabase()
        let database = fixture.database
        try database.executeWrite { db in
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("CREATE TABLE t(v INTEGER)")
        }

        var seen: [Int] = []
        let writer = Task {
            try await Task.sleep(nanoseconds: 50_000_000)
            try await database.write { try $0.run("INSERT INTO t VALUES(1)") }
        }
        for try await count in database.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) {
            seen.append(count)
            if count == 1 { break }
        }
        try await writer.value
        #expect(seen == [0, 1])

        let counts = Counts()
        let token = database.observe(externalChanges: .milliseconds(100), { try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }) { result in
            if case .success(let count) = result { counts.append(count) }
        }
        let polling = database.observe(externalChanges: .milliseconds(100)) { db in try db.query("SELECT count(*) FROM t") as Int? ?? 0 }
        var iterator = polling.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        let deadline = Date().addingTimeInterval(60)
        while counts.current.isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(counts.current == [1])
        token.cancel()

        let queue = database.writerConnectionQueue
        var queueIterator = queue.observe({ try $0.query("SELECT count(*) FROM t") as Int? ?? 0 }).makeAsyncIterator()
        #expect(try await queueIterator.next() == 1)
    }
}
