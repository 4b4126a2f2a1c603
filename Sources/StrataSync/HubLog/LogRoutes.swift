// A log per bucket: each logged entry is filed under routes (bytes) naming what it touched, so a
// pull with a view reads only the entries that can move a row of its view, not the whole log.
//
// A data rule whose top-level conjuncts include `column = bucket.p` (or `= auth.claim`) holds
// only rows whose column equals the instance's value: each row an entry changes is filed under
// each such column's value before and after the change (with the row's key), and a pull asks for
// its instances' values. A rule of any other shape files its table whole. Every entry is also
// filed under each row key it changes: a pull reads the whole history after its cursor of every
// row it found under its values, because a row's state at the cursor is rebuilt from its oldest
// change, and a partial history (a row that left the view, then changed again under another
// value) would rebuild it wrong. A row never filed under the pull's values since the cursor was
// outside the view all along, so the entries that only touch it need not be read.
//
// Values are filed under keys that are a superset of SQLite's `=`: the text '5' under both its
// text and its number, so a row is never missed where `=` converts.
import Foundation
import Strata

package enum LogRoutes {
    /// One route an entry is filed under, with the row (its ``row(_:key:)`` route) a value
    /// route was filed for; empty for a table's and a row's own routes.
    package struct Filed: Hashable, Sendable {
        package var route: Data
        package var row: Data
        package init(route: Data, row: Data) { self.route = route; self.row = row }
    }

    /// What a store found under some routes after a version: the versions, and the rows filed
    /// under them. Not `complete` when it stopped at its limit of rows (the caller then reads the
    /// log whole).
    package struct Found: Sendable {
        package var versions: [Int64] = []
        package var rows: Set<Data> = []
        package var complete = true
        package init(versions: [Int64] = [], rows: Set<Data> = [], complete: Bool = true) {
            self.versions = versions; self.rows = rows; self.complete = complete
        }
    }

    /// The most (version, row) pairs a pull reads from the routes before it reads the log whole:
    /// a bound on its memory.
    static let largestFind = 200_000

    /// What `query` finds under `routes`, asked 500 routes a statement (each store's placeholder
    /// limit is far above): `query` returns the (version, row) pairs filed under a chunk after
    /// the caller's version, at most the count it is given; past ``largestFind`` pairs in all
    /// the find is not complete.
    package static func find(
        routes: [Data], limit: Int, _ query: (_ chunk: ArraySlice<Data>, _ most: Int) throws -> [(version: Int64, row: Data)]
    ) rethrows -> Found {
        var found = Found()
        var versions: Set<Int64> = []
        var pairs = 0
        var start = 0
        while start < routes.count {
            let chunk = routes[start..<min(routes.count, start + 500)]
            start += chunk.count
            for (version, row) in try query(chunk, largestFind - pairs + 1) {
                pairs += 1
                if pairs > largestFind { return Found(complete: false) }
                versions.insert(version)
                if !row.isEmpty { found.rows.insert(row) }
            }
        }
        found.versions = Array(versions.sorted().prefix(limit))
        return found
    }

    /// The route of every entry touching `table` (lower-cased).
    static func table(_ table: String) -> Data { Data(table.lowercased().utf8) + Data([0]) }

    /// The route of entries whose pinned values in `table` are not all known (a patchset's
    /// DELETE): every pull that reads `table` by its pinned values reads these too.
    static func anyValue(_ table: String) -> Data { Data(table.lowercased().utf8) + Data([0, 3]) }

    /// The route of entries touching the row of `table` with `key`.
    static func row(_ table: String, key: [BindingValue]) -> Data {
        var bytes = Data(table.lowercased().utf8) + Data([0, 1])
        for value in key {
            // The row key exactly (one spelling per value), each value's length first.
            let encoded = exactKey(value)
            bytes.append(contentsOf: withUnsafeBytes(of: UInt32(encoded.count).bigEndian) { Array($0) })
            bytes.append(contentsOf: encoded)
        }
        return bytes
    }

    /// The routes of entries where `table`'s `column` held `value` before or after a change.
    static func column(_ table: String, _ column: String, value: BindingValue) -> [Data] {
        let prefix = Data(table.lowercased().utf8) + Data([0, 2]) + Data(column.lowercased().utf8) + Data([0])
        return equalityKeys(value).map { prefix + $0 }
    }

    /// One byte string per value, equal only for equal values (row keys, which a changeset
    /// carries exactly as the table holds them).
    static func exactKey(_ value: BindingValue) -> [UInt8] {
        switch value {
        case .null: return [0]
        case .integer(let integer): return [1] + withUnsafeBytes(of: integer.bigEndian) { Array($0) }
        case .real(let real): return [2] + withUnsafeBytes(of: real.bitPattern.bigEndian) { Array($0) }
        case .text(let text): return [3] + Array(text.utf8)
        case .blob(let data): return [4] + Array(data)
        }
    }

    /// Keys under which any two values SQLite's `=` may find equal share at least one (between a
    /// column of any affinity and an untyped bound value): numbers by their value, text by its
    /// bytes and, where it reads as a number, that number too; NULL (never equal) none.
    static func equalityKeys(_ value: BindingValue) -> [Data] {
        switch value {
        case .null: return []
        case .integer(let integer): return [numberKey(integer: integer)]
        case .real(let real): return real.isNaN ? [] : [numberKey(real: real), fifteenDigitKey(real)]
        case .text(let text):
            var keys = [Data([3]) + Data(text.utf8)]
            if let number = number(text: text) {
                keys.append(number.key)
                if let real = number.real { keys.append(fifteenDigitKey(real)) }
            }
            return keys
        case .blob(let data): return [Data([4]) + data]
        }
    }

    private static func numberKey(integer: Int64) -> Data { Data([1]) + Data(String(integer).utf8) }

    private static func numberKey(real: Double) -> Data {
        // An integral real equals the integer of the same value (SQLite compares them exactly).
        if real == real.rounded(), real >= -9_223_372_036_854_775_808.0, real < 9_223_372_036_854_775_808.0 {
            return numberKey(integer: Int64(real))
        }
        return Data([2]) + withUnsafeBytes(of: real.bitPattern.bigEndian) { Data($0) }
    }

    /// A real as 15 significant digits: SQLite compares a REAL with a TEXT column by the text it
    /// writes for the real (`%!.15g` in 3.40), so the text '9.00719925474099e+15' equals the real
    /// 9007199254740994.0 there. A text that reads as a number gets the same key.
    private static func fifteenDigitKey(_ real: Double) -> Data {
        Data([5]) + Data(String(format: "%.15g", real == 0 ? 0 : real).utf8)
    }

    /// The number a text reads as where SQLite's numeric affinity would convert it (spaces
    /// around it allowed), with the real it reads as when it is not an integer; a few texts
    /// SQLite would not convert get a key too, which only files an entry under one more route.
    private static func number(text: String) -> (key: Data, real: Double?)? {
        // SQLite's spaces: also the vertical tab, which Swift's number parsing does not skip.
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || ("\t"..."\r").contains(scalar) }
        let trimmed = text.unicodeScalars.drop(while: isSpace)
        var scalars = String.UnicodeScalarView(trimmed)
        while let last = scalars.last, isSpace(last) {
            scalars.removeLast()
        }
        let number = String(scalars)
        guard !number.isEmpty else { return nil }
        if let integer = Int64(number) { return (numberKey(integer: integer), nil) }
        guard let real = Double(number), !real.isNaN else { return nil }
        return (numberKey(real: real), real)
    }
}
