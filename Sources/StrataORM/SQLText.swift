import Foundation

extension String {
    /// The string as an SQL identifier: in double quotes, inner quotes doubled.
    var quotedIdentifier: String { escapeIdentifier(self) }
}

/// An SQL literal for a value, for the places SQLite accepts no parameters (a column's DEFAULT
/// in CREATE TABLE, a fill value in a table rebuild). Text quotes are doubled; blobs are hex.
@usableFromInline
func sqlLiteral(_ value: BindingValue) -> String {
    switch value {
    case .null:
        return "NULL"
    case .integer(let integer):
        return String(integer)
    case .real(let real):
        if real.isNaN { return "NULL" }
        if real.isInfinite { return real > 0 ? "9e999" : "-9e999" }
        return "\(real)"
    case .text(let text):
        return text.sqift.addingSQLEscapes()
    case .blob(let data):
        return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
    }
}
