// swift-tools-version:6.1
import PackageDescription

// What StrataServer's instrumentation costs per statement, counted in instructions (callgrind):
// a one-row primary-key read with instrumentation off, logging at .info, metrics to a real
// backend (swift-prometheus), tracing with a no-op tracer, and all three. Release only; not run
// by CI (see run.sh).
let package = Package(
    name: "InstrumentationCost",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: "../..", traits: ["Server"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "instrumentation-cost",
            dependencies: [
                .product(name: "StrataServer", package: "Strata"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // valgrind 3.19 cannot read the DWARF 5 of some C dependencies and would refuse the
            // binary; symbols are all callgrind's counts need (as in ../Package.swift).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--strip-debug"], .when(platforms: [.linux], configuration: .release))]
        ),
    ]
)
