#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)) // no child processes there
import Foundation
import StrataTestSupport
import Testing

/// Runs `strata-blob-stream` (built next to the test bundle) and returns its peak RSS in KiB.
private func peakResidentKiB(streaming mebibytes: Int, in directory: TemporaryDirectory) throws -> Int {
    let binary = try builtExecutable(named: "strata-blob-stream")
    let process = ChildProcess()
    process.executableURL = binary
    process.arguments = [String(mebibytes), directory.url.path]
    // Under AddressSanitizer freed chunks wait in its quarantine (256 MB by default), which would
    // count as resident: keep it small, so the run measures the blob code and not the sanitizer.
    var environment = ProcessInfo.processInfo.environment
    let asanOptions = environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
    environment["ASAN_OPTIONS"] = asanOptions + "quarantine_size_mb=1"
    process.environment = environment
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BlobStreamFailure(message: "strata-blob-stream \(mebibytes) exited \(process.terminationStatus): \(errorText)")
    }
    for line in text.split(separator: "\n") where line.hasPrefix("peak-rss-kib ") {
        if let value = Int(line.dropFirst("peak-rss-kib ".count)) { return value }
    }
    throw BlobStreamFailure(message: "no peak RSS in \(text)")
}

private struct BlobStreamFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

@Suite struct BlobMemoryTests {
    /// 100 MiB in through an async chunk stream and out again, against a 1 MiB run: the peak RSS
    /// grows by far less than the blob.
    @Test func aHundredMegabytesStreamInConstantMemory() async throws {
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let baseline = try peakResidentKiB(streaming: 1, in: directory)
            let large = try peakResidentKiB(streaming: 100, in: directory)
            let growth = large - baseline
            print("blob stream peak RSS: 1 MiB run \(baseline) KiB, 100 MiB run \(large) KiB, growth \(growth) KiB")
            // Under AddressSanitizer the growth is noise-dominated: its shadow memory, quarantine
            // and allocator metadata grow with what SQLite's page cache and the chunk buffers
            // touch (fresh-clone CI runs measured 49 MiB and 91 MiB). The 40 MiB bound of the
            // uninstrumented run in `swift test` is the real check; under ASan the run is there
            // for ASan's own checks, and 160 MiB only catches a gross regression (two copies of
            // the blob; one copy, 100 MiB plus ASan's shadow, can hide in that noise).
            let underAddressSanitizer = ProcessInfo.processInfo.environment["STRATA_SANITIZER"] == "address"
            let bound = (underAddressSanitizer ? 160 : 40) * 1024
            #expect(growth < bound, "streaming 100 MiB raised the peak RSS by \(growth) KiB (bound \(bound) KiB)")
        }
    }
}
#endif
