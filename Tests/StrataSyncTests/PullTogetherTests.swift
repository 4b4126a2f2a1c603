import Foundation
import Strata
@testable import StrataSync
import StrataTestSupport
import Testing

/// Issue 66, item 3: the pulls one commit wakes are answered together, from one read of the
/// space, and each gets exactly what it would get alone. Serialized: each test keeps one thread
/// of the task pool waiting on purpose, and two at once would hold both of this machine's.
@Suite(.serialized) struct PullTogetherTests {
    /// What a pull answered, comparable: its response's JSON, or its error's description.
    static func outcome(_ result: Result<SyncPullResponse, any Error>) throws -> String {
        switch result {
        case .success(let response):
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: try encoder.encode(response), as: UTF8.self)
        case .failure(let error): return "error: \(error)"
        }
    }

    /// The result of an async throwing body.
    static func result(_ body: () async throws -> SyncPullResponse) async -> Result<SyncPullResponse, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// `count` pulls with cursors all over the log, page sizes, a wrong schema and a foreign
    /// chain among them, queued while the space's connection is held, then let go.
    static func pullTogether(count: Int, expectingReads reads: Int) async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        for index in 0..<30 {
            try await sync.replica.write { try $0.run("INSERT INTO t(id, v) VALUES (?, ?)", "row-\(index)", index) }
        }
        try await sync.replica.push()
        let fingerprint = try sync.hub.expectedFingerprint()
        var requests: [SyncPullRequest] = []
        for index in 0..<count {
            let schema = index % 13 == 7 ? "another schema" : fingerprint
            let chain: Int64? = index % 11 == 4 ? 12_345 : nil
            let limit = [1, 5, 500][index % 3]
            requests.append(
                SyncPullRequest(
                    space: "s", replicaID: "p\(index)", tables: ["t"], schemaFingerprint: schema,
                    after: Int64(index % 32), limit: limit, afterChain: chain))
        }
        let alone = try requests.map { request in try outcome(Result { try sync.hub.pull(request) }) }
        #expect(alone.contains { $0.hasPrefix("error:") } && alone.contains { $0.contains("\"hubRolledBack\":true") })

        let begins = Locked(0)
        let answers = Locked<[Int: Result<SyncPullResponse, any Error>]>([:])
        // A thread, not a task, holds the space's connection: the first pull waits for it on a
        // thread of the task pool, and the others queue from the pool's other thread.
        let held = Locked(false), release = DispatchSemaphore(value: 0)
        Thread {
            try? sync.hub.withSpace("s") { connection in
                connection.trace { sql in
                    if sql.uppercased().hasPrefix("BEGIN") { begins.withLock { $0 += 1 } }
                }
                held.withLock { $0 = true }
                release.wait()
            }
        }.start()
        while !held.current { try await Task.sleep(for: .milliseconds(1)) }
        let tasks = requests.enumerated().map { index, request in
            Task {
                let answer = await Self.result { try await sync.hub.pullTogether(request, caller: .trusted) }
                answers.withLock { $0[index] = answer }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, (sync.hub.pulls.queuedCount("s") ?? 0) < count - 1 {
            try await Task.sleep(for: .milliseconds(1))
        }
        release.signal()
        for task in tasks { await task.value }
        try sync.hub.withSpace("s") { $0.trace(nil) }
        let answered = answers.current
        var together: [String] = []
        for index in 0..<count { together.append(try outcome(try #require(answered[index], "pull \(index) was answered"))) }
        for index in 0..<count {
            #expect(together[index] == alone[index], "pull \(index) (after \(requests[index].after), limit \(requests[index].limit))")
        }
        #expect(begins.current == reads, "\(count) pulls: the first alone, the rest \(SyncHub.largestPullBatch) to a read")
        // The server's last look for more (after it answered the last batch) may still be on its
        // way: it finds none and lets the space go.
        let idle = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < idle, sync.hub.pulls.queuedCount("s") != nil { try await Task.sleep(for: .milliseconds(1)) }
        #expect(sync.hub.pulls.queuedCount("s") == nil, "no pull is left queued")
    }

    @Test func pullsQueuedTogetherAreAnsweredFromOneReadAsEachWouldBeAlone() async throws {
        try await Self.pullTogether(count: 60, expectingReads: 2)
    }

    @Test func moreThanOneReadTakesAreAnsweredInReadsOfAtMostTheLargestBatch() async throws {
        try await Self.pullTogether(count: SyncHub.largestPullBatch + 40, expectingReads: 3)
    }

    /// The long polls registering together read the space's version once: 100 reads queued
    /// behind a held connection cost two reads' statements (the first alone, then the rest).
    @Test func versionReadsQueuedTogetherShareOneRead() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        try await sync.replica.write { try $0.run("INSERT INTO t(id, v) VALUES ('a', 1)") }
        try await sync.replica.push()
        let statements = Locked(0)
        try sync.hub.withSpace("s") { connection in connection.trace { _ in statements.withLock { $0 += 1 } } }
        _ = try sync.hub.version(ofSpace: "s")
        let perRead = statements.current
        try #require(perRead > 0)
        statements.withLock { $0 = 0 }
        let held = Locked(false), release = DispatchSemaphore(value: 0)
        Thread {
            try? sync.hub.withSpace("s") { _ in
                held.withLock { $0 = true }
                release.wait()
            }
        }.start()
        while !held.current { try await Task.sleep(for: .milliseconds(1)) }
        let reads = (0..<100).map { _ in Task { try await sync.hub.versionTogether(ofSpace: "s") } }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, (sync.hub.versionReads.queuedCount("s") ?? 0) < 99 { try await Task.sleep(for: .milliseconds(1)) }
        release.signal()
        var versions: [Int64] = []
        for read in reads { versions.append(try await read.value) }
        #expect(versions == Array(repeating: 1, count: 100))
        #expect(statements.current == 2 * perRead, "100 reads queued together: \(statements.current) statements, \(perRead) a read")
        try sync.hub.withSpace("s") { $0.trace(nil) }
    }

    /// A pull on a space that does not exist, or with a name the hub refuses, hears so alone.
    @Test func aPullOnAMissingSpaceFailsWithoutQueueingAnything() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        for space in ["nope", "../x", ""] {
            let request = SyncPullRequest(space: space, replicaID: "p", tables: ["t"], schemaFingerprint: "", after: 0, limit: 10)
            let alone = try Self.outcome(Result { try sync.hub.pull(request) })
            let together = try Self.outcome(await Self.result { try await sync.hub.pullTogether(request, caller: .trusted) })
            #expect(together == alone)
            #expect(together.hasPrefix("error:"))
        }
        #expect(sync.hub.pulls.isIdle)
    }
}

/// Found by review: a long poll cancelled before its wait was registered slept out its timeout.
@Suite struct CancelledPollTests {
    @Test func aPollCancelledBeforeItWaitsReturnsAtOnce() async throws {
        let folder = try SyncFolder()
        let sync = try OneTableSync(in: folder)
        let start = ContinuousClock.now
        let poll = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await sync.hub.waitForVersion(ofSpace: "s", after: 0, timeout: .seconds(120))
        }
        try await poll.value
        // Well under the timeout: a busy suite can keep the task waiting for a thread for a while.
        #expect(ContinuousClock.now - start < .seconds(90))
    }

    /// Requests queued behind the one being served are served even while every thread of
    /// Swift's cooperative pool is blocked (sync pushes waiting for a space, other blocking work
    /// of the process): they were served by a task on that pool, so a saturated pool left them,
    /// and the replicas' sync loops waiting on them, stalled until the pool freed a thread.
    @Test func queuedRequestsAreServedWhileTheTaskPoolIsBlocked() throws {
        let gathering = Gathering<Int>(largest: 8)
        let served = Locked<[[Int]]>([])
        let firstServing = DispatchSemaphore(value: 0), releaseFirst = DispatchSemaphore(value: 0)
        let secondServed = DispatchSemaphore(value: 0)
        let serve: @Sendable ([Int]) -> Void = { batch in
            served.withLock { $0.append(batch) }
            if batch == [1] {
                firstServing.signal()
                releaseFirst.wait()
            } else {
                secondServed.signal()
            }
        }
        // Every thread of the pool blocked until the end of the test (the pool has one a core).
        let pool = DispatchSemaphore(value: 0)
        let width = ProcessInfo.processInfo.activeProcessorCount
        let blocked = DispatchSemaphore(value: 0)
        for _ in 0..<width {
            Task.detached {
                blocked.signal()
                pool.wait()
            }
        }
        defer { for _ in 0..<width { pool.signal() } }
        // The callers are plain threads (no thread of the pool is free for them).
        Thread.detachNewThread { gathering.join("s", 1, serve: serve) }
        #expect(firstServing.wait(timeout: .now() + 10) == .success)
        Thread.detachNewThread { gathering.join("s", 2, serve: serve) }
        // Queued behind the first: wait until it is, then let the first finish.
        let deadline = Date().addingTimeInterval(10)
        while gathering.queuedCount("s") != 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(gathering.queuedCount("s") == 1)
        // The pool's threads are taken by now: each blocked task signalled on its thread (this
        // test's own thread, when it is one of the pool's, is blocked here too).
        for _ in 0..<(width - 1) { _ = blocked.wait(timeout: .now() + 10) }
        releaseFirst.signal()
        #expect(secondServed.wait(timeout: .now() + 10) == .success)
        #expect(served.withLock { $0 } == [[1], [2]])
    }
}
