// Pull streams: the event-stream reader against generated frames cut anywhere, damaged streams
// refused without a crash, and a streaming replica against a pulling one on both hub stores.
import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Testing

@Suite struct PullStreamPropertyTests {
    /// Texts a replica id or user may hold, the awkward ones first.
    static let names = [
        "", "'\u{301}", "a\u{0}b", "line\r\nbreak", "ünï", "SELECT", "\"", "r-1", "\\", "\u{1}\u{1F}\u{7F}", "\t👍🏽", "\"\u{301}\\n"
    ]

    static func response(_ random: inout SeededRandom) -> SyncPullResponse {
        var version = Int64(random.next(upTo: 1_000))
        let entries = (0..<random.next(upTo: 5)).map { _ -> SyncLogEntry in
            // Versions up to Int64.max, once there in order.
            if version < Int64.max - 8 {
                version = random.next(upTo: 20) == 0 ? Int64.max - 8 : version + Int64(1 + random.next(upTo: 3))
            }
            let bytes = (0..<random.next(upTo: 300)).map { _ in UInt8(truncatingIfNeeded: random.next(upTo: 256)) }
            return SyncLogEntry(
                version: version, replicaID: names[random.next(upTo: names.count)],
                sequence: random.next(upTo: 10) == 0 ? Int64.min : Int64(random.next(upTo: 50)),
                changeset: Data(bytes), chain: random.next(upTo: 3) == 0 ? nil : [Int64.min, -1, 0, Int64.max][random.next(upTo: 4)])
        }
        return SyncPullResponse(
            entries: entries, hubVersion: version + Int64(random.next(upTo: 2)),
            snapshotNeeded: random.next(upTo: 8) == 0, hubRolledBack: random.next(upTo: 10) == 0,
            user: random.next(upTo: 2) == 0 ? nil : names[random.next(upTo: names.count)],
            rulesVersion: random.next(upTo: 2) == 0 ? nil : Int64(random.next(upTo: 9)), viewRows: random.next(upTo: 3) == 0 ? 7 : nil)
    }

    /// Every field alike (the wire's JSON header has no fixed key order, so bytes cannot tell).
    static func same(_ a: SyncPullResponse, _ b: SyncPullResponse) -> Bool {
        a.hubVersion == b.hubVersion && a.snapshotNeeded == b.snapshotNeeded && a.hubRolledBack == b.hubRolledBack && a.user == b.user
            && a.rulesVersion == b.rulesVersion && a.viewRows == b.viewRows && a.entries.count == b.entries.count
            && zip(a.entries, b.entries).allSatisfy {
                $0.version == $1.version && $0.replicaID == $1.replicaID && $0.sequence == $1.sequence && $0.changeset == $1.changeset
                    && $0.chain == $1.chain
            }
    }

    @Test func framesCutAnywhereWithAnyLineEndingReadBackAsSent() throws {
        for seed in 1...400 {
            var random = SeededRandom(seed: UInt64(seed))
            var frames: [SyncPullFrame] = []
            var stream: [UInt8] = []
            let ending = [[UInt8(0x0A)], [0x0D], [0x0D, 0x0A]][random.next(upTo: 3)]
            for _ in 0..<(1 + random.next(upTo: 4)) {
                let frame = SyncPullFrame(after: Int64(random.next(upTo: 500)), response: Self.response(&random))
                frames.append(frame)
                var event = Array(try SyncWire.encodeStreamEvent(frame))
                if random.next(upTo: 3) == 0 { event = Array(": idle\n\nretry: 10\n".utf8) + event }
                if random.next(upTo: 3) == 0 { event += Array(SyncWire.streamHeartbeat) }
                // An event of another type is skipped.
                if random.next(upTo: 4) == 0 { event += Array("event: other\ndata: 1 AAAA\n\n".utf8) }
                for byte in event {
                    if byte == 0x0A { stream += ending } else { stream.append(byte) }
                }
            }
            var reader = SyncPullStreamReader()
            var read: [SyncPullFrame] = []
            var start = 0
            while start < stream.count {
                let end = min(stream.count, start + 1 + random.next(upTo: 64))
                // Contiguous chunks, and others read through a generic iterator.
                read += try random.next(upTo: 2) == 0 ? reader.read(stream[start..<end]) : reader.read(stream[start..<end].lazy.map { $0 })
                start = end
            }
            #expect(read.count == frames.count, "seed \(seed)")
            for (got, sent) in zip(read, frames) {
                #expect(got.after == sent.after, "seed \(seed)")
                #expect(Self.same(got.response, sent.response), "seed \(seed)")
            }
        }
    }

