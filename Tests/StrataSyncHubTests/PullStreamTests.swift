#if Hub
import Foundation
import StrataSQift
import Hummingbird
import JWTKit
import Strata
import StrataSync
import StrataSyncHub
import StrataSyncPostgres
import StrataTestSupport
import Testing

/// An HTTP transport that counts the requests a replica makes and keeps every frame its pull
/// streams carried, as the bytes the hub sent.
final class StreamCountingTransport: SyncTransport, Sendable {
    let inner: HTTPSyncTransport
    private let counts = Locked<(pulls: Int, streams: Int, frames: [Data])>((0, 0, []))

    init(_ inner: HTTPSyncTransport) { self.inner = inner }

    var pulls: Int { counts.withLock { $0.pulls } }
    var streams: Int { counts.withLock { $0.streams } }
    var frames: [Data] { counts.withLock { $0.frames } }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await inner.push(request) }
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        counts.withLock { $0.pulls += 1 }
        return try await inner.pull(request)
    }
    func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner.snapshot(request) }
    var signedInUser: String? { inner.signedInUser }
    func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>? {
        guard let stream = try inner.pullStream(request) else { return nil }
        counts.withLock { $0.streams += 1 }
        let counts = self.counts
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await frame in stream {
                        counts.withLock { $0.frames.append((try? SyncWire.encodeStreamEvent(frame)) ?? Data()) }
                        continuation.yield(frame)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Pull streams over real HTTP: one request brings every later write as it commits, frames carry
/// only what a pull would (the leak test's rules, on both stores), refusals are statuses, and a
/// hub without the route is long polled.
@Suite struct PullStreamTests {
    static func hub(_ store: String, _ folder: TemporaryDirectory) throws -> (SyncHub, String)? {
        if store == "postgres" {
            guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
                print("PullStreamTests on PostgreSQL skipped: STRATA_POSTGRES_URL is unset (eval \"$(.ci/postgres.sh start)\")")
                return nil
            }
            return (SyncHub(store: try .postgres(url: url)), "stream_" + String(UInt64.random(in: 0...UInt64.max), radix: 16))
        }
        return (try SyncHub(directory: folder.url.appendingPathComponent("hub")), "team")
    }

    static func replica(
        _ folder: TemporaryDirectory, _ name: String, space: String, port: Int, token: String?, streams: Bool
    ) throws -> (SyncReplica, StreamCountingTransport) {
        let database = try Database(path: folder.path(name + ".sqlite"))
        try database.executeWrite { try $0.execute(PartialSyncHubExample.schema) }
        var http = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(port)")), token: token)
        http.attempts = 1
        http.streamsPulls = streams
        let transport = StreamCountingTransport(http)
        return (
            try SyncReplica(database: database, replicaID: name, space: space, tables: PartialSyncHubExample.tables, transport: transport),
            transport
        )
    }

    static func waitUntil(_ seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test(arguments: ["sqlite", "postgres"])
    func oneStreamBringsEveryLaterWriteAndNoRowOutsideTheView(store: String) async throws {
        let folder = try TemporaryDirectory()
        guard let (hub, space) = try Self.hub(store, folder) else { return }
        try hub.createSpace(space) { try $0.execute(PartialSyncHubExample.schema) }
        try hub.setRules(PartialSyncHubExample.rules, forSpace: space)
        let keys = await hmacKeys(HMACKey(from: Array("a-long-hub-secret-of-more-than-32-bytes".utf8)))
        let expires = Date().addingTimeInterval(600)
        let aliceToken = try await keys.sign(SyncHubClaims(subject: "alice", spaces: [space: "rw"], replica: "alice", expiration: expires))
        let bobToken = try await keys.sign(SyncHubClaims(subject: "bob", spaces: [space: "rw"], replica: "bob", expiration: expires))
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .jwt(keys))) { port async throws in
            let (alice, _) = try Self.replica(folder, "alice", space: space, port: port, token: aliceToken, streams: false)
            let (bob, seen) = try Self.replica(folder, "bob", space: space, port: port, token: bobToken, streams: true)
            try await alice.write { try $0.execute("INSERT INTO list VALUES ('shared', 'alice', 'shared'), ('secret', 'alice', 'SECRET-LIST')") }
            try await alice.write { try $0.execute("INSERT INTO member VALUES ('m1', 'shared', 'bob')") }
            try await alice.sync()
            let loop = bob.startSyncing()
            #expect(try await Self.waitUntil { try await bob.database.read { try $0.query("SELECT count(*) FROM list") as Int? } == 1 })
            #expect(try await Self.waitUntil { seen.streams == 1 })
            let pullsBefore = seen.pulls
            for index in 0..<5 {
                try await alice.write { db in
                    try db.run("INSERT INTO todo VALUES (?, 'shared', ?)", "t\(index)", "todo \(index)")
                    try db.run("INSERT INTO todo VALUES (?, 'secret', ?)", "s\(index)", "SECRET-TODO-\(index)")
                }
                try await alice.push()
                let expected = index + 1
                #expect(try await Self.waitUntil { try await bob.database.read { try $0.query("SELECT count(*) FROM todo") as Int? } == expected })
            }
            // Five writes arrived on the stream it opened: no pull, no second stream.
            #expect(seen.pulls == pullsBefore)
            #expect(seen.streams == 1)
            await loop.stop()
            #expect(try await bob.database.read { try $0.query("SELECT id FROM todo ORDER BY id") as [String] } == (0..<5).map { "t\($0)" })
            // No frame carried a byte of alice's private rows.
            let frames = seen.frames
            #expect(frames.count >= 6)
            for frame in frames {
                let decoded = try SyncPullStreamReader.frames(in: frame)
                for entry in decoded.flatMap(\.response.entries) {
                    #expect(entry.changeset.range(of: Data("SECRET".utf8)) == nil)
                }
            }
        }
    }

    @Test func aStreamIsRefusedAsAPullIsAndAHubWithoutTheRouteIsLongPolled() async throws {
        let folder = try TemporaryDirectory()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(PartialSyncHubExample.schema) }
        let request = SyncPullRequest(
            space: "team", replicaID: "r", tables: PartialSyncHubExample.tables, schemaFingerprint: "?", after: 0, limit: 10)
        try await serveLive(buildSyncHubRouter(hub: hub, authentication: .sharedToken("secret-token"))) { port async throws in
            var transport = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(port)")), token: "wrong")
            transport.streamsPulls = true
            await #expect(throws: SyncError.self) {
                for try await _ in try #require(try transport.pullStream(request)) {}
            }
            let trusted = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(port)")), token: "secret-token")
            var streaming = trusted
            streaming.streamsPulls = true
            // Another schema: refused with the hub's fingerprint, as a pull is.
            do {
                for try await _ in try #require(try streaming.pullStream(request)) {}
                Issue.record("a stream with another schema's fingerprint was not refused")
            } catch SyncError.schemaMismatch(_, let remote) {
                var good = request
                good.schemaFingerprint = remote
                // The opening frame comes at once, and the stream holds while nothing changes.
                var frames = try #require(try streaming.pullStream(good)).makeAsyncIterator()
                let first = try #require(try await frames.next())
                #expect(first.after == 0 && first.response.entries.isEmpty)
            }
        }
        // A server without the route: the stream ends, and the transport long polls from then on.
        let bare = Router(context: SyncHubRequestContext.self)
        bare.get("health") { _, _ in "ok" }
        try await serveLive(bare) { port async throws in
            var transport = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(port)")))
            transport.streamsPulls = true
            var count = 0
            for try await _ in try #require(try transport.pullStream(request)) { count += 1 }
            #expect(count == 0)
            #expect(try transport.pullStream(request) == nil)
        }
    }

    @Test func aStreamWhoseClientLeftEndsWithinTwoFrames() async throws {
        let folder = try TemporaryDirectory()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(PartialSyncHubExample.schema) }
        try await serveLive(buildSyncHubRouter(hub: hub)) { port async throws in
            let (writer, _) = try Self.replica(folder, "writer", space: "team", port: port, token: nil, streams: false)
            let (reader, seen) = try Self.replica(folder, "reader", space: "team", port: port, token: nil, streams: true)
            let following = Task { try await reader.followPullStream() }
            #expect(try await Self.waitUntil { seen.frames.count == 1 && hub.waitingPolls(inSpace: "team") == 1 })
            // The replica goes away: its connection closes while the hub waits for a commit.
            following.cancel()
            _ = try? await following.value
            try await Task.sleep(for: .milliseconds(200))
            // A closed connection shows only when a write fails: the first frame after the
            // close goes to the socket's buffer, and the reset that answers it fails the next.
            // The stream then ends and waits no more (a dead stream woken by every later commit
            // would cost the hub a pull each).
            for row in ["one", "two", "three"] {
                try await writer.write { try $0.run("INSERT INTO tag VALUES (?, ?)", row, row) }
                try await writer.push()
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await Self.waitUntil(30) { hub.waitingPolls(inSpace: "team") == 0 })
        }
    }

    @Test func aStreamEndsAtItsDeadlineAndTheLoopOpensAnother() async throws {
        let folder = try TemporaryDirectory()
        let hub = try SyncHub(directory: folder.url.appendingPathComponent("hub"))
        try hub.createSpace("team") { try $0.execute(PartialSyncHubExample.schema) }
        var limits = SyncHubLimits()
        limits.maximumStreamDuration = .milliseconds(300)
        limits.streamHeartbeat = .milliseconds(100)
        try await serveLive(buildSyncHubRouter(hub: hub, limits: limits)) { port async throws in
            let (writer, _) = try Self.replica(folder, "writer", space: "team", port: port, token: nil, streams: false)
            let (reader, seen) = try Self.replica(folder, "reader", space: "team", port: port, token: nil, streams: true)
            let loop = reader.startSyncing(interval: .milliseconds(50))
            // A behaviour, not a speed: a machine running the other suites beside this one may
            // take long to give the loop its turns.
            #expect(try await Self.waitUntil(60) { seen.streams >= 3 })
            try await writer.write { try $0.execute("INSERT INTO tag VALUES ('late', 'after a few streams')") }
            try await writer.push()
            #expect(try await Self.waitUntil { try await reader.database.read { try $0.query("SELECT count(*) FROM tag") as Int? } == 1 })
            await loop.stop()
        }
    }
}

extension SyncPullStreamReader {
    /// The frames in `bytes`, read at once.
    static func frames(in bytes: Data) throws -> [SyncPullFrame] {
        var reader = SyncPullStreamReader()
        return try reader.read(bytes)
    }
}
#endif
