import Foundation
import Testing
import StrataORM

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
final class LockedCounts: @unchecked Sendable {
    // @unchecked Sendable: `storage` is only reached under `lock`.
    private let lock = NSLock()
    private var storage: [Int] = []

    func append(_ value: Int) { lock.withLock { storage.append(value) } }
    var values: [Int] { lock.withLock { storage } }

    // Generous: beside the whole suite on 2 cores the cooperative pool can be busy for seconds;
    // a missed change still fails, only later.
    func wait(seconds: Double = 60, until condition: ([Int]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(values) {
            guard Date() < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
