#if Hub
import Foundation
import StrataSQift
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Strata
import StrataSync
import StrataTestSupport
import Testing

/// Issue 81, the operator's side: `strata-sync-hub rules check|show|set`, `token`, `--version`
/// and the warning for rules without JWTs, run as an operator runs them (the real executables),
/// with the rules picked up by running hub processes on both stores.
@Suite struct SyncHubRulesDeployTests {
    static let schema = "CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org TEXT);"
    static let secret = "a-long-hub-secret-of-more-than-32-bytes"
    static let byOrg = SyncRules(buckets: [SyncBucket(name: "org", data: ["doc": "org = auth.org"])], writes: ["doc": "org = auth.org"])
    static let everyone = SyncRules(buckets: [SyncBucket(name: "everyone", data: ["doc": "true"])])

    static func run(_ arguments: [String], in folder: TemporaryDirectory) throws -> (status: Int32, output: String) {
        try SyncHubCommandTests.run(arguments, in: folder.url)
    }

    /// The files every test writes: the schema, the key and the two rules files.
    static func files(in folder: TemporaryDirectory) throws {
        try Data(schema.utf8).write(to: folder.url.appendingPathComponent("schema.sql"))
        try Data((secret + "\n").utf8).write(to: folder.url.appendingPathComponent("key"))
        try byOrg.jsonData().write(to: folder.url.appendingPathComponent("org.json"))
        try everyone.jsonData().write(to: folder.url.appendingPathComponent("everyone.json"))
    }

