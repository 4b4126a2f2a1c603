import Foundation
import Testing
import StrataSqueal

/// Table, column and index names with spaces, quotes and keywords through every helper.
@Suite struct HelperNameQuotingTests {
    static let table = #"my "odd" table"#
    static let order = "order"
    static let first = "first name"
    static let quoted = #"it's "q""#

    func makeTable() throws -> Connection {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable(
            Self.table,
            definitions: [
                "id INTEGER PRIMARY KEY",
                escapeIdentifier(Self.order) + " INTEGER",
                escapeIdentifier(Self.first) + " TEXT",
                escapeIdentifier(Self.quoted) + " TEXT"
            ])
        return db
    }

    @Test func escapeIdentifierQuotesAndDoublesQuotes() {
        #expect(escapeIdentifier("plain") == #""plain""#)
        #expect(escapeIdentifier(#"a"b"#) == #""a""b""#)
        #expect(escapeIdentifier("") == #""""#)
    }

    @Test func insertSelectCountWithOddNames() throws {
        let db = try makeTable()
        let first = try db.insertInto(Self.table, values: [Self.order: 2, Self.first: "Amelia", Self.quoted: "x"])
        let second = try db.insertInto(Self.table, columns: [Self.order, Self.first, Self.quoted], values: [1, "Bob", nil])
        let insert = try db.prepareInsertInto(Self.table, columns: [Self.order, Self.first])
        try insert.bind(3, "Cleo").run()
        #expect([first, second] == [1, 2])

        let names = try db.selectFrom(Self.table, columns: [Self.first, Self.order], orderBy: escapeIdentifier(Self.order)) {
            $0.stringValue(Self.first) ?? "?"
        }
        #expect(names == ["Bob", "Amelia", "Cleo"])
        // Column names that are keywords or hold quotes are quoted too, in any letter case.
        let orders = try db.selectFrom(Self.table, columns: ["ORDER"], orderBy: "1") { $0.intValueAtIndex(0) }
        #expect(orders == [1, 2, 3])
        #expect(try db.countFrom(Self.table) == 3)
        #expect(try db.countFrom(Self.table, columns: [Self.quoted]) == 1)
        #expect(try db.selectIdsFrom(Self.table, orderBy: escapeIdentifier(Self.order)) == [2, 1, 3])
        #expect(try db.selectIdsFrom(Self.table, idColumn: Self.order, whereExpr: "id > ?", parameters: [1]) == [1, 3])
        let prepared = try db.prepareSelectFrom(Self.table, columns: [Self.quoted], whereExpr: "id = ?", parameters: [1])
        #expect(try prepared.next())
        #expect(prepared.stringValue(Self.quoted) == "x")
        let ids = try db.prepareSelectIdsFrom(Self.table, limit: 1, offset: 1)
        #expect(try ids.selectNextInt64() == 2)
    }

    @Test func updateAndDeleteWithOddNames() throws {
        let db = try makeTable()
        for index in 1...4 {
            try db.insertInto(Self.table, values: [Self.order: index, Self.first: "n\(index)"])
        }
        #expect(try db.update(Self.table, set: [Self.first: "one"], whereExpr: "id = ?", parameters: [1]) == 1)
        #expect(try db.update(Self.table, setExpr: escapeIdentifier(Self.order) + " = " + escapeIdentifier(Self.order) + " * 10") == 4)
        #expect(try db.update(Self.table, columns: [Self.quoted], values: ["q"], whereExpr: "id >= ?", parameters: [3]) == 2)
        #expect(try db.update(Self.table, rowIds: [2, 4, 99], values: [Self.first: "even"]) == 2)
        try db.prepareUpdate(Self.table, columns: [Self.first], whereExpr: "id = ?").bind("three", 3).run()
        try db.prepareUpdate(Self.table, setExpr: escapeIdentifier(Self.order) + " = ?", whereExpr: "id = ?", parameters: [0, 1]).run()

        let rows = try db.selectAll("SELECT * FROM " + escapeIdentifier(Self.table) + " ORDER BY id") { statement in
            "\(statement.intValue(Self.order) ?? -1) \(statement.stringValue(Self.first) ?? "-") \(statement.stringValue(Self.quoted) ?? "-")"
        }
        #expect(rows == ["0 one -", "20 even -", "30 three q", "40 even q"])

        #expect(try db.deleteFrom(Self.table, rowIds: [1, 2]) == 2)
        try db.prepareDeleteFrom(Self.table, whereExpr: escapeIdentifier(Self.quoted) + " = ?", parameters: ["q"]).run()
        #expect(try db.countFrom(Self.table) == 0)
        try db.insertInto(Self.table, values: [:])
        #expect(try db.deleteFrom(Self.table) == 1)
    }

