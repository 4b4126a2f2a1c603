import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
import StrataTestSupport

/// A column of table `t`, as a layer above would hand it to the core's operators.
private struct ColumnX: SQLExpressible {
    typealias Value = BindingValue
    var fragment: SQLFragment { .column("x") }
}

@Suite struct SQLExpressibleTests {
    @Test func operatorsAreWrittenOnceAsInterpolation() {
        let x = ColumnX().fragment
        #expect(SQLFragment.comparison(x, .greater, "\(3)").sql == #""x" > ?"#)
        #expect(SQLFragment.comparison(x, .equal, .bound(.null)).sql == #""x" IS NULL"#)
        #expect(SQLFragment.comparison(x, .notEqual, .bound(.null)).sql == #""x" IS NOT NULL"#)
        // Only = and <> read NULL as Swift's nil: `x < NULL` stays SQL's (never true).
        #expect(SQLFragment.comparison(x, .less, .bound(.null)).sql == #""x" < ?"#)
        #expect(SQLFragment.grouped(x.isNull, .or, x.isNotNull).sql == #"("x" IS NULL) OR ("x" IS NOT NULL)"#)
        #expect(SQLFragment.call("max", [x], distinct: true).sql == #"max(DISTINCT "x")"#)
        #expect(x.membership(in: ["\(1)", "\(2)"], negated: true).sql == #""x" NOT IN (?, ?)"#)
        #expect(x.between("\(1)", "\(2)").arguments == [.integer(1), .integer(2)])
        #expect(SQLFragment.identifier("t").aliased("t 2").sql == #""t" AS "t 2""#)
    }

    @Test func lateColumnsAreResolvedOrRefused() throws {
        let late = SQLFragment.lateColumn(LateColumn(key: "age"))
        let condition = SQLFragment.comparison(late, .greaterOrEqual, "\(18)")
        // Unresolved, running it throws a named error; the text still names the key.
        #expect(throws: SQLFragmentError.unresolvedColumn("age")) { _ = try condition.rendered }
        let resolved = try condition.resolvingLateColumns { _ in ("age_years", "p") }
        #expect(resolved.sql == #""p"."age_years" >= ?"#)
        #expect(try resolved.rendered.arguments == [.integer(18)])
        // Two late columns of one key are equal, whatever their fragments hold around them.
        #expect(late == SQLFragment.lateColumn(LateColumn(key: "age")))
        #expect(late != SQLFragment.lateColumn(LateColumn(key: "name")))
    }
}

/// The core's comparisons against SQLite itself: for generated values (NULL, -0.0, infinities,
/// Int64 limits, text with quotes before combining marks, NUL, invalid UTF-8 as TEXT, blobs), the
/// rows a generated comparison selects are the rows a hand-written query selects.
@Suite struct SQLExpressionPropertyTests {
    private static let operators: [(SQLOperator, String)] = [
        (.equal, "="), (.notEqual, "<>"), (.less, "<"), (.lessOrEqual, "<="), (.greater, ">"), (.greaterOrEqual, ">=")
    ]

    @Test func comparisonsSelectWhatHandWrittenSQLSelects() throws {
        try PropertyCheck.run("core comparisons against hand-written SQL", cases: 40) { random in
            let db = try makeConnection(executing: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
            let values = (0..<6).map { _ in Gen.value(&random) } + [.null]
            for value in values {
                try db.run(literal: "INSERT INTO t(x) VALUES (\(SQLFragment.bound(value)))")
            }
            let probe = random.oneIn(4) ? BindingValue.null : random.pick(values)
            let (op, spelled) = random.pick(Self.operators)
            let generated = SQLFragment.comparison(.column("x"), op, .bound(probe))
            let ours: [Int64] = try db.query(literal: "SELECT id FROM t WHERE \(generated) ORDER BY id")
            // Hand-written: `= NULL` and `<> NULL` mean IS NULL and IS NOT NULL, as Swift's nil.
            let reference: [Int64]
            switch (op, probe) {
            case (.equal, .null): reference = try db.query("SELECT id FROM t WHERE x IS NULL ORDER BY id")
            case (.notEqual, .null): reference = try db.query("SELECT id FROM t WHERE x IS NOT NULL ORDER BY id")
            default:
                reference = try db.query(literal: SQLFragment(sql: "SELECT id FROM t WHERE x \(spelled) ? ORDER BY id", arguments: [probe]))
            }
            try require(ours == reference, "\(generated.sql) with \(probe): \(ours) against \(reference)")
        }
    }
}

@Suite struct SQLComparisonNullSideTests {
    @Test func aNullOnTheLeftTestsTheRightSide() {
        let x = SQLFragment.column("x")
        #expect(SQLFragment.comparison(.bound(.null), .equal, x).sql == #""x" IS NULL"#)
        #expect(SQLFragment.comparison(.bound(.null), .notEqual, x).sql == #""x" IS NOT NULL"#)
        #expect(SQLFragment.comparison(.unbindable(SQLFragmentError.unresolvedColumn("v")), .equal, x).sql == #"? = "x""#)
    }
}

@Suite struct SQLFragmentEqualityTests {
    @Test func textWithItsOwnPlaceholdersIsNotTextFollowedByAValue() {
        let written = SQLFragment(sql: "x = ?", arguments: [.integer(1)])
        let interpolated: SQLFragment = "x = ?\(1)"
        #expect(written.sql != interpolated.sql)
        #expect(written != interpolated)
        #expect(written == SQLFragment(sql: "x = ?", arguments: [.integer(1)]))
        #expect(Set([written, interpolated]).count == 2)
    }
}