    @Test func aPullAnswersHandWrittenHeaderIsJSONThatReadsBackAsSent() throws {
        for seed in 1...500 {
            var random = SeededRandom(seed: UInt64(seed))
            let response = Self.response(&random)
            let body = try SyncWire.encode(response)
            let length = Int(body[0]) << 24 | Int(body[1]) << 16 | Int(body[2]) << 8 | Int(body[3])
            // Valid JSON for any JSON reader, not only this one.
            #expect((try? JSONSerialization.jsonObject(with: body.subdata(in: 4..<(4 + length)))) != nil, "seed \(seed)")
            #expect(Self.same(try SyncWire.decodePullResponse(body), response), "seed \(seed)")
        }
    }

    @Test func aDamagedStreamIsRefusedNeverACrash() throws {
        for seed in 1...400 {
            var random = SeededRandom(seed: UInt64(seed))
            var bytes = Array(try SyncWire.encodeStreamEvent(SyncPullFrame(after: 3, response: Self.response(&random))))
            for _ in 0..<(1 + random.next(upTo: 4)) {
                bytes[random.next(upTo: bytes.count)] = UInt8(truncatingIfNeeded: random.next(upTo: 256))
            }
            var reader = SyncPullStreamReader()
            do {
                _ = try reader.read(bytes)
            } catch let error as SyncError {
                guard case .refused = error else {
                    Issue.record("seed \(seed): \(error)")
                    continue
                }
            }
        }
    }

