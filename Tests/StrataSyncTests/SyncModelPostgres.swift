// The PostgreSQL database the model-based test's PostgreSQL runs use (the `Hub` trait, and
// STRATA_POSTGRES_URL, which `.ci/postgres.sh start` prints).
import Foundation
#if Hub
import PostgresNIO
import StrataSync
import StrataSyncPostgres

/// A database of its own on the test server, created for one run and dropped when released.
final class SyncModelPostgresDatabase: Sendable {
    let name = "strata_model_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let url: String
    let admin: PostgresConnection
    let logger = Logger(label: "strata.tests.model")

    init(server: String) throws {
        guard var components = URLComponents(string: server) else { throw PostgresHubError.invalidURL(server) }
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
            username: components.user ?? "postgres", password: components.password,
            database: String(components.path.dropFirst()), tls: .disable)
        admin = try PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
            id: 97, logger: logger
        ).wait()
        _ = try admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""), logger: logger).wait()
        components.path = "/" + name
        url = components.string ?? server
    }

    deinit {
        _ = try? admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)"), logger: logger).wait()
        _ = try? admin.close().wait()
    }

    /// How many (replica, sequence) pairs the space's log holds more than once.
    func duplicateEntries(space: String) throws -> Int64 {
        try rows(
            """
            SELECT count(*) FROM (SELECT replica, sequence FROM "\(space)"._strata_sync_log GROUP BY 1, 2 HAVING count(*) > 1) AS d
            """
        ).first?.decode(Int64.self) ?? 0
    }

    /// The first column of `sql`'s rows, as text.
    func texts(_ sql: String) throws -> [String] {
        try rows(sql).map { try $0.decode(String.self) }
    }

    /// `sql`'s rows, on a connection of its own to this database.
    func rows(_ sql: String) throws -> [PostgresRow] {
        guard let components = URLComponents(string: url) else { throw PostgresHubError.invalidURL(url) }
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
            username: components.user ?? "postgres", password: components.password,
            database: name, tls: .disable)
        let connection = try PostgresConnection.connect(
            on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
            id: 96, logger: logger
        ).wait()
        defer { _ = try? connection.close().wait() }
        return Array(try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows)
    }
}
#endif
