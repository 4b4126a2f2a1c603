import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// The kernel's one pool state machine, driven directly with real connections.
@Suite struct PoolCoreTests {
    static func openQueue(_ path: String) throws -> ConnectionQueue {
        ConnectionQueue(connection: try Connection(storageLocation: .onDisk(path)))
    }

    @Test func moreSynchronousCallersThanSlotsAllFinish() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: 2)
        let opened = Locked(0)
        let seen = Locked(Set<ObjectIdentifier>())
        let finished = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                let queue = try core.checkOut {
                    opened.withLock { $0 += 1 }
                    return try Self.openQueue(path)
                }
                seen.withLock { _ = $0.insert(ObjectIdentifier(queue)) }
                try queue.execute { connection in _ = try connection.query("SELECT 1") as Int? }
                core.checkIn(queue)
                finished.withLock { $0 += 1 }
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(finished.current == 16)
        #expect(opened.current <= 2)
        #expect(seen.current.count <= 2)
        #expect(core.checkedOutElements.isEmpty)
        #expect(core.idleElements.count == opened.current)
    }

    @Test func asyncWaitersAreServedInOrder() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: 1)
        let first = try await core.checkOut { try Self.openQueue(path) }
        let order = Locked<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<3 {
                group.addTask {
                    let queue = try await core.checkOut { try Self.openQueue(path) }
                    order.withLock { $0.append(index) }
                    core.checkIn(queue)
                }
                // Let each task reach the queue before the next one starts.
                while core.waiterCountForTesting < index + 1 { await Task.yield() }
            }
            #expect(core.checkIn(first) == .handedOver)
            try await group.waitForAll()
        }
        #expect(order.current == [0, 1, 2])
        #expect(core.idleElements.count == 1)
    }

    @Test func aCancelledWaiterLeavesTheLineAndTheNextOneIsServed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: 1)
        let first = try await core.checkOut { try Self.openQueue(path) }
        let cancelled = Task { try await core.checkOut { try Self.openQueue(path) } }
        while core.waiterCountForTesting < 1 { await Task.yield() }
        let next = Task {
            let queue = try await core.checkOut { try Self.openQueue(path) }
            core.checkIn(queue)
            return ObjectIdentifier(queue)
        }
        while core.waiterCountForTesting < 2 { await Task.yield() }

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(core.waiterCountForTesting == 1)
        // The element skips the cancelled caller and reaches the one behind it.
        #expect(core.checkIn(first) == .handedOver)
        #expect(try await next.value == ObjectIdentifier(first))
        #expect(core.waiterCountForTesting == 0)
        #expect(core.checkedOutElements.isEmpty)
        #expect(core.idleElements.map(ObjectIdentifier.init) == [ObjectIdentifier(first)])
    }

    @Test func aTaskCancelledBeforeWaitingNeverJoinsTheLine() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: 1)
        let first = try await core.checkOut { try Self.openQueue(path) }
        let task = Task {
            // Cancelled before it reaches a full pool: it must throw, not wait.
            withUnsafeCurrentTask { $0?.cancel() }
            return try await core.checkOut { try Self.openQueue(path) }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(core.waiterCountForTesting == 0)
        #expect(core.checkIn(first) != .handedOver)
        // A free slot is granted even to a cancelled task: cancellation only ends a wait.
        let again = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await core.checkOut { try Self.openQueue(path) }
        }
        let queue = try await again.value
        #expect(queue === first)
        core.checkIn(queue)
    }

    @Test func aCancelledWaiterThatKeepsWaitingIsServed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: 1)
        let first = try await core.checkOut { try Self.openQueue(path) }
        let waiting = Task { try await core.checkOut(whenCancelled: .keepWaiting) { try Self.openQueue(path) } }
        while core.waiterCountForTesting < 1 { await Task.yield() }
        waiting.cancel()
        #expect(core.waiterCountForTesting == 1)
        #expect(core.checkIn(first) == .handedOver)
        #expect(try await waiting.value === first)
        #expect(core.isCheckedOut(first))
    }

    @Test func aFailedOpenFreesTheSlotForTheNextCaller() throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: 1)
        #expect(throws: Refused.self) { try core.checkOut { throw Refused() } }
        let queue = try core.checkOut { try Self.openQueue(path) }
        #expect(core.isCheckedOut(queue))
    }

    @Test func removeAndDrainForgetElements() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<ConnectionQueue>(maximum: nil)
        let queues = try (0..<3).map { _ in try core.checkOut { try Self.openQueue(path) } }
        #expect(core.remove(queues[0]))
        #expect(!core.remove(queues[0]))
        #expect(core.checkIn(queues[0]) == .notOurs)
        guard case .idle(let generation) = core.checkIn(queues[1]) else { Issue.record("expected idle"); return }
        core.checkIn(queues[2])
        // A return since `generation` means activity: nothing is drained for that moment.
        #expect(core.drainIdle(ifStillAt: generation, keeping: 0).drained.isEmpty)
        #expect(core.drainIdle(keeping: 1).count == 1)
        #expect(core.idleElements.count == 1)
    }

    @Test func removedAndDrainedConnectionsAreClosed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let core = PoolCore<Connection>(maximum: nil)
        weak var removed: Connection?
        weak var drained: Connection?
        weak var kept: Connection?
        try {
            let connections = try (0..<3).map { _ in try core.checkOut { try Connection(storageLocation: .onDisk(path)) } }
            (removed, drained, kept) = (connections[0], connections[1], connections[2])
            #expect(core.remove(connections[0]))
            core.checkIn(connections[1])
            core.checkIn(connections[2])
            // The oldest idle element goes first.
            #expect(core.drainIdle(keeping: 1).map(ObjectIdentifier.init) == [ObjectIdentifier(connections[1])])
        }()
        // Nothing in the pool holds them any more, so their handles were closed on release.
        #expect(removed == nil)
        #expect(drained == nil)
        #expect(kept != nil)
        #expect(core.drainIdle().count == 1)
        #expect(kept == nil)
        #expect(core.idleElements.isEmpty && core.checkedOutElements.isEmpty)
    }
}