    @Test(arguments: ListClaimTests.Store.allCases)
    func aStreamingReplicaHoldsWhatAPullingOneDoesAndNothingMore(store: ListClaimTests.Store) async throws {
        let folder = try SyncFolder()
        guard let (hub, keep) = try ListClaimTests.hub(store, folder) else { return }
        defer { withExtendedLifetime(keep) {} }
        try hub.setRules(
            SyncRules(buckets: [
                SyncBucket(
                    name: "groups", parameters: "SELECT id AS g FROM grp WHERE id IN auth.groups", data: ["doc": "grp = bucket.g", "grp": "id = bucket.g"])
            ]),
            forSpace: "s")
        let admin = try await ListClaimTests.seed(hub, folder)
        let identity = SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g'4"]])
        var transport = InProcessSyncTransport(hub: hub, identity: identity)
        transport.streamsPulls = true
        let streamer = try ListClaimTests.replica(folder, "streamer", transport: transport)
        let puller = try ListClaimTests.replica(folder, hub, "puller", identity)
        try await streamer.pull()
        let following = Task { try await streamer.followPullStream() }
        defer { following.cancel() }
        var random = SeededRandom(seed: 82)
        let groups = ["g1", "g2", "g3", "g'4"]
        for round in 0..<12 {
            let steps = (0..<(1 + random.next(upTo: 3))).map { _ in
                (kind: random.next(upTo: 3), id: "d\(random.next(upTo: 8))", group: groups[random.next(upTo: groups.count)])
            }
            try await admin.write { db in
                for step in steps {
                    switch step.kind {
                    case 0: try db.run("DELETE FROM doc WHERE id = ?", step.id)
                    case 1: try db.run("UPDATE doc SET grp = ? WHERE id = ?", step.group, step.id)
                    default: try db.run("INSERT OR REPLACE INTO doc VALUES (?, ?, ?)", step.id, step.group, "round \(round)")
                    }
                }
            }
            try await admin.sync()
            try await puller.pull()
            let expected = try await puller.database.read { try $0.query("SELECT id || ':' || grp || ':' || body FROM doc ORDER BY id") as [String] }
            let deadline = ContinuousClock.now + .seconds(20)
            var held: [String] = []
            while ContinuousClock.now < deadline {
                held = try await streamer.database.read { try $0.query("SELECT id || ':' || grp || ':' || body FROM doc ORDER BY id") as [String] }
                // Never a row outside bob's groups, at any moment.
                #expect(held.allSatisfy { $0.contains(":g1:") || $0.contains(":g'4:") }, "round \(round): \(held)")
                if held == expected { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(held == expected, "round \(round)")
        }
    }
}

extension SeededRandom {
    /// An integer in `0..<n`.
    fileprivate mutating func next(upTo n: Int) -> Int { Int.random(in: 0..<n, using: &self) }
}

/// A stream opened before the replica's view changed (another pull, new subscriptions, a token
/// with other claims pulling on the same file) applies none of its frames: found by a defect
/// hunt, where the old stream's frames undid the pull and brought back rows the current identity
/// may not see.
@Suite struct PullStreamViewChangeTests {
    static func streamer(_ hub: SyncHub, _ folder: SyncFolder, _ identity: SyncIdentity) throws -> SyncReplica {
        var transport = InProcessSyncTransport(hub: hub, identity: identity)
        transport.streamsPulls = true
        return try ListClaimTests.replica(folder, "bob", transport: transport)
    }

    @Test func aPullThatMovesOnlyTheViewMakesAnOpenStreamStale() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, admin) = try await ListClaimTests.seededHub(.sqlite, folder, rules: SyncSubscriptionTests.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        var inner = InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2", "g'4"]]))
        inner.streamsPulls = true
        let transport = GatedTransport(inner: inner, open: true)
        let bob = try ListClaimTests.replica(folder, "bob", transport: transport)
        try await bob.subscribe(SyncSubscription(bucket: "lists", parameters: ["l": "g2"]))
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["b"])
        let ended = Locked(false)
        let following = Task {
            defer { ended.withLock { $0 = true } }
            return try await bob.followPullStream()
        }
        defer { following.cancel() }
        // Opened before the view changes (a loaded machine may start the task late: the stream
        // would then open on the new view, the race the next test covers).
        #expect(try await eventually { transport.opened.current })
        try await Task.sleep(for: .milliseconds(200))
        try await bob.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g1"])])
        try await bob.pull()
        let afterPull = try await ListClaimTests.ids(bob); #expect(afterPull == ["a"], "ids after the pull: \(afterPull)")
        try await admin.write { try $0.execute("UPDATE doc SET body = 'changed' WHERE id = 'b'; INSERT INTO doc VALUES ('z', 'g1', 'new')") }
        try await admin.sync()
        // The old stream's frame for that commit is stale: the stream ends, nothing applied.
        // (A stream that applied the frame would go on: bounded, then failed below.)
        #expect(try await eventually { ended.current })
        #expect(try await ListClaimTests.ids(bob) == ["a"])
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a", "z"])
    }

