// swift-tools-version:6.0
import PackageDescription

// `SQLite3` wraps the system library on platforms that do not ship an `SQLite3` module.
let sqliteDependency: Target.Dependency = .target(
    name: "SQLite3",
    condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])
)

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .executable(name: "strata", targets: ["strata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "SQLite3",
            path: "Sources/SQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "Strata", dependencies: [sqliteDependency]),
        .executableTarget(
            name: "strata",
            dependencies: ["Strata", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "StrataTests", dependencies: ["Strata", sqliteDependency]),
    ],
    swiftLanguageModes: [.v6]
)