    @Test func schemaHelpersWithOddNames() throws {
        let db = try makeTable()
        let index = #"idx "by" order"#
        try db.createIndex(index, tableName: Self.table, columns: [Self.order, Self.first], partialExpr: "id > 0", unique: true)
        try db.createIndex(index, tableName: Self.table, columns: [Self.order], ifNotExists: true)
        #expect(throws: SQLiteError.self) { try db.createIndex(index, tableName: Self.table, columns: [Self.order]) }
        try db.insertInto(Self.table, values: [Self.order: 1, Self.first: "a"])
        #expect(throws: SQLiteError.self) { try db.insertInto(Self.table, values: [Self.order: 1, Self.first: "a"]) }
        #expect(try db.selectString("SELECT name FROM sqlite_master WHERE type = 'index'") == index)
        try db.dropIndex(index)
        try db.dropIndex(index, ifExists: true)

        let column = #"new "col""#
        try db.addColumnToTable(Self.table, column: escapeIdentifier(column) + " TEXT DEFAULT 'd'")
        #expect(try db.tableInfoForTableNamed(Self.table)?.columnNames.last == column)
        let renamed = "select"
        try db.renameTable(Self.table, to: renamed)
        #expect(try db.selectFrom(renamed) { $0.stringValue(column) } == ["d"])
        try db.createTable(renamed, definitions: ["x"], ifNotExists: true)
        #expect(throws: SQLiteError.self) { try db.createTable(renamed, definitions: ["x"]) }
        try db.dropTable(renamed)
        try db.dropTable(renamed, ifExists: true)
        #expect(throws: SQLiteError.self) { try db.dropTable(renamed) }
    }

    @Test func columnsQuoteOnlyWhatSQLiteWouldMatch() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable("t", definitions: [escapeIdentifier("Straße") + " TEXT", escapeIdentifier("Order") + " INTEGER"])
        try db.insertInto("t", values: ["Straße": "x", "Order": 1])
        #expect(sameIdentifier("ORDER", "order") && !sameIdentifier("É", "é") && !sameIdentifier("ab", "abc"))
        // ASCII case differences match, as in SQLite; a non-ASCII case difference stays a fragment
        // (an error), never a quoted string literal.
        #expect(try db.selectFrom("t", columns: ["order", "STRAßE"]) { "\($0.intValueAtIndex(0) ?? 0) \($0.stringValueAtIndex(1) ?? "")" } == ["1 x"])
        #expect(throws: SQLiteError.self) { try db.selectFrom("t", columns: ["strasse"]) { $0.stringValueAtIndex(0) } }
    }

    @Test func fromFragmentsStillWork() throws {
        let db = try Connection(storageLocation: .inMemory)
        try db.createTable("a", definitions: ["id INTEGER PRIMARY KEY", "name TEXT"])
        try db.createTable("b", definitions: ["a_id INTEGER", "tag TEXT"])
        try db.insertInto("a", values: ["id": 1, "name": "one"])
        try db.insertInto("b", values: ["a_id": 1, "tag": "t"])
        let joined = try db.selectFrom(
            "a JOIN b ON b.a_id = a.id", columns: ["a.name", "b.tag", "count(*) AS n"],
            groupBy: "a.id", having: "count(*) > ?", parameters: [0]
        ) {
            "\($0.stringValue("name") ?? "") \($0.stringValue("tag") ?? "") \($0.intValue("n") ?? 0)"
        }
        #expect(joined == ["one t 1"])
        #expect(try db.countFrom("a JOIN b ON b.a_id = a.id") == 1)
    }
}
