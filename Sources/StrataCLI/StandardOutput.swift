import Foundation

/// Standard output with a buffer of its own: rows are appended as text and written in large
/// chunks, instead of one locked `print` per row.
final class StandardOutput {
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16

    init() { buffer.reserveCapacity(capacity) }

    deinit { flush() }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
