import Foundation
import StrataSQift
import Testing
import StrataRecords
import StrataTestSupport

/// A generated condition on `Staff`, built as a typed query and evaluated in Swift with SQL's
/// three-valued logic (nil is NULL), so the two can be compared row for row.
private indirect enum StaffPredicate: CustomStringConvertible {
    case score(String, Int?) // =, <>, <, >=: nil binds NULL (== / != are IS [NOT] NULL)
    case dept(Bool, String?) // == / !=
    case managerIsNull
    case scoreIn([Int?])
    case idInManagers(StaffPredicate) // id IN (SELECT managerId FROM staff WHERE p)
    case exists(StaffPredicate) // EXISTS (SELECT 1 FROM staff WHERE p), p may name this row
    case managedByOuter // inner.managerId = outer.id
    case managesOuter // inner.id = outer.managerId
    case scoreBelowOuter // inner.score < outer.score
    case not(StaffPredicate)
    case and(StaffPredicate, StaffPredicate)
    case or(StaffPredicate, StaffPredicate)

    var description: String {
        switch self {
        case .score(let op, let value): return "score \(op) \(value.map(String.init) ?? "nil")"
        case .dept(let equal, let value): return "dept \(equal ? "==" : "!=") \(value.map { $0.debugDescription } ?? "nil")"
        case .managerIsNull: return "managerId IS NULL"
        case .scoreIn(let values): return "score IN \(values)"
        case .idInManagers(let inner): return "id IN managers(\(inner))"
        case .exists(let inner): return "EXISTS(\(inner))"
        case .managedByOuter: return "managerId = outer.id"
        case .managesOuter: return "id = outer.managerId"
        case .scoreBelowOuter: return "score < outer.score"
        case .not(let p): return "NOT(\(p))"
        case .and(let a, let b): return "(\(a) AND \(b))"
        case .or(let a, let b): return "(\(a) OR \(b))"
        }
    }

    static func generate(_ random: inout SeededRandom, depth: Int, correlated: Bool) -> StaffPredicate {
        let leafChoices = correlated ? 9 : 6
        if depth <= 0 || random.oneIn(3) {
            switch random.int(0...(leafChoices - 1)) {
            case 0, 1: return .score(random.pick(["==", "!=", "<", ">="]), random.oneIn(4) ? nil : random.int(-2...9))
            case 2: return .dept(random.oneIn(2), random.oneIn(4) ? nil : random.pick(["x", "y", "e\u{301}", "\u{e9}", "'\u{301}", ""]))
            case 3: return .managerIsNull
            case 4: return .scoreIn((0..<random.int(0...3)).map { _ in random.oneIn(5) ? nil : random.int(-2...9) })
            case 5:
                return random.oneIn(2)
                    ? .exists(generate(&random, depth: depth - 1, correlated: true))
                    : .idInManagers(generate(&random, depth: depth - 1, correlated: true))
            case 6: return .managedByOuter
            case 7: return .managesOuter
            default: return .scoreBelowOuter
            }
        }
        switch random.int(0...3) {
        case 0: return .not(generate(&random, depth: depth - 1, correlated: correlated))
        case 1: return .and(generate(&random, depth: depth - 1, correlated: correlated), generate(&random, depth: depth - 1, correlated: correlated))
        case 2: return .or(generate(&random, depth: depth - 1, correlated: correlated), generate(&random, depth: depth - 1, correlated: correlated))
        default:
            return random.oneIn(2)
                ? .exists(generate(&random, depth: depth - 1, correlated: true))
                : .idInManagers(generate(&random, depth: depth - 1, correlated: true))
        }
    }

    /// The typed query's condition; `outer` is the enclosing query's columns inside a subquery.
    func build(_ c: Staff.Columns, _ outer: Staff.Columns?) -> RecordPredicate {
        switch self {
        case .score(let op, let value):
            switch op {
            case "==": return c.score == value
            case "!=": return c.score != value
            case "<": return c.score < value
            default: return c.score >= value
            }
        case .dept(let equal, let value): return equal ? c.dept == value : c.dept != value
        case .managerIsNull: return c.managerId == nil
        case .scoreIn(let values): return c.score.in(values)
        case .idInManagers(let inner): return c.id.in(Staff.where { inner.build($0, c) }.select(\.managerId))
        case .exists(let inner): return Staff.where { inner.build($0, c) }.exists()
        case .managedByOuter: return c.managerId == outer!.id
        case .managesOuter: return c.id == outer!.managerId
        case .scoreBelowOuter: return c.score < outer!.score
        case .not(let p): return !p.build(c, outer)
        case .and(let a, let b): return a.build(c, outer) && b.build(c, outer)
        case .or(let a, let b): return a.build(c, outer) || b.build(c, outer)
        }
    }

    /// SQL's answer for `row`: true, false or nil (NULL).
    func evaluate(_ row: Staff, _ outer: Staff?, _ all: [Staff]) -> Bool? {
        func compare(_ a: Int?, _ b: Int?, _ op: (Int, Int) -> Bool) -> Bool? {
            guard let a, let b else { return nil }
            return op(a, b)
        }
        switch self {
        case .score(let op, let value):
            switch op {
            case "==": return value == nil ? row.score == nil : compare(row.score, value, ==)
            case "!=": return value == nil ? row.score != nil : compare(row.score, value, !=)
            case "<": return compare(row.score, value, <)
            default: return compare(row.score, value, >=)
            }
        case .dept(let equal, let value):
            guard let value else { return equal ? row.dept == nil : row.dept != nil }
            guard let dept = row.dept else { return nil }
            // SQLite compares TEXT byte by byte; Swift's == would call é and e\u{301} equal.
            return Array(dept.utf8) == Array(value.utf8) ? equal : !equal
        case .managerIsNull: return row.managerId == nil
        case .scoreIn(let values):
            if values.isEmpty { return false }
            guard let score = row.score else { return nil }
            if values.contains(score) { return true }
            return values.contains(nil) ? nil : false
        case .idInManagers(let inner):
            let managers = all.filter { inner.evaluate($0, row, all) == true }.map(\.managerId)
            if managers.contains(row.id) { return true }
            return managers.contains(nil) ? nil : false
        case .exists(let inner): return all.contains { inner.evaluate($0, row, all) == true }
        case .managedByOuter:
            guard let manager = row.managerId, let id = outer?.id else { return nil }
            return manager == id
        case .managesOuter:
            guard let id = row.id, let manager = outer?.managerId else { return nil }
            return id == manager
        case .scoreBelowOuter: return compare(row.score, outer?.score, <)
        case .not(let p): return p.evaluate(row, outer, all).map { !$0 }
        case .and(let a, let b):
            let (x, y) = (a.evaluate(row, outer, all), b.evaluate(row, outer, all))
            if x == false || y == false { return false }
            return x == true && y == true ? true : nil
        case .or(let a, let b):
            let (x, y) = (a.evaluate(row, outer, all), b.evaluate(row, outer, all))
            if x == true || y == true { return true }
            return x == false && y == false ? false : nil
        }
    }
}

