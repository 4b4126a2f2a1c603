// swift-tools-version:6.1
import PackageDescription

// An HTTP service on Strata: Hummingbird routes over `@Record` todos, with StrataServer's logs,
// metrics, spans and graceful shutdown. A package of its own, so Strata's `swift test` never
// builds Hummingbird, SwiftNIO or sqlite-nio.
let package = Package(
    name: "TodoService",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The `Hub` trait brings StrataSyncHub and the strata-sync-hub command.
        .package(name: "Strata", path: "../..", traits: ["Server", "Hub"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // The same routes on Vapor's SQLite driver, for the HTTP benchmark (`--backend sqlite-nio`).
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The benchmark's metrics backend (`--instrumentation all`) and its no-op tracer.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        // The sync benchmark's floor: a plain multi-row INSERT into PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The sync benchmark's simulated pollers: thousands of HTTP/1.1 connections (Hummingbird's own NIO).
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        .target(
            name: "TodoKit",
            dependencies: [
                .product(name: "StrataRecords", package: "Strata"),
                .product(name: "StrataServer", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        // StrataSync's latency and throughput over loopback HTTP (README numbers).
        .executableTarget(name: "strata-sync-bench", dependencies: [.product(name: "StrataSyncHub", package: "Strata"),
                                                                  .product(name: "StrataSyncPostgres", package: "Strata"),
                                                                  .product(name: "Hummingbird", package: "hummingbird"),
                                                                  .product(name: "PostgresNIO", package: "postgres-nio"),
                                                                  .product(name: "Logging", package: "swift-log"),
                                                                  .product(name: "NIOCore", package: "swift-nio"),
                                                                  .product(name: "NIOPosix", package: "swift-nio"),
                                                                  .product(name: "NIOHTTP1", package: "swift-nio")]),
        // Tests only: a replica process of the cross-process chaos test.
        .executableTarget(name: "strata-sync-chaos-replica", dependencies: [.product(name: "StrataSync", package: "Strata")]),
        .executableTarget(
            name: "TodoService",
            dependencies: ["TodoKit", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),
        .testTarget(
            name: "TodoServiceTests",
            dependencies: ["TodoKit", "TodoService", .product(name: "StrataSyncHub", package: "Strata"),
                           .product(name: "StrataSQift", package: "Strata"),
                           .product(name: "strata-sync-hub", package: "Strata"), "strata-sync-chaos-replica",
                           .product(name: "HummingbirdTesting", package: "hummingbird")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
