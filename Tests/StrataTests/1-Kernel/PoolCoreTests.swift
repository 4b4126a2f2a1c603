import Foundation
import Testing
@testable import Strata

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
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                let queue = try core.checkOut {
                    opened.withLock { $0 += 1 }
                    return try Self.openQueue(path)
                }
                seen.withLock { _ = $0.insert(ObjectIdentifier(queue)) }
                try queue.execute { connection in _ = try connection.query("SELECT 1") as Int? }
                core.checkIn(queue)
            } catch {
                Issue.record("\(error)")
            }
        }
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
}
