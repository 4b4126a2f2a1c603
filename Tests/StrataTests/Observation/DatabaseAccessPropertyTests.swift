import Foundation
import Testing
import Strata
@testable import StrataCore
import StrataTestSupport

/// `DatabaseAccess.isAffected(by:)` scans small name sets instead of hashing (a commit asks it of
/// every observer); it must answer as set membership does, on both sides of the scan limit and
/// for names that are equal only canonically (`é` and `e` + U+0301) or differ only in case.
@Suite struct DatabaseAccessPropertyTests {
    /// The hashed form: what `isAffected(by:)` answered before it scanned.
    static func hashed(_ read: DatabaseAccess, _ written: DatabaseAccess) -> Bool {
        if read.isEmpty || written.isEmpty { return false }
        if read.isEverything || written.isEverything { return true }
        for table in written.wholeTables where read.wholeTables.contains(table) || read.columns[table] != nil { return true }
        for (table, names) in written.columns {
            if read.wholeTables.contains(table) { return true }
            if let columns = read.columns[table], !columns.isDisjoint(with: names) { return true }
        }
        return false
    }

    static let names = ["items", "ITEMS", "caf\u{E9}", "cafe\u{301}", "Caf\u{C9}", "order", "t", "t2", "", "\u{1F642}", "x\"y", "a", "b", "c", "d", "e"]

    static func access(_ random: inout SeededRandom) -> DatabaseAccess {
        var access = DatabaseAccess()
        for _ in 0..<random.int(0...9) {
            let table = random.oneIn(3) ? Gen.identifier(&random) : random.pick(names)
            if random.oneIn(3) {
                access.insertTable(table)
            } else {
                access.insertColumn(random.oneIn(4) ? "" : random.pick(names), of: table)
            }
        }
        if random.oneIn(40) { access.insertEverything() }
        return access
    }

    @Test func isAffectedAnswersAsHashedSetsDo() throws {
        try PropertyCheck.run("isAffected = hashed membership", cases: 2_000) { random in
            let read = Self.access(&random), written = Self.access(&random)
            let scanned = read.isAffected(by: written), expected = Self.hashed(read, written)
            try require(scanned == expected, "read \(read), written \(written): \(scanned), hashed \(expected)")
            // What a union of writes affects is what either write affects.
            let other = Self.access(&random)
            var union = written
            union.formUnion(other)
            try require(
                read.isAffected(by: union) == (Self.hashed(read, written) || Self.hashed(read, other)),
                "union of \(written) and \(other) against \(read)")
        }
    }

    @Test func canonicallyEqualNamesMatchOnBothSidesOfTheScanLimit() {
        for extra in 0...8 {
            var read = DatabaseAccess(), written = DatabaseAccess()
            read.insertTable("caf\u{E9}")
            for index in 0..<extra { read.insertTable("other\(index)") }
            written.insertTable("cafe\u{301}")
            #expect(read.isAffected(by: written), "\(extra) other tables")
            var columnRead = DatabaseAccess()
            for index in 0...extra { columnRead.insertColumn("c\(index)", of: "Caf\u{C9}") }
            for index in 0..<extra { columnRead.insertColumn("c", of: "t\(index)") }
            #expect(columnRead.isAffected(by: written), "a write to the whole table reaches its columns (\(extra))")
            var unrelated = DatabaseAccess()
            unrelated.insertTable("cafe")
            #expect(!read.isAffected(by: unrelated))
        }
    }
}
