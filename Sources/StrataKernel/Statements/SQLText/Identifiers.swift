// Comparing names as SQLite compares them: UTF-8 bytes with ASCII letters folded, never
// Unicode case folding or canonical equivalence.
import Foundation

/// Whether `text` is a bare identifier (`[A-Za-z_][A-Za-z0-9_]*`), which names the same thing
/// quoted or not, except that quoting also admits keywords such as `order`.
package func isPlainIdentifier(_ text: String) -> Bool {
    var utf8 = text.utf8.makeIterator()
    guard let first = utf8.next(), first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")) else {
        return false
    }
    while let byte = utf8.next() {
        let isLetter = byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")
        let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        guard isLetter || isDigit || byte == UInt8(ascii: "_") else { return false }
    }
    return true
}

/// Whether SQLite reads `a` and `b` as the same identifier: equal but for ASCII letter case
/// (SQLite folds only ASCII; quoting a near-miss would turn it into a string literal).
package func sameIdentifier(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8) { x, y in
        x == y || (x | 0x20 == y | 0x20 && x | 0x20 >= UInt8(ascii: "a") && x | 0x20 <= UInt8(ascii: "z"))
    }
}

/// Whether two strings hold the same UTF-8 bytes: how SQL text and names are compared (Swift's
/// `==` also calls canonically equivalent strings equal, such as `é` and `e` + U+0301).
@inlinable
package func sameBytes(_ left: String, _ right: String) -> Bool {
    guard left.utf8.count == right.utf8.count else { return false }
    let compared: Bool? =
        left.utf8.withContiguousStorageIfAvailable { l in
            right.utf8.withContiguousStorageIfAvailable { r in
                guard let a = l.baseAddress, let b = r.baseAddress else { return l.count == r.count }
                return memcmp(a, b, l.count) == 0
            }
        } ?? nil
    return compared ?? left.utf8.elementsEqual(right.utf8)
}

/// A set of names compared as SQLite compares identifiers: by their UTF-8 bytes with ASCII
/// letters folded, never by Unicode case folding or canonical equivalence (a `Set<String>` of
/// lowercased names calls `É_data` and `é_data`, or `é` and `e` + U+0301, the same table).
package struct IdentifierSet: Hashable, Sendable, ExpressibleByArrayLiteral {
    private var keys: Set<[UInt8]>

    package init() { keys = [] }
    package init<Names: Sequence<String>>(_ names: Names) { keys = Set(names.map(Self.key)) }
    package init(arrayLiteral names: String...) { self.init(names) }

    /// The bytes SQLite compares: ASCII upper case folded to lower case, nothing else.
    package static func key(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }

    package var isEmpty: Bool { keys.isEmpty }
    package var count: Int { keys.count }
    package func contains(_ name: String) -> Bool { keys.contains(Self.key(name)) }
    package mutating func insert(_ name: String) { keys.insert(Self.key(name)) }
    package mutating func formUnion<Names: Sequence<String>>(_ names: Names) { for name in names { insert(name) } }
    package mutating func subtract(_ other: IdentifierSet) { keys.subtract(other.keys) }
    package func subtracting(_ other: IdentifierSet) -> IdentifierSet { var copy = self; copy.subtract(other); return copy }
    package func intersection(_ other: IdentifierSet) -> IdentifierSet { var copy = self; copy.keys.formIntersection(other.keys); return copy }
}

/// Whether `name` starts with `prefix` as SQLite compares identifiers (bytes, ASCII folded).
package func identifier(_ name: String, hasPrefix prefix: String) -> Bool {
    let key = IdentifierSet.key(name)
    let prefixKey = IdentifierSet.key(prefix)
    return key.count >= prefixKey.count && key.prefix(prefixKey.count).elementsEqual(prefixKey)
}
