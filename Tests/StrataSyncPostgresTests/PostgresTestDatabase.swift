#if Hub
import Foundation
import StrataSQift
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres
import StrataTestSupport

/// The server the PostgreSQL tests use (`STRATA_POSTGRES_URL`, which `.ci/postgres.sh start`
/// prints); without it they are skipped, saying why.
enum PostgresServer {
    static let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"]
    static let isSet = url != nil
    static let skipReason: Comment = "STRATA_POSTGRES_URL is unset: start a server with `eval \"$(.ci/postgres.sh start)\"`"
}

import Testing

/// A database of its own on the test server, created for one test and dropped when released.
final class PostgresTestDatabase: Sendable {
    let name = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let url: String
    let admin: PostgresConnection
    let logger: Logger

    init() throws {
        guard let server = PostgresServer.url, var components = URLComponents(string: server) else {
            throw PostgresHubError.invalidURL(PostgresServer.url ?? "")
        }
        logger = Logger(label: "strata.tests.postgres")
        admin = try Self.connect(to: components, id: 99, logger: logger)
        _ = try admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""), logger: logger).wait()
        components.path = "/" + name
        url = components.string ?? server
    }

    deinit {
        let drop = PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
        // A statement on a closed connection is never answered: after a server restart (the chaos
        // test) a new connection drops the database.
        if admin.isClosed || (try? admin.query(drop, logger: logger).wait()) == nil, let server = PostgresServer.url,
            let components = URLComponents(string: server),
            let again = try? Self.connect(to: components, id: 97, logger: logger)
        {
            _ = try? again.query(drop, logger: logger).wait()
            _ = try? again.close().wait()
        }
        _ = try? admin.close().wait()
    }

    /// A connection to the database `components` name (its path), without TLS.
    static func connect(to components: URLComponents, id: Int, logger: Logger) throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
            username: components.user ?? "postgres", password: components.password,
            database: String(components.path.dropFirst()), tls: .disable)
        return try PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration, id: id, logger: logger
        ).wait()
    }

    /// A connection to this database, for reading it as a backend would.
    func connect() throws -> PostgresConnection {
        guard let components = URLComponents(string: url) else { throw PostgresHubError.invalidURL(url) }
        return try Self.connect(to: components, id: 98, logger: logger)
    }

    /// Ends every session on this database but the caller's, as a server's fast shutdown ends
    /// them (57P01).
    func endOtherSessions() throws {
        _ = try query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
    }

    /// The first column of `sql`'s rows, as text.
    func texts(_ sql: String) throws -> [String] {
        try query(sql).map { try $0.decode(String.self) }
    }

    /// Runs `sql` on a connection of its own; returns the rows.
    func query(_ sql: String) throws -> [PostgresRow] {
        let connection = try connect()
        defer { _ = try? connection.close().wait() }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows
        } catch {
            throw TestQueryError(description: "\(sql): \(String(reflecting: error))")
        }
    }
}

struct TestQueryError: Error, CustomStringConvertible { let description: String }

/// Syncs `replica`; a write the hub refused stays pending (read it in `pendingChanges`).
func syncKeepingRefusals(_ replica: SyncReplica) async throws {
    do {
        try await replica.sync()
    } catch let error as SyncError where !error.refusals.isEmpty {}
}

/// A replica on a new file in `folder`, with `schema`, syncing `tables` through `hub` (in process,
/// unless `transport` is given).
func makeReplica(
    _ name: String, in folder: TemporaryDirectory, hub: SyncHub, space: String, schema: String, tables: [String],
    transport: (any SyncTransport)? = nil
) throws -> SyncReplica {
    let database = try Database(storageLocation: .onDisk(folder.path(name + ".sqlite")))
    try database.executeWrite { try $0.execute(schema) }
    return try SyncReplica(
        database: database, replicaID: name, space: space, tables: tables, transport: transport ?? InProcessSyncTransport(hub: hub))
}

/// Hubs (each with a store of its own, as hub processes have) on a PostgreSQL database of the
/// test's own, the first of which has made a space, and a folder for its replicas' files: the
/// setup of most tests here. Keep the value for as long as the test runs.
struct PostgresHubSpace: Sendable {
    let database: PostgresTestDatabase
    let folder: TemporaryDirectory
    let hubs: [SyncHub]
    let space: String
    let schema: String
    let tables: [String]

    /// The first hub, which made the space.
    var hub: SyncHub { hubs[0] }

    /// `hubCount` hubs, then the space `space` made from `schema` by the first; replicas sync
    /// `tables` unless they say otherwise.
    init(_ space: String = "team", schema: String, tables: [String], hubCount: Int = 1) throws {
        database = try PostgresTestDatabase()
        folder = try TemporaryDirectory()
        let url = database.url
        hubs = try (0..<hubCount).map { _ in SyncHub(store: try .postgres(url: url)) }
        try hubs[0].createSpace(space) { try $0.execute(schema) }
        self.space = space
        self.schema = schema
        self.tables = tables
    }

    /// Another hub on the database (another hub process), which reads the space's definitions now.
    func anotherHub() throws -> SyncHub { SyncHub(store: try .postgres(url: database.url)) }

    /// A replica `name` of the space through `hub` (the first unless given), with the space's
    /// schema and tables unless given.
    func replica(
        _ name: String, through hub: SyncHub? = nil, schema: String? = nil, tables: [String]? = nil, transport: (any SyncTransport)? = nil
    ) throws -> SyncReplica {
        try makeReplica(
            name, in: folder, hub: hub ?? self.hub, space: space, schema: schema ?? self.schema, tables: tables ?? self.tables,
            transport: transport)
    }
}
#endif
