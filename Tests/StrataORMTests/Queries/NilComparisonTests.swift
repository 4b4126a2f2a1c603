import Foundation
import StrataORM
import Testing

/// Swift 6 callers with Foundation imported: nil comparisons and optional values, no ambiguity.
@Suite struct NilComparisonTests {
    struct Item: Initializable, Sendable {
        var id = 0
        var note: String?
        var count = 0
    }

    @Test func optionalColumnsCompareWithNil() throws {
        let storage = try temporaryStorage(
            keyedTable("items", key: \Item.id, Column(name: "note", keyPath: \Item.note), Column(name: "count", keyPath: \Item.count)))
        try storage.insert(Item(id: 0, note: nil, count: 1))
        try storage.insert(Item(id: 0, note: "x", count: 2))
        let nils: [Item] = try storage.getAll(where_(\Item.note == nil))
        #expect(nils.map(\.count) == [1])
        let nonNils: [Item] = try storage.getAll(where_(\Item.note != nil))
        #expect(nonNils.map(\.count) == [2])
        let none: String? = nil
        let viaValue: [Item] = try storage.getAll(where_(\Item.note == none))
        #expect(viaValue.map(\.count) == [1])
        let some: String? = "x"
        let viaSome: [Item] = try storage.getAll(where_(\Item.note != some))
        #expect(viaSome.isEmpty) // SQL: NULL <> 'x' is NULL, so the nil row does not match
        try storage.update(all: Item.self, set(assign(\Item.note, nil)))
        #expect(try storage.count(\Item.note) == 0)
        try storage.update(all: Item.self, set(assign(\Item.note, "y")))
        #expect(try storage.count(\Item.note) == 2)
        try storage.update(all: Item.self, set(assign(\Item.note, some)))
        #expect(try storage.select(\Item.note, orderBy(\Item.id)) == ["x", "x"])
        // Plain Swift comparisons with nil keep their meaning.
        #expect(some != nil)
        #expect(none == nil)
    }
}
