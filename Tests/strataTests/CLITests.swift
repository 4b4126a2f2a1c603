import Foundation
import Testing

/// The built `strata` binary, next to the test bundle.
func strataBinary() -> URL {
    var directory = Bundle.main.bundleURL
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        directory = bundle.bundleURL.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("strata")
}

@Test func helpRuns() throws {
    let process = Process()
    process.executableURL = strataBinary()
    process.arguments = ["--help"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(output.contains("tour"))
}
