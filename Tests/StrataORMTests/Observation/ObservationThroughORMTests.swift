import Foundation
import Testing
import StrataORM
import StrataTestSupport

/// The ORM writes through Strata's statements, so an observation of its connection sees them.
@Suite struct ObservationThroughORMTests {
    @Test func ormWritesAreObserved() async throws {
        let directory = try TemporaryDirectory()
        let storage = try Storage(filename: directory.path("orm.sqlite"), personTable())
        _ = try storage.syncSchema(preserve: true)
        let queue = ConnectionQueue(connection: storage.connection)
        let counts = LockedCounts()
        let task = Task {
            for try await count in queue.observe({ try $0.query("SELECT count(*) FROM people") as Int? ?? 0 }) {
                counts.append(count)
            }
        }
        defer { task.cancel() }
        try await counts.wait { $0 == [0] }
        // The ORM runs on the queue's connection, so it runs on the queue.
        let id = try queue.execute { _ in try storage.insert(Person(id: 0, name: "Ann", nickname: nil, age: 30)) }
        try await counts.wait { $0.last == 1 }
        try queue.execute { _ in try storage.delete(Person(id: Int(id), name: "Ann", nickname: nil, age: 30)) }
        try await counts.wait { $0.last == 0 }
        #expect(counts.values == [0, 1, 0])
    }
}

/// Values delivered to a test, read from another task.
final class LockedCounts: Sendable {
    private let received = AwaitedValues<Int>()

    func append(_ value: Int) { received.append(value) }
    var values: [Int] { received.values }

    /// Waits until `condition` holds, woken by each value. The bound is for a value that never
    /// comes, not a measure of speed: beside the whole suite on a loaded two-core machine the
    /// cooperative pool can be busy for tens of seconds, and a late value still counts.
    func wait(seconds: Double = 180, until condition: ([Int]) -> Bool) async throws {
        guard await received.wait(atMost: .seconds(seconds), until: condition) else {
            throw TimedOut(values: values)
        }
    }

    struct TimedOut: Swift.Error, CustomStringConvertible {
        let values: [Int]
        var description: String { "timed out; values so far: \(values)" }
    }
}
