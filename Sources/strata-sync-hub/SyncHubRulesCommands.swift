// strata-sync-hub's deploy steps for sync rules (`rules check`, `rules show`, `rules set`) and
// `token`, which mints a development token from the HS256 secret the hub verifies with.
#if Hub
import ArgumentParser
import Foundation
import StrataSync
import StrataSyncHub

/// An operator command's failure, in words (exit status 1).
struct OperatorFailure: Error, CustomStringConvertible, LocalizedError {
    let message: String
    var description: String { message }
    var errorDescription: String? { message }
}

struct SyncHubRulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync-hub rules",
        abstract: "Check, show and set a space's sync rules: a deploy step, no restart needed.",
        discussion: """
            Every hub process serving the space reads the rules' version at each request, so rules \
            set here are served at once by the running hubs, and each replica moves to its new view \
            at its next pull. Setting the rules a space has already is no change (no new version).

            Examples:
              strata-sync-hub rules check rules.json --schema team.sql
              strata-sync-hub rules show team hub > rules.json
              strata-sync-hub rules set team rules.json --postgres postgres://hub@127.0.0.1:5432/sync
            """,
        subcommands: [SyncHubRulesCheckCommand.self, SyncHubRulesShowCommand.self, SyncHubRulesSetCommand.self]
    )

    /// Reads a rules file strictly, failing with the file's name.
    static func readRules(_ path: String) throws -> SyncRules {
        do {
            return try SyncRules(contentsOf: URL(fileURLWithPath: path))
        } catch let error as SyncError {
            throw OperatorFailure(message: "\(path): \(error)")
        } catch {
            throw OperatorFailure(message: "cannot read the rules \(path): \(error.localizedDescription)")
        }
    }
}

struct SyncHubRulesCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a rules file against a schema, offline: the checks setting them runs.",
        discussion: """
            Builds the tables of SCHEMA (the SQL a space is created with) in memory and compiles \
            the rules against them, reading them as both stores do; nothing is read from or written \
            to a hub. With --postgres, each rule is also planned by that PostgreSQL server on \
            scratch tables, in a transaction rolled back. Exit status 0 and "rules ok" when they \
            would be accepted, 1 and the reason otherwise.
            """
    )

    @Argument(help: ArgumentHelp("The rules file (JSON).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The SQL file that creates the space's tables.", valueName: "file"))
    var schema: String

    @Option(help: ArgumentHelp("Also plan each rule on this PostgreSQL server (nothing is kept).", valueName: "url"))
    var postgres: String?

    func run() async throws {
        let rules = try SyncHubRulesCommand.readRules(file)
        let sql: String
        do {
            sql = try String(contentsOfFile: schema, encoding: .utf8)
        } catch {
            throw OperatorFailure(message: "cannot read the schema \(schema): \(error.localizedDescription)")
        }
        do {
            if let postgres {
                try SyncHub(store: try .postgres(url: postgres)).verifyRules(rules) { try $0.execute(sql) }
            } else {
                try SyncHub.verifyRulesOffline(rules) { try $0.execute(sql) }
            }
        } catch SyncError.invalidRules(let reason) {
            throw OperatorFailure(message: "\(file): the sync rules were refused: \(reason)")
        } catch let error as SyncError {
            throw OperatorFailure(message: "\(file): \(error)")
        } catch {
            throw OperatorFailure(
                message: postgres == nil
                    ? "the schema \(schema) does not run: \(error)"
                    : "the schema \(schema) does not run, or PostgreSQL could not plan it: \(String(reflecting: error))")
        }
        let buckets = rules.buckets.count
        let writes = rules.writes.count
        print(
            "rules ok: \(buckets) bucket\(buckets == 1 ? "" : "s"), \(writes) write rule\(writes == 1 ? "" : "s")"
                + (postgres == nil ? "" : " (planned on PostgreSQL too)"))
    }
}

struct SyncHubRulesShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a space's rules (JSON, keys sorted) and their version.",
        discussion: """
            The JSON goes to standard output, so that it may be saved as a rules file; the version \
            line goes to standard error. "no rules" when the space has none.
            """
    )

    @Argument(help: ArgumentHelp("The space.", valueName: "space"))
    var space: String

    @OptionGroup var store: SyncHubStoreOptions

    func run() async throws {
        let hub = try store.hub()
        let version = try hub.rulesVersion(ofSpace: space)
        guard let rules = try hub.rules(ofSpace: space) else {
            print("no rules: every replica syncs all of \(space) (rules version \(version.version))")
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardError.write(Data("space \(space): rules version \(version.version)\n".utf8))
        print(String(decoding: try encoder.encode(rules), as: UTF8.self))
    }
}