    /// A token minted by `strata-sync-hub token`.
    static func mint(_ extra: [String], replica: String = "bob", in folder: TemporaryDirectory, space: String = "team") throws -> String {
        let (status, output) = try run(
            ["token", "--key", folder.path("key"), "--sub", "bob", "--space", space + "=rw", "--replica", replica] + extra, in: folder)
        #expect(status == 0, "\(output)")
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A hub binary with `arguments`, answering its health on the port returned.
    static func hub(_ arguments: [String], in folder: TemporaryDirectory, log: String) async throws -> (ChildProcess, Int) {
        let logURL = folder.url.appendingPathComponent(log)
        for _ in 0..<5 {
            let port = try unusedLocalPort()
            let started = try SyncHubCommandTests.start(arguments, port: port, log: logURL)
            if await SyncHubCommandTests.healthy(started, port: port, within: 60) { return (started, port) }
            started.terminate()
        }
        throw SyncError.refused("the hub never answered: \((try? String(contentsOf: logURL, encoding: .utf8)) ?? "")")
    }

    /// Bob's replica over HTTP with `token`.
    static func replica(port: Int, token: String, space: String = "team", in folder: TemporaryDirectory, name: String = "bob") throws -> SyncReplica {
        let path = folder.path(name + ".sqlite")
        if !FileManager.default.fileExists(atPath: path) { try Connection(storageLocation: .onDisk(path)).execute(schema) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        var http = HTTPSyncTransport(url: url, token: token)
        http.attempts = 1
        return try SyncReplica(database: try Database(path: path), replicaID: "bob", space: space, tables: ["doc"], transport: http)
    }

    static func ids(_ replica: SyncReplica) async throws -> [String] {
        try await replica.database.read { try $0.query(literal: "SELECT id FROM doc ORDER BY id") }
    }

    /// The backend's rows, written through a trusted hub of its own on the store.
    static func seed(_ hub: SyncHub, space: String, in folder: TemporaryDirectory) async throws {
        try Connection(storageLocation: .onDisk(folder.path("admin.sqlite"))).execute(schema)
        let admin = try SyncReplica(
            database: try Database(path: folder.path("admin.sqlite")), replicaID: "admin", space: space, tables: ["doc"],
            transport: InProcessSyncTransport(hub: hub))
        try await admin.write { try $0.execute("INSERT INTO doc VALUES ('a', 'o1'), ('b', 'o2')") }
        try await admin.sync()
    }

    @Test func rulesCheckIsOfflineAndNamesWhatItRefuses() throws {
        let folder = try TemporaryDirectory()
        try Self.files(in: folder)
        let ok = try Self.run(["rules", "check", folder.path("org.json"), "--schema", folder.path("schema.sql")], in: folder)
        #expect(ok.status == 0 && ok.output.contains("rules ok: 1 bucket, 1 write rule"), "\(ok.output)")

        let wrongColumn = SyncRules(buckets: [SyncBucket(name: "org", data: ["doc": "nosuch = auth.org"])])
        try wrongColumn.jsonData().write(to: folder.url.appendingPathComponent("bad.json"))
        let bad = try Self.run(["rules", "check", folder.path("bad.json"), "--schema", folder.path("schema.sql")], in: folder)
        #expect(bad.status == 1 && bad.output.contains("nosuch") && bad.output.contains("refused"), "\(bad.output)")

        try Data(#"{"bucket": []}"#.utf8).write(to: folder.url.appendingPathComponent("misspelt.json"))
        let misspelt = try Self.run(["rules", "check", folder.path("misspelt.json"), "--schema", folder.path("schema.sql")], in: folder)
        #expect(misspelt.status == 1 && misspelt.output.contains("bucket"), "\(misspelt.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("hub")), "a check touches no hub")

        // Planned on PostgreSQL too: accepted or refused alike, and nothing kept on the server.
        guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else { return }
        let planned = try Self.run(["rules", "check", folder.path("org.json"), "--schema", folder.path("schema.sql"), "--postgres", url], in: folder)
        #expect(planned.status == 0 && planned.output.contains("rules ok: 1 bucket, 1 write rule (planned on PostgreSQL too)"), "\(planned.output)")
        let refused = try Self.run(["rules", "check", folder.path("bad.json"), "--schema", folder.path("schema.sql"), "--postgres", url], in: folder)
        #expect(refused.status == 1 && refused.output.contains("nosuch"), "\(refused.output)")
        let left = try SyncHub(store: try .postgres(url: url)).spaceSummaries().map(\.name).filter { $0.hasPrefix("strata_rules_check_") }
        #expect(left.isEmpty, "a check left \(left)")
    }

    /// `strata --version` is tested with the CLI (CommandListTests).
    @Test func versionFlagPrintsTheOneVersion() throws {
        let folder = try TemporaryDirectory()
        let hub = try Self.run(["--version"], in: folder)
        #expect(hub.status == 0 && hub.output.trimmingCharacters(in: .whitespacesAndNewlines) == StrataVersion.current, "\(hub.output)")
    }

    /// List claims minted by `token --list-claim` reach the rules through the hub's verifier:
    /// `IN auth.orgs` gives the orgs listed, a string and a list of one name alike.
    @Test func listClaimsMintedByTheBinaryReachTheRules() async throws {
        let folder = try TemporaryDirectory()
        try Self.files(in: folder)
        let hubFolder = folder.path("hub")
        let backend = try SyncHub(directory: URL(fileURLWithPath: hubFolder))
        try backend.createSpace("team") { try $0.execute(Self.schema) }
        try await Self.seed(backend, space: "team", in: folder)
        try backend.setRules(
            SyncRules(buckets: [SyncBucket(name: "orgs", data: ["doc": "org IN auth.orgs"])], writes: ["doc": "org IN auth.orgs"]), forSpace: "team")
        let (process, port) = try await Self.hub([hubFolder, "--jwt-key", folder.path("key"), "--log-level", "warning"], in: folder, log: "hub.log")
        defer { if process.isRunning { process.terminate() } }
        let both = try Self.replica(
            port: port, token: try Self.mint(["--list-claim", "orgs=o1", "--list-claim", "orgs=o2"], in: folder), in: folder)
        try await both.sync()
        #expect(try await Self.ids(both) == ["a", "b"])
        let one = try Self.replica(port: port, token: try Self.mint(["--list-claim", "orgs=o2"], in: folder), in: folder)
        try await one.sync()
        #expect(try await Self.ids(one) == ["b"])
        let none = try Self.replica(port: port, token: try Self.mint([], in: folder), in: folder)
        try await none.sync()
        #expect(try await Self.ids(none) == [])
        // A name given both ways is refused at minting.
        let twice = try Self.run(
            ["token", "--key", folder.path("key"), "--sub", "bob", "--space", "team=rw", "--replica", "bob", "--claim", "orgs=o1", "--list-claim", "orgs=o2"],
            in: folder)
        #expect(twice.status == 1 && twice.output.contains("both as a string and as a list"), "\(twice.output)")
    }

    /// Subscriptions, priorities and the progress count cross HTTP: the hub binary serves the
    /// intersection of the view and what the replica asks for.
    @Test func subscriptionsAndProgressCrossTheHubBinary() async throws {
        let folder = try TemporaryDirectory()
        try Self.files(in: folder)
        let hubFolder = folder.path("hub")
        let backend = try SyncHub(directory: URL(fileURLWithPath: hubFolder))
        try backend.createSpace("team") { try $0.execute(Self.schema) }
        try await Self.seed(backend, space: "team", in: folder)
        try backend.setRules(
            SyncRules(buckets: [SyncBucket(name: "org", parameters: "SELECT org AS o FROM doc WHERE org IN auth.orgs", data: ["doc": "org = bucket.o"])]),
            forSpace: "team")
        let (process, port) = try await Self.hub([hubFolder, "--jwt-key", folder.path("key"), "--log-level", "warning"], in: folder, log: "hub.log")
        defer { if process.isRunning { process.terminate() } }
        let bob = try Self.replica(port: port, token: try Self.mint(["--list-claim", "orgs=o1", "--list-claim", "orgs=o2"], in: folder), in: folder)
        try await bob.setSubscriptions([SyncSubscription(bucket: "org", parameters: ["o": "o2"], priority: 1)])
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["b"])
        #expect(try await bob.status.progress == nil, "a finished first sync reports no progress")
        try await bob.setSubscriptions([])
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["a", "b"])
    }

    @Test func tokenRefusesAShortKeyAndBadAccess() throws {
        let folder = try TemporaryDirectory()
        try Data("short\n".utf8).write(to: folder.url.appendingPathComponent("short"))
        let short = try Self.run(["token", "--key", folder.path("short"), "--sub", "bob", "--space", "team=rw", "--replica", "bob"], in: folder)
        #expect(short.status == 1 && short.output.contains("32"), "\(short.output)")
        let access = try Self.run(["token", "--key", folder.path("short"), "--sub", "bob", "--space", "team=w", "--replica", "bob"], in: folder)
        #expect(access.status != 0 && access.output.contains("r or rw"), "\(access.output)")
    }

    /// Items 2 and 4 on a folder: rules set through the binary reach a running hub's next
    /// request; minted tokens sync, an expired one or one for another replica is refused.
    @Test func rulesSetThroughTheBinaryReachARunningHubAndMintedTokensSync() async throws {
        let folder = try TemporaryDirectory()
        try Self.files(in: folder)
        let hubFolder = folder.path("hub")
        let backend = try SyncHub(directory: URL(fileURLWithPath: hubFolder))
        try backend.createSpace("team") { try $0.execute(Self.schema) }
        try await Self.seed(backend, space: "team", in: folder)

        let none = try Self.run(["rules", "show", "team", hubFolder], in: folder)
        #expect(none.status == 0 && none.output.contains("no rules"), "\(none.output)")
        let set = try Self.run(["rules", "set", "team", folder.path("org.json"), hubFolder], in: folder)
        #expect(set.status == 0 && set.output.contains("rules set"), "\(set.output)")
        let version = try backend.rulesVersion(ofSpace: "team").version
        let again = try Self.run(["rules", "set", "team", folder.path("org.json"), hubFolder], in: folder)
        #expect(again.status == 0 && again.output.contains("nothing changed"), "\(again.output)")
        #expect(try backend.rulesVersion(ofSpace: "team").version == version, "the same rules are no new version")

        let (process, port) = try await Self.hub([hubFolder, "--jwt-key", folder.path("key"), "--log-level", "warning"], in: folder, log: "hub.log")
        defer { if process.isRunning { process.terminate() } }
        let bob = try Self.replica(port: port, token: try Self.mint(["--claim", "org=o1"], in: folder), in: folder)
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["a"], "the minted claim reaches auth.org")

        // Invalid rules: exit 1, named, nothing changed.
        try SyncRules(buckets: [SyncBucket(name: "org", data: ["doc": "nosuch = auth.org"])]).jsonData()
            .write(to: folder.url.appendingPathComponent("bad.json"))
        let bad = try Self.run(["rules", "set", "team", folder.path("bad.json"), hubFolder], in: folder)
        #expect(bad.status == 1 && bad.output.contains("nosuch"), "\(bad.output)")
        #expect(try backend.rules(ofSpace: "team") == Self.byOrg)

        let changed = try Self.run(["rules", "set", "team", folder.path("everyone.json"), hubFolder], in: folder)
        #expect(changed.status == 0 && changed.output.contains("rules set"), "\(changed.output)")
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["a", "b"], "the running hub serves the new rules without a restart")
        let shown = try Self.run(["rules", "show", "team", hubFolder], in: folder)
        #expect(shown.status == 0 && shown.output.contains("\"everyone\"") && shown.output.contains("rules version"), "\(shown.output)")
        let spaces = try Self.run(["spaces", hubFolder], in: folder)
        let version2 = try backend.rulesVersion(ofSpace: "team").version
        #expect(version2 > version)
        #expect(spaces.output.split(separator: "\n").contains { $0.hasPrefix("team") && $0.hasSuffix(" \(version2)") }, "\(spaces.output)")

