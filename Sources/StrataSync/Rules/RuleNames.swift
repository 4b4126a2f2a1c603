// The space's table and column names as rules resolve them.
import Foundation
import Strata

/// The space's names, keyed as a rule may spell them, with the keys that cannot be resolved.
///
/// Swift's `String` compares by canonical equivalence and `lowercased()` folds every script,
/// where SQLite compares a name's bytes folding ASCII only and PostgreSQL compares a quoted
/// name's bytes exactly. Two names the stores keep apart (`"é"` precomposed and decomposed,
/// `"É"` and `"é"`, `"Owner"` in one table and `"owner"` in another) can meet under one key here;
/// a rule naming such a key is refused rather than resolved to a name one store would read as
/// another column.
struct RuleNames: Sendable {
    private var spellings: [String: String] = [:]
    /// Each ambiguous key with every spelling it met, in the order met.
    private var clashes: [String: [String]] = [:]

    /// Adds one table or column name of the space.
    mutating func add(_ name: String) {
        let key = name.lowercased()
        guard let known = spellings[key] else {
            spellings[key] = name
            return
        }
        let seen = clashes[key] ?? [known]
        guard !seen.contains(where: { $0.utf8.elementsEqual(name.utf8) }) else { return }
        clashes[key] = seen + [name]
    }

    /// The space's spelling of `word`, or nil when the space has no such name.
    /// - Throws: ``SyncError/invalidRules(_:)`` when `word` could name more than one of them.
    func spelling(of word: String, place: String) throws -> String? {
        let key = word.lowercased()
        if let spellings = clashes[key] {
            throw SyncError.invalidRules(
                "\(place): \(word) could name any of "
                    + spellings.map { quoteIdentifier($0) }.joined(separator: ", ")
                    + ", which the hub's stores tell apart by their bytes; give each table and column one spelling (rename one)")
        }
        return spellings[key]
    }

    /// Whether the space has a name `word` could resolve to, ambiguous or not.
    func knows(_ word: String) -> Bool { spellings[word.lowercased()] != nil }

    /// The space's spelling of an unambiguous `word` (nil when unknown or ambiguous).
    subscript(word: String) -> String? {
        let key = word.lowercased()
        return clashes[key] == nil ? spellings[key] : nil
    }

    /// Two tables whose names clash, if any: rules are keyed by table, so no rule of such a space
    /// could say which one it follows.
    func tableClash(among tables: [String]) -> [String]? {
        for table in tables {
            if let spellings = clashes[table.lowercased()], spellings.filter({ s in tables.contains { $0.utf8.elementsEqual(s.utf8) } }).count > 1 {
                return spellings.filter { s in tables.contains { $0.utf8.elementsEqual(s.utf8) } }
            }
        }
        return nil
    }
}
