import Foundation

/// Text forms shared by the writers.
enum ValueText {
    /// A real as Swift prints it (`2.5`, `100.0`, `1e-07`): the shortest text that reads back
    /// as the same `Double`.
    static func real(_ value: Double) -> String {
        if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
        return "\(value)"
    }

    /// Text with line breaks and tabs escaped, so a table row stays one line.
    static func singleLine(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0 == "\t" }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\r\\n")
            .replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
            .replacingOccurrences(of: "\t", with: "\\t")
    }

    /// A blob as an SQL hex literal, cut after 32 bytes.
    static func blobHex(_ data: Data) -> String {
        let hex = data.prefix(32).map { String(format: "%02X", $0) }.joined()
        return "x'\(hex)'" + (data.count > 32 ? "… (\(data.count) bytes)" : "")
    }
}