        // Refused tokens: expired, and for another replica.
        func denial(_ token: String, _ name: String) async throws -> SyncAccessDenial.Reason? {
            do {
                try await Self.replica(port: port, token: token, in: folder, name: name).sync()
                return nil
            } catch SyncError.accessDenied(let denial) {
                return denial.reason
            }
        }
        let expired = try Self.mint(["--ttl", "-5", "--claim", "org=o1"], in: folder)
        #expect(try await denial(expired, "late") == .expired)
        let eves = try Self.mint(["--claim", "org=o1"], replica: "eve", in: folder)
        #expect(try await denial(eves, "eve") == .wrongReplica)
    }

    /// Item 2 on PostgreSQL: two hub processes on one database; rules set by the binary reach a
    /// replica syncing through the second.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil, "needs PostgreSQL"))
    func rulesSetOnPostgreSQLReachEveryHubProcess() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"])
        let folder = try TemporaryDirectory()
        try Self.files(in: folder)
        let space = "rules_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let common = ["--postgres", url, "--jwt-key", folder.path("key"), "--create", space, "--schema", folder.path("schema.sql"), "--log-level", "warning"]
        let (first, _) = try await Self.hub(common, in: folder, log: "first.log")
        defer { if first.isRunning { first.terminate() } }
        let (second, port) = try await Self.hub(common, in: folder, log: "second.log")
        defer { if second.isRunning { second.terminate() } }
        try await Self.seed(SyncHub(store: try .postgres(url: url)), space: space, in: folder)

        let set = try Self.run(["rules", "set", space, folder.path("org.json"), "--postgres", url], in: folder)
        #expect(set.status == 0 && set.output.contains("rules set"), "\(set.output)")
        let bob = try Self.replica(port: port, token: try Self.mint(["--claim", "org=o2"], in: folder, space: space), space: space, in: folder)
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["b"])
        let changed = try Self.run(["rules", "set", space, folder.path("everyone.json"), "--postgres", url], in: folder)
        #expect(changed.status == 0 && changed.output.contains("rules set"), "\(changed.output)")
        try await bob.sync()
        #expect(try await Self.ids(bob) == ["a", "b"], "the second hub serves the rules set on the database")
        let shown = try Self.run(["rules", "show", space, "--postgres", url], in: folder)
        #expect(shown.status == 0 && shown.output.contains("\"everyone\""), "\(shown.output)")
    }

    /// Item 6: --rules with a shared token is warned about at start.
    @Test func rulesWithoutJWTKeyAreWarnedAbout() async throws {
        let folder = try TemporaryDirectory()
        try Self.files(in: folder)
        let (process, _) = try await Self.hub(
            [folder.path("hub"), "--token", "dev", "--create", "team", "--schema", folder.path("schema.sql"), "--rules", "team=" + folder.path("org.json")],
            in: folder, log: "hub.log")
        process.terminate()
        let log = try String(contentsOf: folder.url.appendingPathComponent("hub.log"), encoding: .utf8)
        #expect(log.contains("--rules without --jwt-key"), "\(log)")
    }
}
#endif
