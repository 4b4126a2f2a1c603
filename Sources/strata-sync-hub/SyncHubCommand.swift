// strata-sync-hub: serves a folder of StrataSync spaces over HTTP until SIGTERM or SIGINT.
import ArgumentParser
import Foundation
#if Hub
import Hummingbird
import Logging
import Strata
import StrataSync
import StrataSyncHub
import StrataSyncPostgres

/// Serves the spaces (`strata-sync-hub FOLDER ...`); `migrate` and `spaces` are dispatched
/// before it (SyncHubOperatorCommands.swift).
struct SyncHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync-hub",
        abstract: "Serve StrataSync spaces over HTTP: replicas push their writes and pull everyone else's.",
        discussion: """
            FOLDER holds one SQLite file per space (<space>.sqlite); it is created if missing. With \
            --postgres URL instead, the spaces live in PostgreSQL (a schema per space, its tables \
            PostgreSQL tables a backend may query and write), and several hubs may serve one database. Make a \
            space with --create SPACE --schema FILE (the SQL that creates its tables, the same tables \
            the replicas have), then point replicas at http://HOST:PORT with HTTPSyncTransport.

            Tokens: --jwt-key FILE verifies the JWTs your backend issues (an HS256 secret, or an ES256 \
            public key in PEM), with the claims sub, spaces ({"team": "rw"}), replica and exp. \
            --token T accepts one shared token from every replica: for local development only, since \
            whoever holds it may push under any replica's name. With neither the hub refuses to start \
            (exit 64) unless --insecure says so: then anyone who reaches it may sync.

            An operator's tools (each --help says more):
              strata-sync-hub migrate (FOLDER | --postgres URL) --space S --step FILE.sql [--dry-run]
              strata-sync-hub spaces (FOLDER | --postgres URL)
              strata-sync-hub rules check FILE.json --schema FILE.sql
              strata-sync-hub rules show SPACE (FOLDER | --postgres URL)
              strata-sync-hub rules set SPACE FILE.json (FOLDER | --postgres URL)
              strata-sync-hub token --key FILE --sub USER --space NAME=rw --replica ID [--claim K=V] [--list-claim K=V]

            Examples:
              strata-sync-hub hub --create team --schema team.sql --token dev-token
              strata-sync-hub hub --port 8443 --jwt-key hub-key.pem --policy todo=hubWins
              strata-sync-hub --postgres postgres://hub@127.0.0.1:5432/sync --token dev-token
            Behind a TLS proxy, keep --host at 127.0.0.1. SIGTERM ends the hub gracefully (requests in \
            flight finish).
            """,
        version: StrataVersion.current
    )

    @Argument(help: "The folder of spaces (created if missing); not with --postgres.")
    var folder: String?

    @Option(help: ArgumentHelp("Keep the spaces in PostgreSQL at this URL instead of a folder.", valueName: "url"))
    var postgres: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "A token every replica sends (local development only).")
    var token: String?

    @Option(name: .customLong("jwt-key"), help: ArgumentHelp("A file with the JWT key: an HS256 secret, or an ES256 public key in PEM.", valueName: "file"))
    var jwtKey: String?

    @Flag(help: "Start without --token or --jwt-key: anyone who reaches the hub may sync (local development only).")
    var insecure = false

    @Option(help: ArgumentHelp("Create this space at start (with --schema), unless it exists with that schema; waits for the store.", valueName: "space"))
    var create: String?

    @Option(help: ArgumentHelp("The SQL file that creates the new space's tables.", valueName: "file"))
    var schema: String?

    @Option(
        name: .customLong("policy"), parsing: .singleValue,
        help: ArgumentHelp("How a table settles conflicts: TABLE=lastWriterWins or TABLE=hubWins (repeatable).", valueName: "table=policy"))
    var policies: [String] = []

    @Option(
        name: .customLong("rules"), parsing: .singleValue,
        help: ArgumentHelp("Set a space's sync rules from a JSON file at start: SPACE=FILE (repeatable).", valueName: "space=file"))
    var rules: [String] = []

    @Option(help: "The largest push body accepted, in bytes.")
    var maxBodyBytes = 8 << 20

    @Option(help: "The most entries one push may carry.")
    var maxPushEntries = 1_000

    @Option(help: "The longest a pull may wait for a change, in seconds.")
    var maxPullWait = 30

    @Option(help: "Long polls waiting at once per space.")
    var maxPollsPerSpace = 10_000

    @Option(help: "The longest a pull stream stays open, in seconds (the replica then opens another).")
    var maxStreamSeconds = 300

    @Option(help: "Long polls waiting at once per token.")
    var maxPollsPerToken = 32

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        if (folder == nil) == (postgres == nil) {
            throw ValidationError("give the folder of spaces, or --postgres URL (one of them)")
        }
        if token != nil, jwtKey != nil { throw ValidationError("--token and --jwt-key are exclusive: a hub uses one way of checking tokens") }
        if (create == nil) != (schema == nil) { throw ValidationError("--create SPACE and --schema FILE go together") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        for value in [maxBodyBytes, maxPushEntries, maxPullWait, maxPollsPerSpace, maxPollsPerToken, maxStreamSeconds] where value < 1 {
            throw ValidationError("the limits must be 1 or more")
        }
        _ = try parsedPolicies()
        _ = try parsedRules()
        if token == nil, jwtKey == nil, !insecure {
            throw ValidationError(
                """
                no --token and no --jwt-key: the hub would let anyone who reaches it read and write every space. \
                Give --jwt-key FILE (the key your backend signs tokens with), --token T for local development, \
                or --insecure to serve without authentication on purpose
                """)
        }
        if insecure, token != nil || jwtKey != nil {
            throw ValidationError("--insecure is for a hub with neither --token nor --jwt-key")
        }
    }

    func parsedRules() throws -> [(space: String, file: String)] {
        try rules.map { text in
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--rules takes SPACE=FILE, not \(text.debugDescription)")
            }
            return (String(parts[0]), String(parts[1]))
        }
    }

    func parsedPolicies() throws -> [(String, SyncPolicy)] {
        try policies.map { text in
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--policy takes TABLE=POLICY, not \(text.debugDescription)") }
            switch parts[1].lowercased() {
            case "lastwriterwins", "last-writer-wins": return (String(parts[0]), .lastWriterWins)
            case "hubwins", "hub-wins": return (String(parts[0]), .hubWins)
            default: throw ValidationError("--policy \(parts[0]): the policy is lastWriterWins or hubWins, not \(String(parts[1]).debugDescription)")
            }
        }
    }

    /// Creates the space unless it exists with these tables, waiting for a store that cannot be
    /// reached yet (PostgreSQL starting after the hub) as requests wait for it: every hub of a
    /// deploy may be started with the same --create, in any order, before the database.
    static func createSpace(_ space: String, sql: String, rules: SyncRules? = nil, on hub: SyncHub, logger: Logger) async throws {
        var delay: Duration = .milliseconds(250)
        var warned = false
        while true {
            do {
                if try hub.createSpaceIfNeeded(space, rules: rules, schema: { try $0.execute(sql) }) {
                    logger.info("created space \(space)")
                } else {
                    logger.info("space \(space) exists with the schema given")
                }
                return
            } catch let unavailable as SyncHubStoreUnavailable {
                if !warned { logger.warning("cannot create space \(space) yet: \(unavailable.reason); trying again until the store answers") }
                warned = true
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    func run() async throws {
        var logger = Logger(label: "strata-sync-hub")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        // Each waiting long poll holds a socket: a soft limit of 1,024 (systemd's and most
        // shells') would refuse connections long before the per-space cap.
        let openFiles = SyncHubLimits.raiseOpenFileLimit()
        if let openFiles, openFiles < maxPollsPerSpace + 64 {
            logger.warning(
                "the open-file limit is \(openFiles): fewer long polls than --max-polls-per-space \(maxPollsPerSpace) can wait (raise the hard limit, ulimit -Hn)"
            )
        }
        var limits = SyncHubLimits()
        limits.maximumBodyBytes = maxBodyBytes
        limits.maximumEntriesPerPush = maxPushEntries
        limits.maximumPullWait = .seconds(maxPullWait)
        limits.maximumStreamDuration = .seconds(maxStreamSeconds)
        limits.maximumPollsPerSpace = maxPollsPerSpace
        limits.maximumPollsPerToken = maxPollsPerToken
        let syncLimits = SyncLimits(maximumEntriesPerPush: maxPushEntries, maximumPushBytes: maxBodyBytes)
        let hub: SyncHub
        if let postgres {
            hub = SyncHub(store: try .postgres(url: postgres), limits: syncLimits)
        } else {
            hub = try SyncHub(directory: URL(fileURLWithPath: folder ?? "."), limits: syncLimits)
        }
        // Every rules file is read (strictly) before anything is created, and the new space's
        // rules are checked against its tables before it is: a refused start leaves no space.
        var rulesBySpace: [(space: String, file: String, rules: SyncRules)] = []
        for (space, file) in try parsedRules() {
            do {
                rulesBySpace.append((space, file, try SyncRules(contentsOf: URL(fileURLWithPath: file))))
            } catch let error as SyncError {
                throw StartRefused(message: "--rules \(space)=\(file): \(error)")
            }
        }
        if let create, let schema {
            let sql = try String(contentsOfFile: schema, encoding: .utf8)
            let rules = rulesBySpace.last { $0.space == create }?.rules
            try await Self.createSpace(create, sql: sql, rules: rules, on: hub, logger: logger)
        }
        for (table, policy) in try parsedPolicies() { hub.setPolicy(policy, forTable: table) }
        for (space, file, rules) in rulesBySpace {
            do {
                try hub.setRules(rules, forSpace: space)
            } catch SyncError.unknownSpace {
                throw StartRefused(message: "--rules \(space)=\(file): there is no space \(space); create it with --create \(space) --schema FILE")
            }
            logger.info("rules of \(space) set from \(file)")
        }
        let authentication: SyncHubAuthentication
        if let jwtKey {
            authentication = try await .jwt(keyFile: URL(fileURLWithPath: jwtKey))
        } else if let token {
            authentication = .sharedToken(token)
            if !rules.isEmpty {
                logger.warning(
                    "--rules without --jwt-key: a --token request names no user, so every request to a space with rules will be refused (401); give --jwt-key FILE for partial sync"
                )
            }
        } else {
            logger.warning("--insecure: no --token or --jwt-key, anyone who reaches the hub may sync (local development only)")
            if !rules.isEmpty {
                logger.warning(
                    "--rules without --jwt-key: a request without a token names no user, so every request to a space with rules will be refused (401); give --jwt-key FILE for partial sync"
                )
            }
            authentication = .none
        }
        // Every request is logged at info (the default level); --log-level warning quiets them.
        let router = buildSyncHubRouter(
            hub: hub, limits: limits, requestLogLevel: logger.logLevel <= .info ? .info : nil,
            authentication: authentication)
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)), logger: logger)
        // ServiceLifecycle's graceful shutdown on SIGTERM and SIGINT: requests in flight end.
        try await app.runService()
    }
}
#else
/// Built without the `Hub` trait: the hub needs Hummingbird, which only that trait fetches.
@main
struct SyncHubCommand {
    static func main() {
        FileHandle.standardError.write(
            Data(
                "strata-sync-hub was built without the Hub trait: build it with `swift build --traits Hub` (or `traits: [\"Hub\"]` in your Package.swift)\n"
                    .utf8))
        exit(69)
    }
}
#endif

/// Why the hub did not start, in words (exit status 1).
struct StartRefused: Error, CustomStringConvertible, LocalizedError {
    let message: String
    var description: String { message }
    var errorDescription: String? { message }
}
