// INSERT and the statements by key, rendered by the one statement renderer: their text, and, over
// generated names and values, the rows SQLite stores for each conflict action against the same
// statement written by hand.
import Foundation
import StrataSQift
import Testing
import Strata
@testable import StrataCore
import StrataTestSupport

@Suite struct InsertRendererTests {
    @Test func textOfEachForm() {
        #expect(StatementClauses.parameterMarkers(0) == "" && StatementClauses.parameterMarkers(3) == "?, ?, ?")
        #expect(StatementClauses.insert(into: "my table", columns: ["a", "b"]).sql == #"INSERT INTO "my table" ("a", "b") VALUES (?, ?)"#)
        #expect(StatementClauses.insert(into: "t", columns: []).sql == #"INSERT INTO "t" DEFAULT VALUES"#)
        #expect(StatementClauses.insert(into: "t", columns: ["a"], onConflict: .replace).sql == #"REPLACE INTO "t" ("a") VALUES (?)"#)
        #expect(StatementClauses.insert(into: "t", columns: ["a"], onConflict: .ignore).sql == #"INSERT OR IGNORE INTO "t" ("a") VALUES (?)"#)
        #expect(
            StatementClauses.insert(into: "t", columns: ["k", "a"], onConflict: .doNothing(conflictTarget: ["k"])).sql
                == #"INSERT INTO "t" ("k", "a") VALUES (?, ?) ON CONFLICT ("k") DO NOTHING"#)
        #expect(
            StatementClauses.insert(into: "t", columns: ["k", "a", "b"], onConflict: .updateAll(conflictTarget: ["K"])).sql
                == #"INSERT INTO "t" ("k", "a", "b") VALUES (?, ?, ?) ON CONFLICT ("K") DO UPDATE SET "a" = excluded."a", "b" = excluded."b""#)
        #expect(
            StatementClauses.insert(into: "t", columns: ["k"], onConflict: .updateAll(conflictTarget: ["k"])).sql
                == #"INSERT INTO "t" ("k") VALUES (?) ON CONFLICT ("k") DO NOTHING"#)
        #expect(
            StatementClauses.insert(into: "t", columns: ["k", "a", "b"], onConflict: .update(columns: ["b"], conflictTarget: ["k"])).sql
                == #"INSERT INTO "t" ("k", "a", "b") VALUES (?, ?, ?) ON CONFLICT ("k") DO UPDATE SET "b" = excluded."b""#)
        let byKey = StatementClauses.byKey("t", keyColumns: ["k1", "k2"])
        #expect(byKey.select(["a", "b"]) == #"SELECT "a", "b" FROM "t" WHERE "k1" = ? AND "k2" = ?"#)
        #expect(byKey.update(["a", "b"]) == #"UPDATE "t" SET "a" = ?, "b" = ? WHERE "k1" = ? AND "k2" = ?"#)
        #expect(byKey.delete() == #"DELETE FROM "t" WHERE "k1" = ? AND "k2" = ?"#)
        #expect(StatementClauses.assignments(["a", "b"]).sql == #""a" = ?, "b" = ?"#)
        // No key matches no row; no conflict target is any conflict.
        #expect(StatementClauses.byKey("t", keyColumns: []).delete() == #"DELETE FROM "t" WHERE false"#)
        #expect(
            StatementClauses.insert(into: "t", columns: ["a"], onConflict: .doNothing(conflictTarget: [])).sql
                == #"INSERT INTO "t" ("a") VALUES (?) ON CONFLICT DO NOTHING"#)
    }

    /// One action for each case below; `hand` is the same statement written out by hand.
    private enum Action: CaseIterable { case abort, replace, ignore, doNothing, updateAll, updateChosen }

