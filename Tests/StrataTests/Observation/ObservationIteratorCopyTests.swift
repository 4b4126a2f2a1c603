import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// Two copies of one observation iterator share its observer, which has one waiting slot: a
/// second `next()` while the first waits is refused with a named error, and the first still
/// gets its value (it was left suspended for ever when the second took the slot).
@Suite struct ObservationIteratorCopyTests {
    /// One copy of an iterator, carried into a task.
    // @unchecked Sendable: each copy is used by one task at a time (the test's point is that the
    // copies share their observer, not this box).
    final class IteratorCopy<Iterator>: @unchecked Sendable {
        var iterator: Iterator
        init(_ iterator: Iterator) { self.iterator = iterator }
    }

    @Test func aSecondWaiterOnACopyIsRefusedAndTheFirstStillGetsItsValue() async throws {
        let directory = try TemporaryDirectory()
        let database = try await ObservationTests.makeDatabase(
            directory, schema: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t(v) VALUES(0)")
        var iterator = database.observe { try $0.query("SELECT max(v) FROM t") as Int? ?? -1 }.makeAsyncIterator()
        #expect(try await iterator.next() == 0, "the first value is the current one")
        let first = IteratorCopy(iterator), copy = IteratorCopy(iterator)
        let waiting = Task { () async throws -> Int? in try await first.iterator.next() }
        // Let the first copy reach its wait (it holds the slot once it waits for a commit).
        try await Task.sleep(for: .milliseconds(300))
        await #expect(throws: ObservationError.concurrentIteration) { _ = try await copy.iterator.next() }
        try await database.write { try $0.run("INSERT INTO t(v) VALUES(?)", 7) }
        let value = try await withThrowingTaskGroup(of: Int??.self) { group in
            group.addTask { try await waiting.value }
            group.addTask {
                try await Task.sleep(for: .seconds(30)); return .some(nil)
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(value == .some(7), "the first waiter was resumed by the commit, not left suspended")
        waiting.cancel()
    }

    @Test func theRefusalSaysWhatToDo() {
        let message = String(describing: ObservationError.concurrentIteration)
        #expect(message.contains("two tasks") && message.contains("makeAsyncIterator"))
    }
}
