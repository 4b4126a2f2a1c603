import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

/// State a higher layer keeps per connection, in the kernel's typed slots.
private final class Tally {
    var count = 0
    static let made = Locked(0)
    init() { Self.made.withLock { $0 += 1 } }
}

private final class Other {
    var label = ""
}

/// A layer's per-connection state lives on the connection without the kernel naming its type:
/// made on first use, one per connection and slot, kept across schema changes, gone with the
/// connection.
@Suite struct ConnectionSlotTests {
    fileprivate static let tallySlot = ConnectionSlot { Tally() }
    fileprivate static let otherSlot = ConnectionSlot { Other() }

    @Test func eachConnectionHasItsOwnValuePerSlot() throws {
        let first = try Connection()
        let second = try Connection()
        first.state(in: Self.tallySlot).count += 2
        first.state(in: Self.tallySlot).count += 1
        first.state(in: Self.otherSlot).label = "first"
        #expect(first.state(in: Self.tallySlot).count == 3)
        #expect(first.state(in: Self.otherSlot).label == "first")
        #expect(second.state(in: Self.tallySlot).count == 0)
        #expect(second.state(in: Self.otherSlot).label == "")
        #expect(first.state(in: Self.tallySlot) === first.state(in: Self.tallySlot))
        #expect(first.state(in: Self.tallySlot) !== second.state(in: Self.tallySlot))
    }

    @Test func theValueGoesWithItsConnection() throws {
        weak var kept: Tally?
        do {
            let connection = try Connection()
            kept = connection.state(in: Self.tallySlot)
            #expect(kept != nil)
        }
        #expect(kept == nil)
    }

    @Test func theValueSurvivesASchemaChangeByAnotherConnection() throws {
        let files = try TwoConnections(named: "slots.sqlite")
        let (mine, other) = (files.mine, files.other)
        try mine.execute("CREATE TABLE t(a)")
        let tally = mine.state(in: Self.tallySlot)
        tally.count = 5
        try other.execute("ALTER TABLE t ADD COLUMN b; CREATE TABLE u(x)")
        #expect(try mine.query("SELECT count(*) FROM u") as Int? == 0)
        #expect(mine.state(in: Self.tallySlot) === tally)
        #expect(mine.state(in: Self.tallySlot).count == 5)
    }
}