    /// Generated table and column names (quotes before combining marks, keywords, empty names)
    /// and generated values: a row inserted over an existing key with each conflict action leaves
    /// the same rows as the statement written by hand with SQLite's own spelling, and the
    /// by-key statements find, change and remove exactly that row.
    @Test func storesWhatTheHandWrittenStatementStores() throws {
        try PropertyCheck.run("insert renderer vs hand-written SQL", cases: 40) { random in
            let names = Gen.distinctIdentifiers(&random, count: 5)
            let table = names[0], key = names[1], columns = Array(names[2...])
            func q(_ name: String) -> String { "\"" + String(decoding: name.utf8.flatMap { $0 == 0x22 ? [0x22, 0x22] : [$0] }, as: UTF8.self) + "\"" }
            let create = "CREATE TABLE \(q(table)) (\(q(key)) PRIMARY KEY, \(columns.map(q).joined(separator: ", ")))"
            let rendered = try Connection(storageLocation: .inMemory)
            let hand = try Connection(storageLocation: .inMemory)
            for db in [rendered, hand] { try db.execute(create) }
            let keyValue = BindingValue.integer(Gen.int64(&random))
            let first = [keyValue] + columns.map { _ in Gen.value(&random) }
            let second = [keyValue] + columns.map { _ in Gen.value(&random) }
            let all = [key] + columns
            for db in [rendered, hand] { try db.run(literal: SQLFragment(sql: "INSERT INTO \(q(table)) VALUES (?, ?, ?, ?)", arguments: first)) }
            let action = random.pick(Action.allCases)
            let chosen = [random.pick(columns)]
            let conflict: InsertConflictAction =
                switch action {
                case .abort: .abort
                case .replace: .replace
                case .ignore: .ignore
                case .doNothing: .doNothing(conflictTarget: [key])
                case .updateAll: .updateAll(conflictTarget: [key])
                case .updateChosen: .update(columns: chosen, conflictTarget: [key])
                }
            let list = "(\(all.map(q).joined(separator: ", "))) VALUES (?, ?, ?, ?)"
            let handSQL =
                switch action {
                case .abort: "INSERT INTO \(q(table)) \(list)"
                case .replace: "INSERT OR REPLACE INTO \(q(table)) \(list)"
                case .ignore: "INSERT OR IGNORE INTO \(q(table)) \(list)"
                case .doNothing: "INSERT INTO \(q(table)) \(list) ON CONFLICT(\(q(key))) DO NOTHING"
                case .updateAll:
                    "INSERT INTO \(q(table)) \(list) ON CONFLICT(\(q(key))) DO UPDATE SET "
                        + columns.map { "\(q($0)) = excluded.\(q($0))" }.joined(separator: ", ")
                case .updateChosen: "INSERT INTO \(q(table)) \(list) ON CONFLICT(\(q(key))) DO UPDATE SET \(q(chosen[0])) = excluded.\(q(chosen[0]))"
                }
            let renderedSQL = StatementClauses.insert(into: table, columns: all, onConflict: conflict).sql
            func outcome(_ db: Connection, _ sql: String) -> SQLiteResultCode? {
                do { try db.run(literal: SQLFragment(sql: sql, arguments: second)); return nil } catch let error as SQLiteError {
                    return error.resultCode
                } catch { return .error }
            }
            #expect(outcome(rendered, renderedSQL) == outcome(hand, handSQL), "\(action): \(renderedSQL)")
            let dump = "SELECT quote(\(q(key))), \(columns.map { "quote(\(q($0)))" }.joined(separator: ", ")) FROM \(q(table)) ORDER BY 1"
            let expected: [[String?]] = try hand.prepare(dump).query { row in row.values.map { $0 as? String } }
            let actual: [[String?]] = try rendered.prepare(dump).query { row in row.values.map { $0 as? String } }
            #expect(actual == expected, "\(action)")

            // By key: the stored row is read, changed and removed.
            let byKey = StatementClauses.byKey(table, keyColumns: [key])
            let read: Row? = try rendered.query(literal: SQLFragment(sql: byKey.select(all), arguments: [keyValue]))
            #expect(read != nil)
            let newValues = columns.map { _ in Gen.value(&random) }
            try rendered.run(literal: SQLFragment(sql: byKey.update(columns), arguments: newValues + [keyValue]))
            let changed: Row? = try rendered.query(
                literal: SQLFragment(sql: "SELECT \(columns.map { "quote(\(q($0)))" }.joined(separator: ", ")) FROM \(q(table))"))
            let quoted: Row? = try hand.query(
                literal: SQLFragment(sql: "SELECT " + newValues.map { _ in "quote(?)" }.joined(separator: ", "), arguments: newValues))
            #expect(changed.map { $0.values.map { $0 as? String } } == quoted.map { $0.values.map { $0 as? String } })
            try rendered.run(literal: SQLFragment(sql: byKey.delete(), arguments: [keyValue]))
            #expect(try rendered.query("SELECT count(*) FROM \(q(table))") as Int? == 0)
        }
    }
}
