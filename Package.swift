// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

// `SQLite3` wraps the system library on platforms that do not ship an `SQLite3` module.
let sqliteDependency: Target.Dependency = .target(
    name: "SQLite3",
    condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])
)

/// Code written for the seed libraries is mostly Swift 5: these targets compile it that way.
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataSqueal", targets: ["StrataSqueal"]),
        .library(name: "StrataSQift", targets: ["StrataSQift"]),
        .library(name: "StrataSwiftly", targets: ["StrataSwiftly"]),
        .library(name: "StrataORM", targets: ["StrataORM"]),
        .library(name: "StrataRecords", targets: ["StrataRecords"]),
        .library(name: "StrataSync", targets: ["StrataSync"]),
        // For an app's tests: temporary databases, an in-process sync hub, and with the trait
        // `Snapshots` `assertQuery`'s inline snapshots (swift-snapshot-testing, which a package
        // that does not enable the trait never fetches).
        .library(name: "StrataTesting", targets: ["StrataTesting", "StrataTestFixtures"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
        // Tests only: the fault-injecting VFS as a shared library, preloaded (LD_PRELOAD) into the
        // `strata` binary by the CLI fault tests, or into a whole test run with faults off.
        .library(name: "StrataFaultVFSPreload", type: .dynamic, targets: ["StrataFaultVFS"]),
        // Logging, metrics, tracing and graceful shutdown for server programs (swift-server ecosystem).
        .library(name: "StrataServer", targets: ["StrataServer"]),
        // StrataSync's hub over HTTP (Hummingbird), for embedding in a server, and as a command.
        .library(name: "StrataSyncHub", targets: ["StrataSyncHub"]),
        // The hub's store on PostgreSQL (the `Hub` trait): several hub processes on one database.
        .library(name: "StrataSyncPostgres", targets: ["StrataSyncPostgres"]),
        .executable(name: "strata-sync-hub", targets: ["strata-sync-hub"]),
    ],
    // The server stack (swift-log, swift-metrics, swift-distributed-tracing, service-lifecycle) is
    // behind a trait that is off by default, so a package that depends on Strata, StrataRecords or
    // any other product neither fetches nor builds it; `StrataServer` users enable it with
    // `.package(url: ..., from: ..., traits: ["Server"])`, and `swift test --traits Server` runs
    // its suite here.
    traits: [
        .trait(name: "Server", description: "StrataServer: logs, metrics, spans and ServiceLifecycle around a Database."),
        .trait(name: "Hub", description: "StrataSyncHub and strata-sync-hub: StrataSync's hub over HTTP (Hummingbird, JWT)."),
        .trait(name: "Snapshots", description: "StrataTesting's assertQuery: inline snapshots (swift-snapshot-testing)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The @Record macro's compiler plugin (only the macro target links it); it builds with
        // 600.0.1, 602.0.0 and 603.0.1.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        // The macro's expansion and diagnostic tests (inline snapshots of what it writes).
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
        // StrataTesting's `assertQuery` only, behind the trait `Snapshots`.
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.0"),
        // StrataServer only: the core `Strata` module depends on none of these. Ranges, not pins,
        // so an app that needs another 1.x (or 2.x) of one can still depend on Strata.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // StrataSyncHub only (the `Hub` trait): the HTTP server and JWT verification.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // StrataSyncPostgres only (the `Hub` trait): the hub's store on PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "SQLite3",
            path: "Sources/SQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The session extension's declarations, on every platform: Apple's libsqlite3 exports the
        // functions, but no SDK header declares them (nor does a system-library shim's, for its
        // importers), so changesets and StrataSync compile from Strata's own header everywhere.
        .target(name: "StrataSQLiteSession", path: "Sources/StrataSQLiteSession"),
        // The kernel: values, connections, statements, rows, transactions, hooks, functions,
        // maintenance and composed SQL. It knows no schema and no concurrency.
        .target(name: "StrataKernel", dependencies: [sqliteDependency],
                swiftSettings: [.define("STRATA_SQLITE_SHIM", .when(platforms: [.linux, .android, .windows, .openbsd, .wasi]))]),
        // Tables: the one table definition, introspection, the schema DSL, rebuilds, migrators.
        .target(name: "StrataSchema", dependencies: ["StrataKernel", sqliteDependency]),
        // The database layer (Database, queues, pools, observation) and the capabilities on it
        // (blobs, virtual tables, export), re-exporting the kernel and the schema: the
        // capabilities below build on their `package` API.
        .target(name: "StrataCore", dependencies: ["StrataKernel", "StrataSchema", sqliteDependency]),
        // Changesets over SQLite's session extension: record, invert, concatenate, apply, rebase,
        // stream, and the sync hub's own applier (on StrataCore's `package` API).
        .target(name: "StrataChangesets", dependencies: ["StrataCore", "StrataSQLiteSession", sqliteDependency]),
        // Vector columns, distances, exact and IVF nearest-neighbour search.
        .target(name: "StrataVectors", dependencies: ["StrataCore", sqliteDependency]),
        // FTS5: patterns built from user text, tokenizers, full-text tables in the schema DSL.
        .target(name: "StrataFullTextSearch", dependencies: ["StrataCore", sqliteDependency]),
        // Running beside Litestream: replication-safe settings and read replicas over its VFS.
        .target(name: "StrataReplication", dependencies: ["StrataCore", sqliteDependency]),
        // What `import Strata` brings: the targets above, re-exported.
        .target(name: "Strata", dependencies: ["StrataCore", "StrataChangesets", "StrataVectors", "StrataFullTextSearch", "StrataReplication"]),
        // Squeal's spellings (its type names, SQL helpers, getters, statement extras, transaction
        // forms, DatabasePool), for code ported by changing `import Squeal`; core carries none of them.
        .target(name: "StrataSqueal", dependencies: ["Strata", "StrataSQift", sqliteDependency]),
        // SQift's own spellings (openers with flags, executeRead/executeWrite), re-exporting Strata.
        .target(name: "StrataSQift", dependencies: ["Strata"]),
        // SQLite.swiftly's described tables, for code ported by changing `import SQLite_Swiftly`.
        .target(name: "StrataSwiftly", dependencies: ["Strata", "StrataSQift"]),
        .target(name: "StrataORM", dependencies: ["Strata", "StrataSQift", sqliteDependency]),
        // @Record: generated row mapping, persistence and typed columns (a product of its own, so
        // code that imports only Strata never builds swift-syntax).
        .macro(
            name: "StrataRecordsMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "StrataRecords", dependencies: ["Strata", "StrataRecordsMacros", sqliteDependency]),
        // Local-first replicas converging through a hub, over changesets (Strata only).
        .target(name: "StrataSync", dependencies: ["Strata", sqliteDependency]),
        // The command-line tool: target StrataCLI, product and binary `strata` (no two source
        // folders may differ only by case, which macOS's file systems would merge).
        .executableTarget(
            name: "StrataCLI",
            dependencies: ["Strata", "StrataSqueal", "StrataSwiftly", "StrataORM", "StrataRecords", "StrataSync", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Tests only: the shared test kit (temporary directories and databases, SQL assertions) and
        // seeded generators of hard inputs for the property-based and differential tests.
        // StrataTesting's temporary databases, apart from its snapshots so the core suites (and
        // the sanitizer builds) use them without swift-syntax.
        .target(name: "StrataTestFixtures", dependencies: ["Strata"]),
        .target(
            name: "StrataTesting",
            dependencies: [
                "Strata", "StrataRecords", "StrataSync", "StrataTestFixtures", sqliteDependency,
                .product(name: "InlineSnapshotTesting", package: "swift-snapshot-testing", condition: .when(traits: ["Snapshots"])),
            ]
        ),
        .testTarget(name: "StrataTestingTests", dependencies: ["StrataTesting", "StrataRecords", "StrataSync", "StrataTestSupport", sqliteDependency]),
        .target(name: "StrataTestSupport", dependencies: ["StrataSQift", "Strata", "StrataSync", "StrataTestFixtures", sqliteDependency], path: "Tests/StrataTestSupport"),
        .testTarget(name: "StrataTests", dependencies: ["StrataSQift", "Strata", "StrataCore", "StrataVectors", "StrataSwiftly", sqliteDependency, "strata-blob-stream", "StrataTestSupport"]),
        // The capabilities beside the kernel, each tested in a target of its own.
        .testTarget(name: "StrataVectorsTests", dependencies: ["StrataSQift", "Strata", "StrataCore", "StrataVectors", sqliteDependency, "StrataTestSupport"]),
        .testTarget(name: "StrataFullTextSearchTests", dependencies: ["StrataSQift", "Strata", "StrataCore", "StrataFullTextSearch", sqliteDependency, "StrataTestSupport"]),
        .testTarget(name: "StrataChangesetsTests", dependencies: ["StrataSQift", "Strata", "StrataCore", "StrataChangesets", sqliteDependency, "StrataTestSupport"]),
        .testTarget(name: "StrataReplicationTests", dependencies: ["StrataSQift", "Strata", "StrataCore", "StrataReplication", sqliteDependency, "StrataTestSupport"]),
        // Tests only: the "strata-faults" VFS, which fails chosen file calls below SQLite.
        .target(name: "StrataFaultVFS", path: "TestSupport/StrataFaultVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Sweeps of I/O errors, full disks and failed syncs under every layer, and the CLI's.
        .testTarget(
            name: "StrataFaultTests",
            dependencies: ["StrataSQift", "StrataFaultVFS", "Strata", "StrataCore", "StrataSqueal", "StrataORM", "StrataRecords", "StrataCLI", sqliteDependency, "StrataTestSupport"]
        ),
        .testTarget(name: "StrataSquealTests", dependencies: ["StrataSQift", "StrataSqueal", sqliteDependency, "StrataTestSupport"]),
        .testTarget(name: "StrataSwiftlyTests", dependencies: ["StrataCore", "StrataSwiftly", "Strata", sqliteDependency, "StrataTestSupport"]),
        .testTarget(name: "StrataORMTests", dependencies: ["StrataSQift", "StrataORM", sqliteDependency, "StrataTestSupport"]),
        // The writer process the Litestream crash test kills (not a product; tests only).
        .executableTarget(name: "strata-crash-writer", dependencies: ["StrataSQift", "Strata"], path: "TestSupport/strata-crash-writer"),
        // The reader process the read-replica test starts with LITESTREAM_REPLICA_URL set (tests only).
        .executableTarget(name: "strata-replica-reader", dependencies: ["StrataSQift", "Strata"], path: "TestSupport/strata-replica-reader"),
        .testTarget(name: "StrataCLITests", dependencies: ["StrataSQift", "StrataCLI", "strata-crash-writer", "strata-replica-reader", "Strata", "StrataSync", "StrataTestSupport"]),
        .testTarget(name: "StrataRecordsTests", dependencies: ["StrataSQift", "StrataCore", "StrataVectors", "StrataRecords", sqliteDependency, "StrataTestSupport"]),
        .testTarget(
            name: "StrataRecordsMacrosTests",
            dependencies: [
                "StrataRecordsMacros",
                "StrataTestSupport",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        // The README's examples word for word, run in order and checked against what they print.
        // Each file sees only the members its own imports bring, as the reader's file would: the
        // core examples must not find StrataSqueal's non-throwing `Connection()`.
        .testTarget(
            name: "READMEExamplesTests",
            dependencies: ["StrataSQift", "StrataSqueal", "StrataSwiftly", "StrataORM", "StrataRecords", "StrataSync"],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Seed-README code in Swift 5 language mode, one target per module a seed's users import.
        .testTarget(name: "SQiftSwift5Tests", dependencies: ["StrataSQift", "StrataCore", "Strata", sqliteDependency, "StrataTestSupport"], swiftSettings: swift5),
        .testTarget(name: "SquealSwift5Tests", dependencies: ["StrataSQift", "StrataSqueal"], swiftSettings: swift5),
        .testTarget(name: "SwiftlySwift5Tests", dependencies: ["StrataSQift", "StrataSwiftly", "StrataTestSupport"], swiftSettings: swift5),
        .testTarget(name: "ORMSwift5Tests", dependencies: ["StrataSQift", "StrataORM"], swiftSettings: swift5),
        .testTarget(name: "RecordsSwift5Tests", dependencies: ["StrataSQift", "StrataRecords", "StrataTestSupport"], swiftSettings: swift5),
        // With the `Hub` trait, the model-based test also runs against the PostgreSQL store.
        .testTarget(name: "StrataSyncTests", dependencies: ["StrataSQift", 
            "StrataSync", "StrataTestSupport", "strata-sync-writer", sqliteDependency,
            .target(name: "StrataSyncPostgres", condition: .when(traits: ["Hub"])),
            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Hub"])),
        ]),
        // The replica process StrataSync's crash test kills (tests only).
        .executableTarget(name: "strata-sync-writer", dependencies: ["StrataSQift", "Strata", "StrataSync"], path: "TestSupport/strata-sync-writer"),
        .testTarget(name: "SyncSwift5Tests", dependencies: ["StrataSQift", "StrataSync"], swiftSettings: swift5),
        // Statement logs, metrics and spans, and the Database as a ServiceLifecycle service.
        .target(
            name: "StrataServer",
            dependencies: [
                "Strata",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
            ]
        ),
        .testTarget(
            name: "StrataServerTests",
            dependencies: ["StrataSQift", 
                "StrataServer", "StrataTestSupport",
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
            ]
        ),
        // The process the blob-stream memory test runs and measures (peak RSS; tests only).
        .executableTarget(name: "strata-blob-stream", dependencies: ["StrataSQift", "Strata"], path: "TestSupport/strata-blob-stream"),
        // StrataSync's hub over HTTP: the routes and their authentication (shared token or JWT)
        // as a library, and the command that serves a folder of spaces.
        .target(
            name: "StrataSyncHub",
            dependencies: [
                "Strata", "StrataSync",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hub"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Hub"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hub"])),
                // Already Hummingbird's dependency: the hub's metrics cost no extra package.
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Hub"])),
                // Also Hummingbird's: a pull stream ends when the server shuts down gracefully.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Hub"])),
            ]
        ),
        // The hub's store on PostgreSQL: a space's tables as Postgres tables a backend can query
        // (postgres-nio only under the `Hub` trait, so `import StrataSync` never fetches it).
        .target(
            name: "StrataSyncPostgres",
            dependencies: [
                "Strata", "StrataSync",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Hub"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hub"])),
            ]
        ),
        .testTarget(
            name: "StrataSyncPostgresTests",
            dependencies: ["StrataSQift", 
                "StrataSyncPostgres", "StrataSync", "Strata", "StrataTestSupport",
                // The chaos test runs hub and replica processes.
                "strata-sync-hub", "strata-sync-writer",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Hub"])),
            ]
        ),
        .executableTarget(
            name: "strata-sync-hub",
            dependencies: [
                "Strata", "StrataSyncHub", "StrataSync", "StrataSyncPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hub"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hub"])),
            ]
        ),
        .testTarget(
            name: "StrataSyncHubTests",
            dependencies: ["StrataSQift", 
                "StrataSyncHub", "StrataSync", "strata-sync-hub", "StrataTestSupport",
                .byName(name: "StrataSyncPostgres", condition: .when(traits: ["Hub"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hub"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Hub"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Hub"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hub"])),
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Hub"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Hub"])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// CI's narrower passes (sanitizers, the server stack) each run a few suites, yet `swift test`
// builds every target: under a sanitizer the whole test bundle took ten minutes to build for
// twenty seconds of tests. With STRATA_TEST_TARGETS (comma-separated test target names) set,
// the package keeps those test targets, the targets they depend on, and the products made only of
// those. Unset, as for every user, nothing changes.
if let kept = Context.environment["STRATA_TEST_TARGETS"], !kept.isEmpty {
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var needed = Set<String>()
    let names = kept.split(separator: ",").map { String($0.filter { $0 != " " }) }
    // A misspelt name would quietly run fewer tests.
    for name in names where byName[name]?.type != .test {
        fatalError("STRATA_TEST_TARGETS: \(name) is not a test target of this package")
    }
    var pending = names
    while let name = pending.popLast() {
        guard let target = byName[name], needed.insert(name).inserted else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            default: break  // another package's product
            }
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(needed.contains)
    }
}
