// swift-tools-version:6.0
import Foundation
import PackageDescription

// Strata by path (the directory above); its package identity is that directory's name.
let strataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let strataIdentity = strataDirectory.lastPathComponent.lowercased()

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // Vapor's SQLite driver, a contender on insert, fetch and model fetch.
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
    ],
    targets: [
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                .product(name: "Strata", package: strataIdentity),
                // The workloads measure SQift's bare connections and queues as well.
                .product(name: "StrataSQift", package: strataIdentity),
                .product(name: "StrataORM", package: strataIdentity),
                .product(name: "StrataRecords", package: strataIdentity),
                .product(name: "StrataSqueal", package: strataIdentity),
                .product(name: "StrataSync", package: strataIdentity),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            // SwiftNIO's and sqlite-nio's C files carry DWARF 5 debug info, which valgrind 3.19
            // cannot read: callgrind (../shared/tools/callgrind-bench.sh) then refuses the whole
            // binary. A release binary keeps its symbols, which is all callgrind's counts need.
            // --strip-debug is GNU ld's (and lld's) spelling; Apple's ld has none.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--strip-debug"], .when(platforms: [.linux], configuration: .release))]
        ),
    ],
    swiftLanguageModes: [.v6]
)
