#if Hub
import Foundation
import PostgresNIO
import Strata
import StrataSync
import StrataSyncPostgres

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
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
            username: components.user ?? "postgres", password: components.password,
            database: String(components.path.dropFirst()), tls: .disable)
        admin = try PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
            id: 99, logger: logger
        ).wait()
        _ = try admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""), logger: logger).wait()
        components.path = "/" + name
        url = components.string ?? server
    }

    deinit {
        let drop = PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
        // A statement on a closed connection is never answered: after a server restart (the chaos
        // test) a new connection drops the database.
        if admin.isClosed || (try? admin.query(drop, logger: logger).wait()) == nil, let server = PostgresServer.url,
            let components = URLComponents(string: server)
        {
            let configuration = PostgresConnection.Configuration(
                host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
                username: components.user ?? "postgres", password: components.password,
                database: String(components.path.dropFirst()), tls: .disable)
            if let again = try? PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
                id: 97, logger: logger
            ).wait() {
                _ = try? again.query(drop, logger: logger).wait()
                _ = try? again.close().wait()
            }
        }
        _ = try? admin.close().wait()
    }

    /// A connection to this database, for reading it as a backend would.
    func connect() throws -> PostgresConnection {
        guard let components = URLComponents(string: url) else { throw PostgresHubError.invalidURL(url) }
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
            username: components.user ?? "postgres", password: components.password,
            database: name, tls: .disable)
        return try PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
            id: 98, logger: logger
        ).wait()
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

/// A temporary folder, removed when released.
final class TestFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-" + UUID().uuidString)
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Syncs `replica`; a write the hub refused stays pending (read it in `pendingChanges`).
func syncKeepingRefusals(_ replica: SyncReplica) async throws {
    do {
        try await replica.sync()
    } catch SyncError.entryRefused {}
}

/// A replica on a new file in `folder`, with `schema`, syncing `tables` through `hub`.
func makeReplica(_ name: String, in folder: TestFolder, hub: SyncHub, space: String, schema: String, tables: [String]) throws -> SyncReplica {
    let database = try Database(storageLocation: .onDisk(folder.path(name + ".sqlite")))
    try database.executeWrite { try $0.execute(schema) }
    return try SyncReplica(database: database, replicaID: name, space: space, tables: tables, transport: InProcessSyncTransport(hub: hub))
}
#endif
