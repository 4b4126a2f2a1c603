import Foundation
#if canImport(SQLite3)
import SQLite3
#endif

/// The named parameters of one compiled statement, read from SQLite once so that a named bind
/// looks each name up in memory instead of asking `sqlite3_bind_parameter_index` (a walk of the
/// statement's name list with a string comparison per name) for every value of every row.
///
/// Names match as SQLite matches them, by their UTF-8 bytes: `:é` written precomposed and as
/// `e` + U+0301 are two parameters to SQLite, though equal Swift strings.
final class ParameterNameTable {
    /// Each parameter's name with its prefix, by index - 1; nil for a nameless `?`.
    private let names: [String?]
    /// Name with its prefix (`:id`) → index.
    private let prefixedIndexes: [String: Int32]
    /// Name without its `:`, `@` or `$` → index of the first of `:name`, `@name`, `$name` the
    /// statement has, in that order: Squeal's bare names.
    private let bareIndexes: [String: Int32]

    /// The prefixes a bare name may stand for, in the order they are tried.
    private static let barePrefixes: [UInt8] = [UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "$")]

    init(_ handle: SQLiteStatementHandle) {
        let count = sqlite3_bind_parameter_count(handle)
        var names: [String?] = []
        names.reserveCapacity(Int(max(count, 0)))
        var prefixed: [String: Int32] = [:]
        if count > 0 {
            for index in 1...count {
                let name = sqlite3_bind_parameter_name(handle, index).map { String(cString: $0) }
                names.append(name)
                if let name, prefixed[name] == nil { prefixed[name] = index }
            }
        }
        var bare: [String: Int32] = [:]
        for prefix in Self.barePrefixes {
            for (offset, name) in names.enumerated() {
                guard let name, name.utf8.first == prefix else { continue }
                let rest = String(decoding: name.utf8.dropFirst(), as: UTF8.self)
                if bare[rest] == nil { bare[rest] = Int32(offset + 1) }
            }
        }
        self.names = names
        prefixedIndexes = prefixed
        bareIndexes = bare
    }

    /// The index of the parameter named `name`, prefix included, or 0: what
    /// `sqlite3_bind_parameter_index` answers, except that a name holding a NUL names nothing
    /// (SQLite would read the C string up to the NUL).
    package func indexOfParameter(prefixedName name: String) -> Int32 {
        // No equal Swift string, so no name of the same bytes either.
        guard let index = prefixedIndexes[name] else { return 0 }
        if let stored = names[Int(index) - 1], sameParameterName(stored, name) { return index }
        // A canonically equal name with other bytes: compare bytes, as SQLite does.
        for (offset, stored) in names.enumerated() {
            if let stored, sameBytes(stored, name) { return Int32(offset + 1) }
        }
        return 0
    }

    /// The index of the parameter named `name` with its prefix (`:id`, `@id`, `$id`, `?1`) or
    /// without it (`id`, for the first of `:id`, `@id`, `$id`), or 0: Squeal's lookup, which
    /// once built three prefixed strings and an array per name.
    package func indexOfParameter(bareOrPrefixedName name: String) -> Int32 {
        let index = indexOfParameter(prefixedName: name)
        if index > 0 { return index }
        // A name that starts with a prefix (as a whole Character) is only itself.
        if let first = name.first, ":@$?".contains(first) { return 0 }
        guard let index = bareIndexes[name] else { return 0 }
        // The table keeps the first prefix of each name, so a match of its bytes is the answer.
        if let stored = names[Int(index) - 1], Self.isBare(name, of: stored) { return index }
        return firstBareMatch(name) ?? 0
    }

    /// The index of the first of `:name`, `@name`, `$name` by bytes, or nil.
    private func firstBareMatch(_ name: String) -> Int32? {
        for prefix in Self.barePrefixes {
            for (offset, stored) in names.enumerated() {
                if let stored, stored.utf8.first == prefix, Self.isBare(name, of: stored) { return Int32(offset + 1) }
            }
        }
        return nil
    }

    /// Whether `stored` is one prefix byte followed by `name`'s bytes.
    private static func isBare(_ name: String, of stored: String) -> Bool {
        stored.utf8.count == name.utf8.count + 1 && stored.utf8.dropFirst().elementsEqual(name.utf8)
    }
}

/// Whether two parameter names have the same UTF-8 bytes. Strings with the same representation
/// (the same literal, the same small string, the same storage) do, which settles the usual case
/// of a bind that passes the same names row after row in two comparisons; `==` alone would
/// call canonically equivalent names with other bytes the same.
@inline(__always)
func sameParameterName(_ left: String, _ right: String) -> Bool {
    if unsafeBitCast(left, to: (UInt64, UInt64).self) == unsafeBitCast(right, to: (UInt64, UInt64).self) { return true }
    return sameBytes(left, right)
}
