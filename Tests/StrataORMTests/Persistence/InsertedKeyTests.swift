import Foundation
import Testing
import StrataORM

// What `insert` returns is the key of the row it stored, so `get(id:)` of it finds that row,
// whether the key aliases the rowid (SQLite assigns it) or not (`primaryKey().desc()` on an `Int`
// is an ordinary column, stored from the object: its rowid is another number).

private struct Ranked: Initializable, Equatable {
    var id = 0
    var name = ""
}

private func descendingKeyTable(keyColumn: String = "id", extra: [AnyColumn] = []) -> Table<Ranked> {
    Table<Ranked>(
        name: "ranked",
        elements: [
            Column(name: keyColumn, keyPath: \Ranked.id, constraints: primaryKey().desc()),
            Column(name: "name", keyPath: \Ranked.name, constraints: notNull())
        ] + extra)
}

private struct Code: Initializable, Equatable {
    var code = ""
    var label = ""
}

@Suite struct InsertedKeyTests {
    @Test(arguments: [0, -1, -42, 7, Int(Int64.max), Int(Int64.min)])
    func aDescendingIntegerKeyIsWhatInsertReturns(id: Int) throws {
        let storage = try temporaryStorage(descendingKeyTable())
        let returned = try storage.insert(object: Ranked(id: id, name: "n\(id)"))
        #expect(returned == Int64(id))
        let found: Ranked? = try storage.get(id: returned)
        #expect(found == Ranked(id: id, name: "n\(id)"))
        // The rowid SQLite chose is not the key (it is 1 here), which is what insert returned before.
        #expect(try storage.connection.query("SELECT rowid FROM ranked") as Int64? == 1)
    }

    @Test func everyInsertReturnsItsOwnKey() throws {
        let storage = try temporaryStorage(descendingKeyTable())
        let ids = [0, Int.max, -5, 3]
        let returned = try ids.map { try storage.insert(Ranked(id: $0, name: "n\($0)")) }
        #expect(returned == ids.map(Int64.init))
        for id in returned {
            let found: Ranked? = try storage.get(id: id)
            #expect(found?.id == Int(id))
        }
    }

    @Test func aKeyColumnNamedRowidIsReadBackThroughAnotherRowidName() throws {
        let storage = try temporaryStorage(descendingKeyTable(keyColumn: "rowid"))
        #expect(try storage.insert(Ranked(id: 0, name: "zero")) == 0)
        #expect(try storage.insert(Ranked(id: 40, name: "forty")) == 40)
        let found: Ranked? = try storage.get(id: 40)
        #expect(found?.name == "forty")
    }

    @Test func aRowidAliasKeyIsStillAssignedBySQLite() throws {
        let storage = try temporaryStorage(keyedTable("ranked", key: \Ranked.id, Column(name: "name", keyPath: \Ranked.name, constraints: notNull())))
        #expect(try storage.insert(Ranked(id: 0, name: "a")) == 1)
        #expect(try storage.insert(Ranked(id: 99, name: "b")) == 2)
        let found: Ranked? = try storage.get(id: 2)
        #expect(found?.name == "b")
    }

    @Test func aTextKeyStillReturnsTheRowid() throws {
        let storage = try temporaryStorage(
            Table<Code>(
                name: "codes",
                Column(name: "code", keyPath: \Code.code, constraints: primaryKey()),
                Column(name: "label", keyPath: \Code.label, constraints: notNull())))
        #expect(try storage.insert(Code(code: "b", label: "bee")) == 1)
        #expect(try storage.insert(Code(code: "a", label: "ay")) == 2)
        let found: Code? = try storage.get(id: "a")
        #expect(found?.label == "ay")
    }
}
