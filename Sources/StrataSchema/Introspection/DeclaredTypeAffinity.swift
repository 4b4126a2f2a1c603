// Column affinity from a declared type, by SQLite's rules, for code that compares declared types.

import StrataKernel
import Foundation

/// A column's type affinity (<https://www.sqlite.org/datatype3.html#type_affinity>).
package enum DeclaredTypeAffinity: Sendable, Equatable {
    case integer, text, blob, real, numeric

    /// The affinity SQLite gives a column declared with `declaredType`: the first of SQLite's five
    /// rules that matches, on the type's ASCII letters in any case (so `"text"`, `"TEXT"` and
    /// `"VARCHAR(20)"` are all TEXT, and an empty type is BLOB).
    package init(declaredType: String) {
        let upper = String(decoding: declaredType.utf8.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
        if upper.contains("INT") {
            self = .integer
        } else if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") {
            self = .text
        } else if upper.contains("BLOB") || upper.utf8.allSatisfy({ $0 == 0x20 || (0x09...0x0D).contains($0) }) {
            self = .blob
        } else if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// The affinity's name, which is also a declared type that has it (`INTEGER`, `TEXT`, ...).
    package var name: String {
        switch self {
        case .integer: "INTEGER"
        case .text: "TEXT"
        case .blob: "BLOB"
        case .real: "REAL"
        case .numeric: "NUMERIC"
        }
    }
}
