import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

/// Views and triggers write their values as literals (SQLite takes no parameters there): each
/// generated value, written as a literal, must read back exactly as the same value bound.
@Suite struct InlinedLiteralTests {
    private func readBack(_ db: Connection, _ sql: String, _ arguments: [Bindable?] = []) throws -> String {
        let statement = try db.prepare(sql, arguments)
        guard try statement.step() else { return "no row" }
        let row = statement.currentRow
        let type: String = row.value(at: 0) ?? "?"
        switch type {
        case "integer": return "integer \(row.value(at: 1) as Int64? ?? 0)"
        case "real": return "real \((row.value(at: 1) as Double?)?.bitPattern ?? 0)"
        case "text": return "text \(Array((row.value(at: 2) as Data?) ?? Data()))"
        case "blob": return "blob \(Array((row.value(at: 2) as Data?) ?? Data()))"
        default: return type
        }
    }

    @Test func literalsReadBackAsTheBoundValue() throws {
        let db = try Connection()
        try PropertyCheck.run("literal = bound value", cases: 300) { random in
            let value: BindingValue
            switch random.int(0...4) {
            case 0: value = .integer(Gen.int64(&random))
            case 1: value = .real(Gen.double(&random))
            case 2: value = .text(hardText(&random))
            case 3: value = .blob(Gen.bytes(&random))
            default: value = .null
            }
            let select: SQLFragment = "SELECT typeof(v), v, CAST(v AS BLOB) FROM (SELECT \(SQLFragment(segments: [.value(value)])) AS v)"
            let literal = try readBack(db, try select.sqlInliningValues())
            let bound = try readBack(db, select.sql, select.arguments.map(\.bindable))
            try require(literal == bound, "\(value): literal reads \(literal), bound reads \(bound)")
        }
    }
}