@Suite struct TypedQueryPropertyTests {
    func randomStaff(_ random: inout SeededRandom) throws -> (Connection, [Staff]) {
        let db = try Connection()
        try Staff.createTable(db)
        let count = random.int(0...8)
        var rows: [Staff] = []
        for index in 0..<count {
            let manager: Int64? = index == 0 || random.oneIn(4) ? nil : Int64(random.int(1...(count + 1))) // sometimes dangling
            rows.append(
                Staff(
                    id: nil, name: Gen.text(&random, maxPieces: 3, nul: false), managerId: manager,
                    score: random.oneIn(4) ? nil : random.int(-2...9),
                    dept: random.oneIn(4) ? nil : random.pick(["x", "y", "e\u{301}", "\u{e9}", "'\u{301}", ""])))
        }
        try Staff.insertAll(db, rows)
        return (db, try Staff.order(by: \.id).fetchAll(db))
    }

    /// Generated conditions (&&, ||, !, NULL comparisons, IN lists, subqueries, correlated
    /// subqueries over the same record) select in SQL exactly the rows Swift selects.
    @Test func whereSelectsWhatSwiftSelects() throws {
        try PropertyCheck.run("typed where against a Swift oracle", cases: 60) { random in
            let (db, all) = try randomStaff(&random)
            for _ in 0..<4 {
                let predicate = StaffPredicate.generate(&random, depth: 3, correlated: false)
                let query = Staff.where { predicate.build($0, nil) }
                let selected = try query.fetchAll(db).compactMap(\.id).sorted()
                let expected = all.filter { predicate.evaluate($0, nil, all) == true }.compactMap(\.id).sorted()
                try require(selected == expected, "\(predicate): SQL \(selected), Swift \(expected)\n\(query.sql)")
                try require(try query.fetchCount(db) == expected.count, "\(predicate): count")
            }
        }
    }

    /// The same conditions on both sides of a self-join select the pairs Swift selects.
    @Test func joinSelectsWhatSwiftSelects() throws {
        try PropertyCheck.run("typed join against a Swift oracle", cases: 40) { random in
            let (db, all) = try randomStaff(&random)
            let (p, q) = (StaffPredicate.generate(&random, depth: 2, correlated: false), StaffPredicate.generate(&random, depth: 2, correlated: false))
            let query = Staff.join(Staff.self, on: { $0.managerId == $1.id }).where { a, b in p.build(a, nil) && q.build(b, nil) }
            let selected = try query.fetchAll(db).map { "\($0.0.id ?? 0)-\($0.1.id ?? 0)" }.sorted()
            var expected: [String] = []
            for a in all {
                for b in all where a.managerId != nil && a.managerId == b.id && p.evaluate(a, nil, all) == true && q.evaluate(b, nil, all) == true {
                    expected.append("\(a.id ?? 0)-\(b.id ?? 0)")
                }
            }
            try require(selected == expected.sorted(), "\(p) / \(q): SQL \(selected), Swift \(expected.sorted())\n\(query.sql)")
        }
    }
}
