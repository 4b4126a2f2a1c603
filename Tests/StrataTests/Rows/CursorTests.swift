import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore

@Suite struct CursorTests {
    @Test func forEachRowVisitsEveryRow() throws {
        let db = try makeCarsConnection()
        var total = 0
        try db.forEachRow("SELECT price FROM cars WHERE price > ?", 20_000) { total += $0[0] as Int }
        #expect(total == 138_769)
        var names: [String] = []
        try db.forEachRow("SELECT name FROM cars WHERE type = :t ORDER BY id", [":t": "Sedan"]) { names.append($0[0]) }
        #expect(names == ["Audi", "Mercedes"])
        let statement = try db.prepare("SELECT id FROM cars ORDER BY id")
        var ids: [Int] = []
        try statement.forEachRow { ids.append($0[0]) }
        try statement.forEachRow { ids.append($0[0]) }
        #expect(ids == [1, 2, 3, 4, 1, 2, 3, 4])
    }
}