    /// Holds a stream's first frame until `open` is set: the frame the hub answered (and whose
    /// view it recorded) reaches the replica after a pull that moved its view epoch.
    struct GatedTransport: SyncTransport {
        let inner: InProcessSyncTransport
        let open: Locked<Bool>
        /// Set when a stream was asked for (its request built from the replica's state then).
        let opened = Locked(false)
        /// Set when the hub's first frame has reached the gate (the hub recorded its view).
        let arrived = Locked(false)
        init(inner: InProcessSyncTransport, open: Bool = false) {
            self.inner = inner
            self.open = Locked(open)
        }
        var signedInUser: String? { inner.signedInUser }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await inner.push(request) }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await inner.pull(request) }
        func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner.snapshot(request) }
        func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>? {
            guard let frames = try inner.pullStream(request) else { return nil }
            opened.withLock { $0 = true }
            let open = self.open
            let arrived = self.arrived
            return relayed(frames) { _ in
                arrived.withLock { $0 = true }
                while !open.current { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }

    /// Found under a loaded suite: a stream opened just after a subscription change carries the
    /// rows that move, and the hub records the new view at the replica's version; a pull that
    /// runs before the frame arrives makes the frame stale, and itself moves nothing (the hub
    /// holds the new view already). The stale frame that carried rows now sends the replica to
    /// a snapshot at its next pull, which brings the view whole.
    @Test func aStaleFrameThatCarriedTheViewsMoveLeadsToASnapshot() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, _) = try await ListClaimTests.seededHub(.sqlite, folder, rules: SyncSubscriptionTests.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        var inner = InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2", "g'4"]]))
        inner.streamsPulls = true
        let transport = GatedTransport(inner: inner)
        let bob = try ListClaimTests.replica(folder, "bob", transport: transport)
        try await bob.subscribe(SyncSubscription(bucket: "lists", parameters: ["l": "g2"]))
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["b"])
        try await bob.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g1"])])
        // The stream opens on the new subscriptions: the hub answers its first frame at once.
        let following = Task { try await bob.followPullStream() }
        defer { following.cancel() }
        #expect(try await eventually { transport.arrived.current })
        try await bob.pull()
        // That pull already holds the new view: it named the view it held, which was not the
        // one the stream's frame had the hub record, and was answered with a snapshot.
        #expect(try await ListClaimTests.ids(bob) == ["a"])
        transport.open.withLock { $0 = true }
        _ = try await following.value
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a"])
    }

    @Test func aSyncLoopFollowsNewSubscriptionsWhileStreaming() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, admin) = try await ListClaimTests.seededHub(.sqlite, folder, rules: SyncSubscriptionTests.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let bob = try Self.streamer(hub, folder, SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2", "g'4"]]))
        try await bob.subscribe(SyncSubscription(bucket: "lists", parameters: ["l": "g2"]))
        let loop = bob.startSyncing(interval: .milliseconds(50))
        #expect(try await eventually { try await ListClaimTests.ids(bob) == ["b"] })
        try await bob.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g1"])])
        try await admin.write { try $0.execute("INSERT INTO doc VALUES ('z', 'g1', 'new'), ('y', 'g2', 'new')") }
        try await admin.sync()
        let moved = try await eventually { try await ListClaimTests.ids(bob) == ["a", "z"] }
        let held = try await ListClaimTests.ids(bob)
        await loop.stop()
        #expect(moved, "held \(held)")
    }

    @Test func aNarrowerTokenPullingOnTheFileStopsTheWiderStream() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, admin) = try await ListClaimTests.seededHub(.sqlite, folder, rules: SyncSubscriptionTests.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let bob = try Self.streamer(hub, folder, SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2"]]))
        try await bob.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a", "b"])
        let ended = Locked(false)
        let following = Task {
            defer { ended.withLock { $0 = true } }
            return try await bob.followPullStream()
        }
        defer { following.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        let narrower = try SyncReplica(
            database: try Database(path: folder.path("bob.sqlite")), replicaID: "bob", space: "s", tables: ListClaimTests.tables,
            transport: InProcessSyncTransport(hub: hub, identity: SyncIdentity(user: "bob", listClaims: ["groups": ["g1"]])))
        try await narrower.pull()
        #expect(try await ListClaimTests.ids(bob) == ["a"])
        try await admin.write { try $0.execute("UPDATE doc SET body = 'secret' WHERE id = 'b'") }
        try await admin.sync()
        // (A stream that applied the frame would go on: bounded, then failed below.)
        #expect(try await eventually { ended.current })
        let held = try await bob.database.read { try $0.query("SELECT id || ':' || body FROM doc ORDER BY id") as [String] }
        #expect(held == ["a:x"], "a g2 row came back through the old stream: \(held)")
    }
}
