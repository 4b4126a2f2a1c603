// Subscriptions (issue 81): a replica asks for part of its view; the hub serves the intersection,
// adding or dropping a subscription moves rows in one pull, and a subscription never widens a
// view. On both hub stores, in process and over the wire's encoding.
import Foundation
import StrataSQift
import Strata
import StrataSync
import StrataTestSupport
import Synchronization
import Testing

@Suite struct SyncSubscriptionTests {
    static let rules = SyncRules(
        buckets: [
            SyncBucket(name: "lists", parameters: "SELECT id AS l FROM grp WHERE id IN auth.groups", data: ["doc": "grp = bucket.l"]),
            SyncBucket(name: "names", data: ["grp": "true"])
        ],
        writes: ["doc": "grp IN auth.groups"])

    static func ids(_ replica: SyncReplica, _ table: String = "doc") async throws -> [String] {
        try await ListClaimTests.ids(replica, table)
    }

    @Test(arguments: ListClaimTests.Store.allCases)
    func aReplicaHoldsTheIntersectionOfItsViewAndItsSubscriptions(store: ListClaimTests.Store) async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, admin) = try await ListClaimTests.seededHub(store, folder, rules: Self.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let bob = try ListClaimTests.replica(folder, hub, "bob", SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2", "g'4"]]))
        // One list asked for: its rows only; the bucket it does not name stays whole.
        try await bob.subscribe(SyncSubscription(bucket: "lists", parameters: ["l": "g2"]))
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["b"])
        #expect(try await Self.ids(bob, "grp") == ["g'4", "g1", "g2", "g3"])
        // A second subscription moves its rows in, in one pull; dropping the first moves its out.
        try await bob.subscribe(SyncSubscription(bucket: "LISTS", parameters: ["l": "g'4"]))
        try await bob.pull()
        #expect(try await Self.ids(bob) == ["b", "d"])
        try await bob.unsubscribe(SyncSubscription(bucket: "lists", parameters: ["l": "g2"]))
        try await bob.pull()
        #expect(try await Self.ids(bob) == ["d"])
        // Never wider than the view: g3 is not in bob's list claim; an unknown column or bucket
        // matches nothing more.
        try await bob.setSubscriptions([
            SyncSubscription(bucket: "lists", parameters: ["l": "g3"]), SyncSubscription(bucket: "lists", parameters: ["nosuch": "g1"]),
            SyncSubscription(bucket: "nosuch")
        ])
        try await bob.pull()
        #expect(try await Self.ids(bob) == [])
        // A change on the hub inside a subscription arrives; one outside it does not.
        try await bob.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g1"])])
        try await bob.pull()
        #expect(try await Self.ids(bob) == ["a"])
        try await admin.write { try $0.execute("INSERT INTO doc VALUES ('h', 'g1', 'in'), ('i', 'g2', 'out')") }
        try await admin.sync()
        try await bob.pull()
        #expect(try await Self.ids(bob) == ["a", "h"])
        // A write of bob's outside his subscriptions is applied on the hub, and leaves his file
        // at the next sync, as any row outside what he asks for.
        try await bob.write { try $0.execute("INSERT INTO doc VALUES ('j', 'g2', 'mine')") }
        try await bob.sync()
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["a", "h"])
        try await admin.pull()
        #expect(try await Self.ids(admin).contains("j"))
        // No subscriptions: the whole view again; a snapshot honours them too.
        try await bob.setSubscriptions([])
        try await bob.pull()
        #expect(try await Self.ids(bob) == ["a", "b", "d", "h", "i", "j"])
        try await bob.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g'4"])])
        let fresh = try ListClaimTests.replica(folder, hub, "bob2", SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g'4"]]))
        try await fresh.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g'4"])])
        try await fresh.sync()
        #expect(try await Self.ids(fresh) == ["d"])
        #expect(try await fresh.subscriptions == [SyncSubscription(bucket: "lists", parameters: ["l": "g'4"])])
    }

    /// A transport that runs `hook` before each pull it carries.
    final class PullHook: SyncTransport {
        let inner: any SyncTransport
        let hook: @Sendable (SyncPullRequest) async throws -> Void
        init(_ inner: any SyncTransport, _ hook: @escaping @Sendable (SyncPullRequest) async throws -> Void) {
            self.inner = inner
            self.hook = hook
        }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await inner.push(request) }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
            try await hook(request)
            return try await inner.pull(request)
        }
        func snapshot(_ request: SyncSnapshotRequest) async throws -> SyncSnapshot { try await inner.snapshot(request) }
        var signedInUser: String? { inner.signedInUser }
    }

    /// Priorities: a first sync brings the highest priority's rows, then the next, then the rest,
    /// each phase complete before the next starts, and reports how many rows of how many it has.
    @Test(arguments: ListClaimTests.Store.allCases)
    func prioritizedSubscriptionsArriveFirstAndAFirstSyncReportsProgress(store: ListClaimTests.Store) async throws {
        let folder = try SyncFolder()
        guard let (hub, keep, _) = try await ListClaimTests.seededHub(store, folder, rules: Self.rules) else { return }
        defer { withExtendedLifetime(keep) {} }
        let path = try ListClaimTests.schemaFile(folder)
        let database = try Database(path: path)
        let seen = Mutex<[String]>([])
        let identity = SyncIdentity(user: "bob", listClaims: ["groups": ["g1", "g2", "g'4"]])
        let transport = PullHook(InProcessSyncTransport(hub: hub, identity: identity)) { request in
            // What the replica holds as each request leaves: a phase ends before the next asks.
            let held = try await database.read { connection -> String in
                let docs: [String] = try connection.query("SELECT id FROM doc ORDER BY id")
                let groups: Int = try connection.query("SELECT count(*) FROM grp") ?? 0
                let progress = try SyncStatus.read(connection).progress
                return "\(request.minimumPriority.map(String.init) ?? "rest"): \(docs.joined(separator: ",")) \(groups) groups "
                    + (progress.map { "\($0.rows)/\($0.totalRows.map(String.init) ?? "?")" } ?? "-")
            }
            seen.withLock { if $0.last != held { $0.append(held) } }
        }
        let bob = try SyncReplica(database: database, replicaID: "bob", space: "s", tables: ListClaimTests.tables, transport: transport)
        try await bob.setSubscriptions([
            SyncSubscription(bucket: "lists", parameters: ["l": "g'4"], priority: 2),
            SyncSubscription(bucket: "lists", parameters: ["l": "g1"], priority: 1),
            SyncSubscription(bucket: "lists", parameters: ["l": "g2"])
        ])
        let before = try await bob.status
        #expect(before.progress == nil)
        try await bob.sync()
        // Phase 2 starts empty; phase 1 starts holding g'4's row; the rest starts holding g1's
        // too, the names bucket (no subscription names it) last.
        let phases = seen.withLock { $0 }
        #expect(phases.first == "2:  0 groups 0/?", "\(phases)")
        #expect(phases.contains { $0.hasPrefix("1: d 0 groups 1/7") }, "\(phases)")
        #expect(phases.contains { $0.hasPrefix("rest: a,d 0 groups 2/7") }, "\(phases)")
        #expect(try await Self.ids(bob) == ["a", "b", "d"])
        #expect(try await Self.ids(bob, "grp") == ["g'4", "g1", "g2", "g3"])
        // Finished: no progress to report; a later sync is no first sync and asks for no count.
        #expect(try await bob.status.progress == nil)
        #expect(SyncProgress(rows: 3, totalRows: 7, phase: 1).fractionCompleted == 3.0 / 7.0)
        #expect(SyncProgress(rows: 9, totalRows: 7).fractionCompleted == 1 && SyncProgress(rows: 1, totalRows: nil).fractionCompleted == 0)
        try await bob.sync()
        #expect(try await bob.status.progress == nil)
    }

    /// Subscriptions past what a request carries are refused when set, on every transport, in
    /// words; the ones set before stay.
    @Test func subscriptionsPastWhatARequestCarriesAreRefusedWhenSet() async throws {
        let folder = try SyncFolder()
        guard let (hub, keep) = try ListClaimTests.hub(.sqlite, folder) else { return }
        defer { withExtendedLifetime(keep) {} }
        try hub.setRules(Self.rules, forSpace: "s")
        let bob = try ListClaimTests.replica(folder, hub, "bob", SyncIdentity(user: "bob", listClaims: ["groups": ["g1"]]))
        try await bob.setSubscriptions([SyncSubscription(bucket: "lists", parameters: ["l": "g1"])])
        let many = (0..<2_000).map { SyncSubscription(bucket: "lists", parameters: ["l": .text("group-\($0)")]) }
        do {
            try await bob.setSubscriptions(many)
            Issue.record("2,000 subscriptions were kept")
        } catch SyncError.refused(let reason) {
            #expect(reason.contains("2000 subscriptions") && reason.contains("\(SyncSubscription.maximumEncodedBytes)"), "\(reason)")
        }
        #expect(try await bob.subscriptions == [SyncSubscription(bucket: "lists", parameters: ["l": "g1"])])
        #expect(throws: SyncError.self) {
            try SyncWire.decodeSubscriptionsQuery(String(repeating: "A", count: SyncSubscription.maximumEncodedBytes + 4))
        }
    }

    @Test func subscriptionsCompareNumbersByValueAndEverythingElseExactly() {
        #expect(SyncSubscription.same(.integer(1), .real(1.0)))
        #expect(SyncSubscription.same(.real(-0.0), .integer(0)))
        #expect(!SyncSubscription.same(.integer(1), .text("1")))
        #expect(!SyncSubscription.same(.real(1e19), .integer(.max)))
        #expect(!SyncSubscription.same(.real(.nan), .real(.nan)))
        #expect(!SyncSubscription.same(.null, .null))
        #expect(!SyncSubscription.same(.text("e\u{301}"), .text("\u{E9}")), "text by its bytes")
        #expect(SyncSubscription.same(.blob(Data([0])), .blob(Data([0]))))
    }

    /// The HTTP form: base64url JSON in the query, read back to the same subscriptions, for
    /// generated values; anything else refused by name.
    @Test func theQueryFormRoundTrips() throws {
        try PropertyCheck.run("subscriptions query round trip", cases: 200) { random in
            var subscriptions: [SyncSubscription] = []
            for _ in 0..<random.int(1...3) {
                var parameters: [String: SyncValue] = [:]
                for _ in 0..<random.int(0...3) {
                    let name = random.pick(["l", "", "select", "'\u{301}", "a+b", "é"])
                    parameters[name] = random.pick([
                        .text("+/="), .text("'\u{301}"), .text("\0"), .text("\r\n"), .integer(.min), .integer(.max), .real(-0.0), .real(1e300),
                        .blob(Data([0, 255])),
                        .null, .text("")
                    ])
                }
                subscriptions.append(SyncSubscription(bucket: random.pick(["lists", "", "LISTS", "é"]), parameters: parameters))
            }
            let item = try #require(try HTTPSyncTransport.subscriptionsQuery(subscriptions).first)
            try require(
                item.value?.unicodeScalars.allSatisfy {
                    $0.properties.isASCIIHexDigit || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || $0 == "-" || $0 == "_" || ("0"..."9").contains($0)
                } == true, "\(item)")
            let decoded = try SyncWire.decodeSubscriptionsQuery(item.value)
            try require(decoded == subscriptions, "\(subscriptions) came back as \(String(describing: decoded))")
        }
        #expect(throws: SyncError.self) { try SyncWire.decodeSubscriptionsQuery("not base64 json!") }
        #expect(try SyncWire.decodeSubscriptionsQuery(nil) == nil)
    }
}
