import Foundation

// Kept apart from files that import Strata: there, operators and C names are looked up across
// both sqlite3.h module definitions (the system's and sqlite-nio's), which clang refuses as
// different definitions of `sqlite3_module`.

/// A process this test started; killed (SIGKILL) when released, so no run leaves one behind.
final class ChaosChild: @unchecked Sendable {
    // @unchecked Sendable: set up in init, then only signalled and waited for, which Foundation's
    // Process allows from any thread.
    let process = Process()

    init(_ binary: URL, _ arguments: [String], log: URL) throws {
        process.executableURL = binary
        process.arguments = arguments
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { kill9() }
}

/// splitmix64, seeded, so a failing run replays.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
