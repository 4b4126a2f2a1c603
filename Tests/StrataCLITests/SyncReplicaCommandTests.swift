#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
import Foundation
import StrataSQift
import Strata
import StrataSync
import Testing

/// A hub in `sandbox`'s folder "hub" whose space `space` starts from `schema`, and the replica
/// files `replicas` in `sandbox`, each made with `schema` by `strata query --create`.
private func makeHub(in sandbox: Sandbox, space: String, schema: String, replicas: [String]) throws -> SyncHub {
    let hub = try SyncHub(directory: URL(fileURLWithPath: sandbox.path("hub")))
    try hub.createSpace(space) { try $0.execute(schema) }
    for name in replicas {
        #expect(try sandbox.strata("query", "--create", name, schema).status == 0)
    }
    return hub
}

/// `strata sync write` and `strata sync now`: replicas on the command line.
@Suite struct SyncReplicaCommandTests {
    /// Two command-line replicas of one list through a hub: each writes through `strata sync
    /// write`, `strata sync now` brings the other's changes, and both end equal to the hub.
    /// Issue 81: a refused write is reported once, held, listed by `strata sync pending` with its
    /// reason, and dropped by `strata sync discard`.
    @Test func aRefusedWriteIsListedAndDiscardedFromTheCommandLine() throws {
        let sandbox = try Sandbox()
        let schema = "CREATE TABLE person(id TEXT PRIMARY KEY, email TEXT UNIQUE)"
        _ = try makeHub(in: sandbox, space: "people", schema: schema, replicas: ["phone.db", "laptop.db"])
        func sync(_ arguments: String...) throws -> CLIResult {
            try sandbox.run(try strataBinary().path, ["sync"] + arguments + ["--hub-folder", "hub", "--space", "people", "--tables", "person"])
        }
        #expect(try sync("write", "phone.db", "--replica", "phone", "INSERT INTO person VALUES ('a', 'x@example.com')").status == 0)
        #expect(try sync("write", "laptop.db", "--replica", "laptop", "--no-sync", "INSERT INTO person VALUES ('b', 'x@example.com')").status == 0)
        let first = try sync("now", "laptop.db", "--replica", "laptop")
        #expect(first.status == 1 && first.stderr.contains("constraint"), "\(first.stderr)")
        // Held: the next sync succeeds and says a write is refused.
        let again = try sync("now", "laptop.db", "--replica", "laptop")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("refused changes:    1"), "\(again.stdout)")
        let pending = try sync("pending", "laptop.db", "--replica", "laptop")
        #expect(pending.status == 0 && pending.stdout.hasPrefix("1\tperson\trefused (constraint): "), "\(pending.stdout)")
        let wrong = try sync("discard", "laptop.db", "--replica", "laptop", "7")
        #expect(wrong.status != 0 && wrong.stderr.contains("no pending write has sequence 7"), "\(wrong.stderr)")
        let discarded = try sync("discard", "laptop.db", "--replica", "laptop", "--refused")
        #expect(discarded.status == 0 && discarded.stdout.contains("discarded:          1"), "\(discarded.stdout)")
        #expect(try sync("pending", "laptop.db", "--replica", "laptop").stdout == "nothing pending\n")
        let laptop = try Connection(storageLocation: .onDisk(sandbox.path("laptop.db")))
        #expect(try laptop.query("SELECT count(*) FROM person WHERE id = 'b'") == 0)
    }

    /// Rules tried locally (`--as-user`, `--list-claim`), `strata sync subscribe`,
    /// `subscriptions` and `unsubscribe`, and a first sync's progress in `strata sync` output.
    @Test func subscriptionsAndAFirstSyncsProgressOnTheCommandLine() throws {
        let sandbox = try Sandbox()
        let schema = "CREATE TABLE doc(id TEXT PRIMARY KEY NOT NULL, org TEXT)"
        let hub = try makeHub(in: sandbox, space: "team", schema: schema, replicas: ["admin.db", "bob.db"])
        func sync(_ arguments: [String]) throws -> CLIResult {
            try sandbox.run(try strataBinary().path, ["sync"] + arguments + ["--hub-folder", "hub", "--space", "team", "--tables", "doc"])
        }
        let seeded = try sync(["write", "admin.db", "--replica", "admin", "INSERT INTO doc VALUES ('a', 'o1'), ('b', 'o2'), ('c', 'o3')"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        try hub.setRules(
            SyncRules(buckets: [SyncBucket(name: "org", parameters: "SELECT org AS o FROM doc WHERE org IN auth.orgs", data: ["doc": "org = bucket.o"])]),
            forSpace: "team")
        let bob = ["--replica", "bob", "--as-user", "bob", "--list-claim", "orgs=o1", "--list-claim", "orgs=o2"]
        let subscribed = try sync(["subscribe", "bob.db", "org", "--param", "o=o2", "--priority", "1"] + bob)
        #expect(subscribed.status == 0, "\(subscribed.stderr)")
        #expect(subscribed.stdout.hasSuffix("first sync:         1 row\n"), "\(subscribed.stdout)")
        let listed = try sync(["subscriptions", "bob.db"] + bob)
        #expect(listed.status == 0 && listed.stdout == "org(o = 'o2') priority 1\n", "\(listed.stdout)")
        func ids() throws -> [String] { try Connection(storageLocation: .onDisk(sandbox.path("bob.db"))).query("SELECT id FROM doc ORDER BY id") }
        #expect(try ids() == ["b"])
        let missing = try sync(["unsubscribe", "bob.db", "org", "--param", "o=o9"] + bob)
        #expect(missing.status != 0 && missing.stderr.contains("no subscription"), "\(missing.stderr)")
        let dropped = try sync(["unsubscribe", "bob.db", "--all"] + bob)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(try ids() == ["a", "b"])
        let bad = try sync(["subscribe", "bob.db", "org", "--integer", "o=x"] + bob)
        #expect(bad.status != 0 && bad.stderr.contains("not an integer"), "\(bad.stderr)")
        let claimWithoutUser = try sync(["now", "bob.db", "--replica", "bob", "--claim", "org=o1"])
        #expect(claimWithoutUser.status != 0 && claimWithoutUser.stderr.contains("need --as-user"), "\(claimWithoutUser.stderr)")
    }

    @Test func twoCommandLineReplicasConverge() throws {
        let sandbox = try Sandbox()
        let schema = "CREATE TABLE todo(id TEXT PRIMARY KEY, title TEXT, done INTEGER NOT NULL DEFAULT 0)"
        let hub = try makeHub(in: sandbox, space: "list", schema: schema, replicas: ["phone.db", "laptop.db"])
        func sync(_ arguments: String...) throws -> CLIResult {
            let result = try sandbox.run(try strataBinary().path, ["sync"] + arguments + ["--hub-folder", "hub", "--space", "list", "--tables", "todo"])
            #expect(result.status == 0, "strata sync \(arguments): \(result.stderr)")
            return result
        }
        _ = try sync("write", "phone.db", "--replica", "phone", "INSERT INTO todo(id, title) VALUES ('1', 'milk ''2%''')")
        _ = try sync("write", "laptop.db", "--replica", "laptop", "INSERT INTO todo(id, title) VALUES ('2', 'bread')")
        _ = try sync("now", "phone.db", "--replica", "phone")
        _ = try sync("write", "phone.db", "--replica", "phone", "--no-sync", "UPDATE todo SET done = 1 WHERE id = '2'")
        _ = try sync("now", "phone.db", "--replica", "phone")
        let last = try sync("now", "laptop.db", "--replica", "laptop")
        #expect(last.stdout.contains("pending changes:    0"))
        let expected: [String] = try hub.withSpace("list") { try $0.query("SELECT id || '|' || title || '|' || done FROM todo ORDER BY id") }
        #expect(expected == ["1|milk '2%'|0", "2|bread|1"])
        for name in ["phone.db", "laptop.db"] {
            let connection = try Connection(storageLocation: .onDisk(sandbox.path(name)))
            #expect(try connection.query("SELECT id || '|' || title || '|' || done FROM todo ORDER BY id") as [String] == expected)
        }
        // Bad input: one line, exit non-zero, nothing written.
        let both = try sandbox.run(
            try strataBinary().path,
            [
                "sync", "now", "phone.db", "--hub", "http://127.0.0.1:1", "--hub-folder", "hub",
                "--space", "list", "--replica", "phone", "--tables", "todo"
            ])
        #expect(both.status != 0 && both.stderr.contains("exactly one of --hub and --hub-folder"))
        let failing = try sandbox.run(
            try strataBinary().path,
            [
                "sync", "write", "phone.db", "--hub-folder", "hub", "--space", "list",
                "--replica", "phone", "--tables", "todo", "INSERT INTO todo(id) VALUES ('1')"
            ])
        #expect(failing.status == 1)
        #expect(try hub.version(ofSpace: "list") == 3)

        // Transaction control in the SQL would commit rows the outbox never sees: refused before
        // anything runs, nothing written (found by a probe: rows a2 and a3 reached the replica only).
        let committing = try sandbox.run(
            try strataBinary().path,
            [
                "sync", "write", "phone.db", "--hub-folder", "hub", "--space", "list",
                "--replica", "phone", "--tables", "todo", "--no-sync",
                "INSERT INTO todo(id, title) VALUES ('a2', 'x'); COMMIT; INSERT INTO todo(id, title) VALUES ('a3', 'y')"
            ])
        #expect(committing.status == 1)
        #expect(committing.stderr.contains("not COMMIT"))
        let phone = try Connection(storageLocation: .onDisk(sandbox.path("phone.db")))
        #expect(try phone.query("SELECT count(*) FROM todo WHERE id IN ('a2', 'a3')") as Int? == 0)
        #expect(try phone.query("SELECT count(*) FROM _strata_sync_outbox") as Int? == 0)
        let noTables = try sandbox.run(
            try strataBinary().path,
            [
                "sync", "now", "phone.db", "--hub-folder", "hub", "--space", "list",
                "--replica", "phone", "--tables", ", ,"
            ])
        #expect(noTables.status != 0 && noTables.stderr.contains("--tables names no table"))
    }
}
#endif