struct SyncHubRulesSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a space's rules from a file; the running hubs serve them from their next request.",
        discussion: """
            The rules are checked against the space's tables first (and planned by PostgreSQL on \
            that store): invalid rules exit 1 with the reason and change nothing. The rules the \
            space has already are no change: no new version, and no replica gets a new snapshot.
            """
    )

    @Argument(help: ArgumentHelp("The space.", valueName: "space"))
    var space: String

    @Argument(help: ArgumentHelp("The rules file (JSON).", valueName: "file"))
    var file: String

    @OptionGroup var store: SyncHubStoreOptions

    func run() async throws {
        let rules = try SyncHubRulesCommand.readRules(file)
        let hub = try store.hub()
        let changed: Bool
        do {
            changed = try hub.setRules(rules, forSpace: space)
        } catch let error as SyncError {
            throw OperatorFailure(message: "\(file): \(error)")
        }
        let version = try hub.rulesVersion(ofSpace: space).version
        if changed {
            print("space \(space): rules set from \(file) (rules version \(version)); the running hubs serve them from their next request")
        } else {
            print("space \(space): the rules in \(file) are the ones it has (rules version \(version)); nothing changed")
        }
    }
}

struct SyncHubTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync-hub token",
        abstract: "Mint an HS256 token for a replica, with the secret a hub's --jwt-key verifies (development).",
        discussion: """
            The token carries sub (the user), spaces ({"team": "rw"}), replica, exp, each --claim \
            as a top-level string claim, which a space's rules read as auth.<name>, and each \
            --list-claim as one value of a top-level array, read as IN auth.<name>. In production \
            your backend mints tokens the same way, for the replica ID the app sends it.

            Example:
              strata-sync-hub token --key hub-key --sub ana --space team=rw --replica ana-phone --claim org=o1 \
                --list-claim groups=g1 --list-claim groups=g2
            """
    )

    @Option(help: ArgumentHelp("The HS256 secret file (the hub's --jwt-key).", valueName: "file"))
    var key: String

    @Option(help: ArgumentHelp("The user the token is for.", valueName: "user"))
    var sub: String

    @Option(
        name: .customLong("space"), parsing: .singleValue,
        help: ArgumentHelp("A space and the access to it: NAME=r or NAME=rw (repeatable).", valueName: "name=access"))
    var spaces: [String] = []

    @Option(help: ArgumentHelp("The replica ID the token is bound to.", valueName: "id"))
    var replica: String

    @Option(
        name: .customLong("claim"), parsing: .singleValue,
        help: ArgumentHelp("A top-level string claim, auth.<k> in rules (repeatable).", valueName: "k=v"))
    var claims: [String] = []

    @Option(
        name: .customLong("list-claim"), parsing: .singleValue,
        help: ArgumentHelp("One value of a top-level array claim, IN auth.<k> in rules (repeatable; values add up).", valueName: "k=v"))
    var listClaims: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds until the token expires.", valueName: "seconds"))
    var ttl = 3_600

    /// Each `NAME=VALUE`, split at the first `=` scalar (a `=` before a combining mark is one
    /// Character, and still the separator).
    static func splitPairs(_ values: [String], option: String, form: String) throws -> [(String, String)] {
        try values.map { text in
            guard let pair = splitNameValueArgument(text) else { throw ValidationError("--\(option) takes \(form), not \(text.debugDescription)") }
            return pair
        }
    }

    static func pairs(_ values: [String], option: String, form: String) throws -> [String: String] {
        Dictionary(try splitPairs(values, option: option, form: form), uniquingKeysWith: { _, last in last })
    }

    static func lists(_ values: [String]) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (name, value) in try splitPairs(values, option: "list-claim", form: "NAME=VALUE") { result[name, default: []].append(value) }
        return result
    }

    func validate() throws {
        if spaces.isEmpty { throw ValidationError("give at least one --space NAME=r|rw") }
        for (name, access) in try Self.pairs(spaces, option: "space", form: "NAME=r or NAME=rw") where access != "r" && access != "rw" {
            throw ValidationError("--space \(name): the access is r or rw, not \(access.debugDescription)")
        }
        _ = try Self.pairs(claims, option: "claim", form: "NAME=VALUE")
        _ = try Self.lists(listClaims)
    }

    func run() async throws {
        let claims = SyncHubClaims(
            subject: sub, spaces: try Self.pairs(spaces, option: "space", form: "NAME=r or NAME=rw"), replica: replica,
            expiration: Date().addingTimeInterval(TimeInterval(ttl)))
        let extra = try Self.pairs(self.claims, option: "claim", form: "NAME=VALUE")
        do {
            print(try await claims.signedHS256(keyFile: URL(fileURLWithPath: key), extraClaims: extra, listClaims: try Self.lists(listClaims)))
        } catch SyncError.refused(let reason) {
            throw OperatorFailure(message: reason)
        } catch {
            throw OperatorFailure(message: "cannot mint a token with \(key): \(error.localizedDescription)")
        }
    }
}
#endif
