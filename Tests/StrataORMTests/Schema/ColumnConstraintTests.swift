// SQLiteORM-Swift's column constraints as values: every builder chain, its case, equality.
import Foundation
import Testing
import StrataORM

@Suite struct ColumnConstraintTests {
    static let orders: [Order?] = [nil, .asc, .desc]
    static let clauses: [ConflictClause?] = [nil, .rollback, .abort, .fail, .ignore, .replace]

    /// `primaryKey()` chained as written in code: order, then conflict clause, then autoincrement.
    private func primaryKeyChain(_ order: Order?, _ clause: ConflictClause?, _ autoincrement: Bool) -> ConstraintBuilder {
        func choose(_ choices: PrimaryKeyBuilder.OnConflictClauseBuilder, _ clause: ConflictClause) -> PrimaryKeyWithConflictClauseBuilder {
            switch clause {
            case .rollback: return choices.rollback()
            case .abort: return choices.abort()
            case .fail: return choices.fail()
            case .ignore: return choices.ignore()
            case .replace: return choices.replace()
            }
        }
        if let clause {
            let choices =
                switch order {
                case nil: primaryKey().onConflict()
                case .asc: primaryKey().asc().onConflict()
                case .desc: primaryKey().desc().onConflict()
                }
            let withClause = choose(choices, clause)
            return autoincrement ? withClause.autoincrement() : withClause
        }
        switch (order, autoincrement) {
        case (nil, false): return primaryKey()
        case (nil, true): return primaryKey().autoincrement()
        case (.asc, false): return primaryKey().asc()
        case (.asc, true): return primaryKey().asc().autoincrement()
        case (.desc, false): return primaryKey().desc()
        case (.desc, true): return primaryKey().desc().autoincrement()
        }
    }

    @Test func everyPrimaryKeyChainGivesItsCase() {
        var built: [ColumnConstraint] = []
        for order in Self.orders {
            for clause in Self.clauses {
                for autoincrement in [false, true] {
                    let constraint = primaryKeyChain(order, clause, autoincrement).constraint
                    #expect(constraint == .primaryKey(order: order, conflictClause: clause, autoincrement: autoincrement))
                    built.append(constraint)
                }
            }
        }
        // 36 different constraints: each equals itself only.
        for (i, lhs) in built.enumerated() {
            for (j, rhs) in built.enumerated() { #expect((lhs == rhs) == (i == j)) }
        }
    }

    @Test func notNullAndUniqueWithEveryConflictClause() {
        let notNulls: [ConstraintBuilder] = [
            notNull(), notNull().onConflict().rollback(), notNull().onConflict().abort(),
            notNull().onConflict().fail(), notNull().onConflict().ignore(), notNull().onConflict().replace()
        ]
        let uniques: [ConstraintBuilder] = [
            unique(), unique().onConflict().rollback(), unique().onConflict().abort(),
            unique().onConflict().fail(), unique().onConflict().ignore(), unique().onConflict().replace()
        ]
        #expect(notNulls.map(\.constraint) == Self.clauses.map { .notNull(conflictClause: $0) })
        #expect(uniques.map(\.constraint) == Self.clauses.map { .unique(conflictClause: $0) })
        // Different cases never compare equal, whatever they carry.
        #expect(ColumnConstraint.notNull(conflictClause: nil) != .unique(conflictClause: nil))
        #expect(ColumnConstraint.notNull(conflictClause: .abort) != .notNull(conflictClause: .fail))
        #expect(ColumnConstraint.unique(conflictClause: .replace) != .primaryKey(order: nil, conflictClause: .replace, autoincrement: false))
        #expect(Order.asc != .desc && ConflictClause.abort != .ignore)
    }

    @Test func constraintsReachTheTableDefinition() throws {
        struct Code: Initializable { var id = 0; var code = ""; var label = "" }
        let storage = try Storage(
            filename: "",
            Table<Code>(
                name: "codes",
                Column(name: "id", keyPath: \Code.id, constraints: primaryKey().asc().onConflict().replace().autoincrement()),
                Column(name: "code", keyPath: \Code.code, constraints: notNull().onConflict().fail(), unique().onConflict().ignore()),
                Column(name: "label", keyPath: \Code.label, constraints: unique())))
        try storage.syncSchema(preserve: false)
        let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'codes'")
        let definition = try #require(sql)
        #expect(definition.contains("\"id\" INTEGER PRIMARY KEY ASC ON CONFLICT REPLACE AUTOINCREMENT"))
        #expect(definition.contains("\"code\" TEXT NOT NULL ON CONFLICT FAIL UNIQUE ON CONFLICT IGNORE"))
        #expect(definition.contains("\"label\" TEXT UNIQUE"))
        // UNIQUE ... ON CONFLICT IGNORE: the second row with the same code is skipped.
        try storage.insert(Code(id: 0, code: "a", label: "x"))
        try storage.insert(Code(id: 0, code: "a", label: "y"))
        #expect(try storage.count(all: Code.self) == 1)
    }
}
