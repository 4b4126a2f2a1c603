import Foundation
import StrataSQift
import StrataTestSupport
import Testing
import Strata
@testable import StrataCore

private final class Derived {
    let columns: [String]
    init(_ columns: [String]) { self.columns = columns }
}

private final class OtherDerived {}

/// A reader's column order: the kind of per-statement state the records module keeps.
private enum ReaderA {}
private enum ReaderB {}

/// What a layer above derives from a compiled statement stays on it while its compiled form
/// holds, and is dropped when SQLite re-prepares it after a schema change, including one made by
/// another connection.
@Suite struct StatementLayerCacheTests {
    static let key = ObjectIdentifier(Derived.self)

    @Test func aStoredValueIsKeptAcrossExecutionsAndReplacedByAnotherKey() throws {
        let db = try makeConnection(executing: "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 2)")
        let statement = try db.prepare("SELECT * FROM t")
        #expect(try statement.step())
        #expect(statement.statementCache(for: Self.key, as: Derived.self) == nil)
        let derived = Derived(statement.columnNames)
        statement.storeStatementCache(derived, for: Self.key)
        try statement.bind()
        #expect(try statement.step())
        #expect(statement.statementCache(for: Self.key, as: Derived.self) === derived)
        // Asked as another type, or under another key, it is not there.
        #expect(statement.statementCache(for: Self.key, as: OtherDerived.self) == nil)
        #expect(statement.statementCache(for: ObjectIdentifier(OtherDerived.self), as: Derived.self) == nil)
        statement.storeStatementCache(OtherDerived(), for: ObjectIdentifier(OtherDerived.self))
        #expect(statement.statementCache(for: Self.key, as: Derived.self) == nil)
    }

    @Test func anotherConnectionsSchemaChangeDropsIt() throws {
        let files = try TwoConnections(named: "statement.sqlite")
        let (mine, other) = (files.mine, files.other)
        try mine.execute("CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 2)")
        let statement = try mine.prepare("SELECT * FROM t")
        #expect(try statement.step())
        statement.storeStatementCache(Derived(statement.columnNames), for: Self.key)
        try statement.bind()

        try other.execute("DROP TABLE t; CREATE TABLE t(b, c, a); INSERT INTO t VALUES(20, 30, 10)")
        #expect(try statement.step())
        #expect(statement.statementCache(for: Self.key, as: Derived.self) == nil)
        #expect(statement.columnNames == ["b", "c", "a"])
    }

    /// The column indexes a reader type resolves (what records use) are resolved again after
    /// another connection reorders the table, and kept per reader type otherwise.
    @Test func readerColumnIndexesFollowAnotherConnectionsSchemaChange() throws {
        let files = try TwoConnections(named: "indexes.sqlite")
        let (mine, other) = (files.mine, files.other)
        try mine.execute("CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 2)")
        let statement = try mine.prepare("SELECT * FROM t")
        var resolutions = 0
        func indexes(_ reader: Any.Type) throws -> [Int32] {
            try statement.currentRow.columnIndexes(
                cachedFor: reader,
                names: {
                    resolutions += 1; return ["a", "b"]
                }
            ).get()
        }
        #expect(try statement.step())
        #expect(try indexes(ReaderA.self) == [0, 1])
        #expect(try indexes(ReaderA.self) == [0, 1])
        #expect(resolutions == 1)
        #expect(try indexes(ReaderB.self) == [0, 1])
        #expect(resolutions == 2)
        try statement.bind()

        try other.execute("DROP TABLE t; CREATE TABLE t(b, c, a); INSERT INTO t VALUES(20, 30, 10)")
        #expect(try statement.step())
        #expect(try indexes(ReaderB.self) == [2, 0])
        #expect(resolutions == 3)
        #expect(statement.currentRow.value(at: 2) as Int? == 10)
        #expect(try indexes(ReaderB.self) == [2, 0])
        #expect(resolutions == 3)
    }
}
