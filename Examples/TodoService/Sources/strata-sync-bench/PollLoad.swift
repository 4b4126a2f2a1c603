// Long polls by the thousand (`strata-sync-bench polls`): simulated replicas that only wait for
// changes, against one `strata-sync-hub` process. Each poller is one keep-alive HTTP/1.1
// connection (SwiftNIO, no URLSession: it caps connections per host) sending the pull route's
// long poll again as soon as it is answered, as a replica's sync loop does.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Strata
import StrataSync
import Synchronization

#if !canImport(Darwin)
/// Raises this process's open-file limit to its hard limit (the hub processes it starts inherit
/// it): each poll is a socket at both ends.
func raiseOpenFileLimit(atLeast wanted: Int) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
    if limit.rlim_cur < rlim_t(wanted) {
        limit.rlim_cur = min(limit.rlim_max, max(rlim_t(wanted), limit.rlim_cur))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(limit.rlim_cur)
}

/// A process's resident memory, in KiB (`VmRSS` of /proc/PID/status).
func residentKiB(of pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return line.split(separator: " ").compactMap { Int($0) }.first
    }
    return nil
}

typealias PollChannel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

/// One replica that only pulls: a connection and the version it has seen.
struct Poller {
    let channel: PollChannel
    let replicaID: String

    static func connect(group: any EventLoopGroup, port: Int, replicaID: String) async throws -> Poller {
        let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                return try PollChannel(wrappingChannelSynchronously: channel)
            }
        }
        return Poller(channel: channel, replicaID: replicaID)
    }
}

/// A stop signal the pollers read.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    var isRaised: Bool { raised.load(ordering: .relaxed) }
    func raise() { raised.store(true, ordering: .relaxed) }
}

/// When each writer's push was sent and answered, by log entry (replica and sequence).
final class PushTimes: Sendable {
    let times = Mutex<[String: (sent: Int64, answered: Int64)]>([:])
}

/// What the pollers saw: when each log entry (replica and sequence) reached each poller.
final class PollObservations: Sendable {
    let arrivals = Mutex<[String: [Int64]]>([:])

    /// Notes that `entries` reached a poller at `arrived`.
    func record(_ entries: [SyncLogEntry], arrived: Int64) {
        guard !entries.isEmpty else { return }
        arrivals.withLock { arrivals in
            for entry in entries { arrivals["\(entry.replicaID) \(entry.sequence)", default: []].append(arrived) }
        }
    }
    let answered = Atomic<Int>(0)
    let refused = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
}

extension SyncBench {
    /// The pull route's long poll for `replicaID` after `after`, waiting up to `waitMilliseconds`.
    static func pollURI(space: String, replicaID: String, fingerprint: String, after: Int64, waitMilliseconds: Int, streams: Bool = false) -> String {
        // Everything but RFC 3986's unreserved characters escaped (a fingerprint's `+` and `/`).
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        func escaped(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
        let query = [
            ("replica", replicaID), ("tables", "item"), ("fingerprint", fingerprint), ("after", String(after)), ("wait", String(waitMilliseconds))
        ].map { "\($0.0)=\(escaped($0.1))" }.joined(separator: "&")
        return "/spaces/\(escaped(space))/\(streams ? "stream" : "pull")?\(query)"
    }

    /// The sequence of the newest write in `replica`'s outbox: the log entry a poller receives
    /// for it carries the same, with the replica's `hubReplicaID`.
    static func newestSequence(_ replica: SyncReplica) async throws -> Int64 {
        try await replica.database.read { try $0.query("SELECT max(sequence) FROM _strata_sync_outbox") as Int64? } ?? 0
    }

    /// The hub's version now.
    static func hubVersion(space: String, port: Int, fingerprint: String) async throws -> Int64 {
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw SyncError.refused("no URL for port \(port)") }
        return try await HTTPSyncTransport(url: url).pull(
            SyncPullRequest(space: space, replicaID: "version", tables: ["item"], schemaFingerprint: fingerprint, after: 0, limit: 1)
        ).hubVersion
    }

