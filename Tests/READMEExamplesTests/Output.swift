// What the README's examples print, captured so each test compares it with the README's comments.
// The examples call `print` as written; inside this target that name is the capture below, which
// also echoes to standard output.
import Foundation

/// Everything the examples printed, one entry per `print` call.
final class PrintedLines: @unchecked Sendable {
    // @unchecked Sendable: `lines` is only touched under `lock`; observation callbacks print from
    // other threads.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    /// The lines printed since the last call, emptying the record.
    func take() -> [String] {
        lock.withLock {
            defer { lines = [] }; return lines
        }
    }

    /// Waits up to `seconds` until a line equal to `line` was printed; returns whether it was.
    func waitFor(_ line: String, seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if lock.withLock({ lines.contains(line) }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

let printed = PrintedLines()

/// Shadows `Swift.print` for the examples in this target: records the line, then prints it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    printed.append(line)
    Swift.print(line, terminator: terminator)
}

/// Runs the examples in a new empty folder, as the README asks, then goes back and removes it.
/// The working directory is the process's: the README suite runs its examples one after another.
func inNewFolder<T>(_ body: () async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-readme-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let previous = FileManager.default.currentDirectoryPath
    guard FileManager.default.changeCurrentDirectoryPath(folder.path) else {
        throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: folder.path])
    }
    defer {
        _ = FileManager.default.changeCurrentDirectoryPath(previous)
        try? FileManager.default.removeItem(at: folder)
    }
    return try await body()
}
