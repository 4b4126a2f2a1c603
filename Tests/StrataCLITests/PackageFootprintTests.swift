#if os(Linux) || os(macOS)
import Foundation
import Testing
import StrataTestSupport

/// What a package that depends on Strata fetches: a client package in a temporary folder names
/// this repository by path and one product, `swift package resolve` runs, and the checkouts it
/// made are the answer. The server stack is behind the `Server` trait; test-only packages
/// (macro testing, snapshot testing) are never a client's.
///
/// Each case resolves a package (seconds apiece), so it stays out of the default `swift test`:
/// `.ci/run` runs the suite with `STRATA_FOOTPRINT_TESTS=1`.
@Suite(
    .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["STRATA_FOOTPRINT_TESTS"] != nil,
        "resolves packages: set STRATA_FOOTPRINT_TESTS=1 (.ci/run does)"))
struct PackageFootprintTests {
    static let serverStack: Set<String> = [
        "swift-log", "swift-metrics", "swift-distributed-tracing", "swift-service-lifecycle", "swift-nio",
        "swift-async-algorithms", "swift-service-context"
    ]
    static let testOnly: Set<String> = ["swift-macro-testing", "swift-snapshot-testing", "swift-custom-dump", "xctest-dynamic-overlay"]
    /// The hub's HTTP stack and its PostgreSQL store, behind the `Hub` trait.
    static let hubStack: Set<String> = ["hummingbird", "jwt-kit", "swift-crypto", "swift-certificates", "postgres-nio", "swift-nio-ssl"]

    @Test(arguments: ["Strata", "StrataRecords", "StrataSqueal", "StrataSwiftly", "StrataORM", "StrataSync", "StrataTesting"])
    func aClientOfOneProductFetchesNoServerStackAndNoTestPackage(product: String) async throws {
        let fetched = try await Self.resolveClient(product: product, traits: nil)
        let unwanted = fetched.intersection(Self.serverStack.union(Self.testOnly).union(Self.hubStack))
        #expect(unwanted.isEmpty, "a client of \(product) fetched \(unwanted.sorted()) (all: \(fetched.sorted()))")
        // What remains is what the products themselves need: the CLI's argument parser, and
        // swift-syntax for the @Record macro's plugin.
        #expect(fetched.isSubset(of: ["swift-argument-parser", "swift-syntax"]), "\(fetched.sorted())")
    }

    /// StrataTesting's `assertQuery` is behind the trait `Snapshots`: with it on, a client
    /// fetches swift-snapshot-testing, and still nothing of the server or hub stacks.
    @Test func theSnapshotsTraitFetchesSnapshotTesting() async throws {
        let fetched = try await Self.resolveClient(product: "StrataTesting", traits: ["Snapshots"])
        #expect(fetched.contains("swift-snapshot-testing"), "\(fetched.sorted())")
        #expect(fetched.intersection(Self.serverStack.union(Self.hubStack)).isEmpty, "\(fetched.sorted())")
    }

    /// The control: with the trait on, the same resolution does fetch the stack, so the test
    /// above sees checkouts where there are some.
    @Test func theServerTraitFetchesTheServerStack() async throws {
        let fetched = try await Self.resolveClient(product: "StrataServer", traits: ["Server"])
        for package in ["swift-log", "swift-metrics", "swift-distributed-tracing", "swift-service-lifecycle"] {
            #expect(fetched.contains(package), "\(package) missing from \(fetched.sorted())")
        }
        #expect(fetched.intersection(Self.testOnly).isEmpty, "\(fetched.sorted())")
    }

    /// The hub's control: a client of `StrataSyncHub` with the `Hub` trait fetches Hummingbird and
    /// jwt-kit (and a client of StrataSync without it, above, fetches neither).
    @Test func theHubTraitFetchesHummingbirdAndJWTKit() async throws {
        let fetched = try await Self.resolveClient(product: "StrataSyncHub", traits: ["Hub"])
        for package in ["hummingbird", "jwt-kit"] {
            #expect(fetched.contains(package), "\(package) missing from \(fetched.sorted())")
        }
        #expect(fetched.intersection(Self.testOnly).isEmpty, "\(fetched.sorted())")
    }

    /// The PostgreSQL store's control: a client of `StrataSyncPostgres` with the `Hub` trait
    /// fetches postgres-nio (and a client of StrataSync without it, above, does not).
    @Test func theHubTraitFetchesPostgresNIOForThePostgresStore() async throws {
        let fetched = try await Self.resolveClient(product: "StrataSyncPostgres", traits: ["Hub"])
        #expect(fetched.contains("postgres-nio"), "postgres-nio missing from \(fetched.sorted())")
        #expect(fetched.intersection(Self.testOnly).isEmpty, "\(fetched.sorted())")
    }

    /// The folder names under the client's `.build/checkouts` after `swift package resolve`,
    /// which runs for seconds: waited for on a thread of its own, so that the cooperative pool
    /// (two threads on CI) keeps running the tests beside it.
    private static func resolveClient(product: String, traits: [String]?) async throws -> Set<String> {
        try await onOwnThread { try resolveClientBlocking(product: product, traits: traits) }
    }

    private static func resolveClientBlocking(product: String, traits: [String]?) throws -> Set<String> {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sandbox = try Sandbox()
        let traitList = traits.map { ", traits: [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        try sandbox.write(
            """
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "Client",
                dependencies: [.package(name: "Strata", path: "\(repository.path)"\(traitList))],
                targets: [.executableTarget(name: "Client", dependencies: [.product(name: "\(product)", package: "Strata")])]
            )
            """, to: "Package.swift")
        try sandbox.write("import \(product)\n", to: "Sources/Client/main.swift")
        let result = try sandbox.run(try executable(named: "swift"), ["package", "resolve"], timeout: 300)
        guard result.status == 0 else {
            throw TestFailure(message: "swift package resolve failed (\(result.status)): \(result.stderr)\(result.stdout)")
        }
        let checkouts = sandbox.work.appendingPathComponent(".build/checkouts")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: checkouts.path)) ?? []
        return Set(names.map { $0.hasSuffix(".git") ? String($0.dropLast(4)) : $0 })
    }
}
#endif
