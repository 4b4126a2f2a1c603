#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation

/// The folders SwiftPM may have built the package's products into: the running test binary's own,
/// and that of every loaded test bundle.
public func builtProductFolders() -> [URL] {
    // The executable's own absolute path first: a relative `argv[0]` resolves against the current
    // directory, which the README suite moves while other suites run.
    var folders = Bundle.main.executableURL.map { [$0.deletingLastPathComponent()] } ?? []
    folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        folders.append(bundle.bundleURL.deletingLastPathComponent())
    }
    return folders
}

/// The executable product `name` (a test tool or the `strata` binary), built next to the tests.
/// - Throws: ``MissingProduct`` when no folder of ``builtProductFolders()`` holds it.
public func builtExecutable(named name: String) throws -> URL {
    let folders = builtProductFolders()
    guard
        let executable = folders.map({ $0.appendingPathComponent(name) })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
    else {
        throw MissingProduct(description: "no \(name) next to the tests in \(folders.map(\.path))")
    }
    return executable
}

/// A product the tests need that the build did not leave next to them.
public struct MissingProduct: Error, CustomStringConvertible {
    public let description: String
}

/// Runs `executable` with `arguments` to its end, with its standard output and error merged into
/// one pipe: its exit status and what it wrote. `environment` nil passes this process's own, and
/// `directory` nil runs it in this process's current directory.
public func runToEnd(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil
) throws -> (status: Int32, output: String) {
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = directory
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
#endif