    /// Long polls `poller` until `stop` reports true: each answer's entries are recorded with
    /// the time they arrived, and the next poll asks for what comes after them.
    static func pollLoop(
        _ poller: Poller, space: String, fingerprint: String, from version: Int64, waitMilliseconds: Int,
        observations: PollObservations, streams: Bool = false, stop: @escaping @Sendable () -> Bool
    ) async {
        if streams {
            await streamLoop(poller, space: space, fingerprint: fingerprint, from: version, observations: observations, stop: stop)
            return
        }
        do {
            try await poller.channel.executeThenClose { inbound, outbound in
                var responses = inbound.makeAsyncIterator()
                var after = version
                while !stop() {
                    let uri = pollURI(space: space, replicaID: poller.replicaID, fingerprint: fingerprint, after: after, waitMilliseconds: waitMilliseconds)
                    try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: ["Host": "127.0.0.1"])))
                    try await outbound.write(.end(nil))
                    var status = HTTPResponseStatus.ok
                    var body = ByteBuffer()
                    reading: while let part = try await responses.next() {
                        switch part {
                        case .head(let head): status = head.status
                        case .body(var chunk): body.writeBuffer(&chunk)
                        case .end: break reading
                        }
                    }
                    let arrived = now()
                    guard status == .ok else {
                        if status == .serviceUnavailable {
                            observations.refused.add(1, ordering: .relaxed)
                            try await Task.sleep(for: .seconds(1))
                            continue
                        }
                        observations.failed.add(1, ordering: .relaxed)
                        return
                    }
                    let response = try SyncWire.decodePullResponse(Data(body.readableBytesView))
                    observations.answered.add(1, ordering: .relaxed)
                    observations.record(response.entries, arrived: arrived)
                    after = max(after, response.entries.last?.version ?? after)
                }
            }
        } catch {
            observations.failed.add(1, ordering: .relaxed)
        }
    }

    /// `pollLoop` on the stream route: one request, its frames read as they come; a stream the
    /// hub ends (its deadline) is opened again after the last frame's cursor.
    static func streamLoop(
        _ poller: Poller, space: String, fingerprint: String, from version: Int64,
        observations: PollObservations, stop: @escaping @Sendable () -> Bool
    ) async {
        do {
            try await poller.channel.executeThenClose { inbound, outbound in
                var responses = inbound.makeAsyncIterator()
                var after = version
                while !stop() {
                    let uri = pollURI(space: space, replicaID: poller.replicaID, fingerprint: fingerprint, after: after, waitMilliseconds: 0, streams: true)
                    try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: ["Host": "127.0.0.1"])))
                    try await outbound.write(.end(nil))
                    var status = HTTPResponseStatus.ok
                    var reader = SyncPullStreamReader()
                    reading: while let part = try await responses.next() {
                        switch part {
                        case .head(let head): status = head.status
                        case .body(let chunk):
                            guard status == .ok else { continue }
                            let frames = try reader.read(chunk.readableBytesView)
                            let arrived = now()
                            observations.answered.add(frames.count, ordering: .relaxed)
                            let entries = frames.flatMap(\.response.entries)
                            observations.record(entries, arrived: arrived)
                            after = max(after, entries.last?.version ?? after)
                            if stop() { return }
                        case .end: break reading
                        }
                    }
                    guard status == .ok else {
                        if status == .serviceUnavailable {
                            observations.refused.add(1, ordering: .relaxed)
                            try await Task.sleep(for: .seconds(1))
                            continue
                        }
                        observations.failed.add(1, ordering: .relaxed)
                        return
                    }
                }
            }
        } catch {
            observations.failed.add(1, ordering: .relaxed)
        }
    }

    /// The space's schema fingerprint, as the hub states it when a pull gives another.
    func fingerprint(space: String, port: Int) async throws -> String {
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw SyncError.refused("no URL for port \(port)") }
        do {
            _ = try await HTTPSyncTransport(url: url).pull(
                SyncPullRequest(space: space, replicaID: "fingerprint", tables: ["item"], schemaFingerprint: "?", after: 0, limit: 1))
        } catch SyncError.schemaMismatch(_, let remote) {
            return remote
        }
        throw SyncError.refused("the hub accepted a wrong schema fingerprint")
    }

    struct PollLoadResult {
        var idlePolls: Int
        var openFileLimit: Int
        var hubKiBBefore: Int
        var hubKiBWaiting: Int
        var wakeAllMilliseconds: Double
        var waiting: Int
        var writers: Int
        var writes: Int
        var deliveries: Int
        var fromSent: (p50: Double, p99: Double)
        var fromAnswered: (p50: Double, p99: Double)
        /// CPU seconds the hub process and this load tool used while the writers wrote.
        var hubCPUSeconds: Double
        var loadCPUSeconds: Double
        var refusedPolls: Int
        var failedPolls: Int
        var kiBPerPoll: Double { Double(hubKiBWaiting - hubKiBBefore) / Double(max(idlePolls, 1)) }
    }

    /// `idle` long polls waiting on one hub process (its memory before and with them), one write
    /// that wakes them all; then `waiting` pollers while `writers` replicas each push a
    /// single-row write every 100 ms: for every delivery, the time from the push (sent, and
    /// answered) to the poller's receipt.
    func pollLoad(hubBinary: String, idle: Int, waiting: Int, writers writerCount: Int, streams: Bool = false) async throws -> PollLoadResult {
        let limit = raiseOpenFileLimit(atLeast: 2 * idle + 1_024)
        let hubFolder = folder.appendingPathComponent("poll-hub")
        let space = "polls"
        let hubs = try await HubProcesses(
            binary: hubBinary,
            store: [
                hubFolder.path, "--create", space, "--schema", try schemaFile().path, "--max-polls-per-space", String(idle + waiting + 100),
                "--max-polls-per-token", String(idle + waiting + 100)
            ],
            count: 1, logFolder: folder)
        defer { hubs.stop() }
        let port = hubs.ports[0]
        let hubPID = hubs.processes[0].processIdentifier
        let fingerprint = try await fingerprint(space: space, port: port)
        let group = MultiThreadedEventLoopGroup.singleton

        // Idle polls: memory per poll, then one write wakes them all.
        say("polls: \(idle) idle \(streams ? "streams" : "long polls") on one hub process (open-file limit \(limit))...")
        try await Task.sleep(for: .seconds(1))
        let before = residentKiB(of: hubPID) ?? 0
        let idleObservations = PollObservations()
        let idleStop = StopFlag()
        var idleTasks: [Task<Void, Never>] = []
        for index in 0..<idle {
            let poller = try await Poller.connect(group: group, port: port, replicaID: "idle-\(index)")
            idleTasks.append(
                Task {
                    await Self.pollLoop(
                        poller, space: space, fingerprint: fingerprint, from: 0, waitMilliseconds: 30_000,
                        observations: idleObservations, streams: streams, stop: { idleStop.isRaised })
                })
        }
        // Registered when the hub's memory stops growing.
        var waitingKiB = residentKiB(of: hubPID) ?? 0
        for _ in 0..<40 {
            try await Task.sleep(for: .milliseconds(500))
            let now = residentKiB(of: hubPID) ?? 0
            if now == waitingKiB, now > before { break }
            waitingKiB = now
        }
        let waker = try replica("waker", space: space, port: port)
        try await waker.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", "wake", "waker", 0) }
        idleStop.raise()
        let wakeKey = "\(waker.hubReplicaID) \(try await Self.newestSequence(waker))"
        let wakeStart = now()
        try await waker.push()
        let wakeDeadline = ContinuousClock.now + .seconds(60)
        while idleObservations.arrivals.withLock({ $0[wakeKey]?.count ?? 0 }) < idle, ContinuousClock.now < wakeDeadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let lastWoken = idleObservations.arrivals.withLock { $0[wakeKey]?.max() } ?? wakeStart
        let wakeAll = Double(lastWoken - wakeStart) / 1_000_000
        for task in idleTasks { await task.value }

        // Waiting pollers while writers push.
        say("polls: \(waiting) waiting pollers while \(writerCount) writers push a row every 100 ms for \(seconds) s...")
        let observations = PollObservations()
        let stop = StopFlag()
        let start = try await Self.hubVersion(space: space, port: port, fingerprint: fingerprint)
        var tasks: [Task<Void, Never>] = []
        for index in 0..<waiting {
            let poller = try await Poller.connect(group: group, port: port, replicaID: "waiting-\(index)")
            tasks.append(
                Task {
                    await Self.pollLoop(
                        poller, space: space, fingerprint: fingerprint, from: start, waitMilliseconds: 30_000,
                        observations: observations, streams: streams, stop: { stop.isRaised })
                })
        }
        try await Task.sleep(for: .seconds(2))
        let hubCPUBefore = cpuSeconds(of: hubPID)
        let loadCPUBefore = cpuSeconds(of: getpid())
        var writers: [SyncReplica] = []
        for index in 0..<writerCount { writers.append(try replica("w\(index)", space: space, port: port)) }
        let seconds = self.seconds
        let pushes = PushTimes()
        await withTaskGroup(of: Void.self) { tasks in
            for (index, writer) in writers.enumerated() {
                tasks.addTask {
                    let end = ContinuousClock.now + .seconds(seconds)
                    var tick = ContinuousClock.now
                    var n = 0
                    while ContinuousClock.now < end {
                        n += 1
                        let id = "w\(index)-\(n)"
                        let value = n
                        _ = try? await writer.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", id, "w\(index)", value) }
                        let sequence = (try? await Self.newestSequence(writer)) ?? 0
                        let sent = now()
                        if (try? await writer.push()) != nil {
                            let answered = now()
                            pushes.times.withLock { $0["\(writer.hubReplicaID) \(sequence)"] = (sent, answered) }
                        }
                        tick += .milliseconds(100)
                        try? await Task.sleep(until: tick, clock: .continuous)
                    }
                }
            }
        }
        try await Task.sleep(for: .seconds(2))
        let hubCPU = cpuSeconds(of: hubPID) - hubCPUBefore
        let loadCPU = cpuSeconds(of: getpid()) - loadCPUBefore
        stop.raise()
        // The pollers still waiting end with their wait; one more write answers them now.
        try await waker.write { try $0.run("INSERT INTO item VALUES (?, ?, ?)", "end", "waker", 0) }
        try await waker.push()
        for task in tasks { await task.value }
        let timings = pushes.times.withLock { $0 }
        var fromSent: [Double] = []
        var fromAnswered: [Double] = []
        observations.arrivals.withLock { arrivals in
            for (key, times) in arrivals {
                guard let push = timings[key] else { continue }
                for arrived in times {
                    fromSent.append(Double(arrived - push.sent) / 1_000_000)
                    fromAnswered.append(max(0, Double(arrived - push.answered) / 1_000_000))
                }
            }
        }
        return PollLoadResult(
            idlePolls: idle, openFileLimit: limit, hubKiBBefore: before, hubKiBWaiting: waitingKiB, wakeAllMilliseconds: wakeAll,
            waiting: waiting, writers: writerCount, writes: timings.count, deliveries: fromSent.count,
            fromSent: (percentile(fromSent, 0.5), percentile(fromSent, 0.99)),
            fromAnswered: (percentile(fromAnswered, 0.5), percentile(fromAnswered, 0.99)),
            hubCPUSeconds: hubCPU, loadCPUSeconds: loadCPU,
            refusedPolls: observations.refused.load(ordering: .relaxed) + idleObservations.refused.load(ordering: .relaxed),
            failedPolls: observations.failed.load(ordering: .relaxed) + idleObservations.failed.load(ordering: .relaxed))
    }

    /// The bench's schema as a file, for `strata-sync-hub --create`.
    func schemaFile() throws -> URL {
        let file = folder.appendingPathComponent("schema.sql")
        try Data((Self.schema + ";\n").utf8).write(to: file)
        return file
    }
}
#endif
