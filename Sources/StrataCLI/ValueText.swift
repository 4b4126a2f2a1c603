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
        // Unicode scalars, not Characters: "\r\n" is one Character and so is a quote before a mark.
        guard text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\t" }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\r": result.append(contentsOf: "\\r".unicodeScalars)
            case "\t": result.append(contentsOf: "\\t".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// A blob as an SQL hex literal, cut after 32 bytes.
    static func blobHex(_ data: Data) -> String {
        let hex = data.prefix(32).map { String(format: "%02X", $0) }.joined()
        return "x'\(hex)'" + (data.count > 32 ? "… (\(data.count) bytes)" : "")
    }
}
