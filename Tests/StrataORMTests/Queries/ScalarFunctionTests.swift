import Foundation
import StrataTestSupport
import Testing
import StrataORM

/// SQLiteORM-Swift's scalar functions and ORDER BY modifiers, each checked against the same SQL
/// written by hand on the same rows.
@Suite struct ScalarFunctionTests {
    /// The column `sql` computes for each person, in id order.
    func byHand<T: Extractable>(_ storage: Storage, _ sql: String, _ type: T.Type = T.self) throws -> [T?] where T.DataType == T {
        try storage.connection.query("SELECT \(sql) FROM people ORDER BY id") { row in row[0] as T? }
    }

    @Test func textFunctionsMatchSQLite() throws {
        let storage = try sampleStorage()
        func check(_ computed: [String?], _ sql: String) throws {
            #expect(computed == (try byHand(storage, sql, String.self)), "\(sql)")
        }
        try check(storage.select(substr(\Person.name, 2), orderBy(\Person.id)), "substr(name, 2)")
        try check(storage.select(substr(\Person.name, 2, 1), orderBy(\Person.id)), "substr(name, 2, 1)")
        try check(storage.select(substring(\Person.name, -2, 5), orderBy(\Person.id)), "substr(name, -2, 5)")
        try check(storage.select(replace(\Person.name, "n", "N'\u{301}"), orderBy(\Person.id)), "replace(name, 'n', 'N''\u{301}')")
        try check(storage.select(ltrim(\Person.name, "AB"), orderBy(\Person.id)), "ltrim(name, 'AB')")
        try check(storage.select(rtrim(\Person.name, "ne"), orderBy(\Person.id)), "rtrim(name, 'ne')")
        try check(storage.select(trim(\Person.name, "A"), orderBy(\Person.id)), "trim(name, 'A')")
        try check(storage.select(printf("%s is %d", \Person.name, \Person.age), orderBy(\Person.id)), "printf('%s is %d', name, age)")
        try check(storage.select(char(72, 105), orderBy(\Person.id)), "char(72, 105)")
        try check(storage.select(hex(\Person.name), orderBy(\Person.id)).map(Optional.some), "hex(name)")
        try check(storage.select(ifnull(\Person.nickname, "none"), orderBy(\Person.id)), "ifnull(nickname, 'none')")
        try check(storage.select(nullif(\Person.name, "Bob"), orderBy(\Person.id)).map { $0 }, "nullif(name, 'Bob')")
        try check(storage.select(iif(\Person.age > 35, \Person.name, "young"), orderBy(\Person.id)), "iif(age > 35, name, 'young')")
        try check(
            storage.select(coalesce(\Person.nickname, nullif(\Person.name, "Bob"), "?"), orderBy(\Person.id)),
            "coalesce(nickname, nullif(name, 'Bob'), '?')")
        try check(storage.select(sqliteCompileOptionGet(0), orderBy(\Person.id)), "sqlite_compileoption_get(0)")
    }

    @Test func numericAndSystemFunctionsMatchSQLite() throws {
        let storage = try sampleStorage()
        #expect(try storage.select(instr(\Person.name, "e"), orderBy(\Person.id)) == byHand(storage, "instr(name, 'e')", Int.self))
        #expect(try storage.select(unicode(\Person.name), orderBy(\Person.id)) == byHand(storage, "unicode(name)", Int.self))
        #expect(try storage.select(sign(\Person.age - 40), orderBy(\Person.id)) == byHand(storage, "sign(age - 40)", Int.self))
        #expect(try storage.select(round(\Person.age / 7.0), orderBy(\Person.id)) == byHand(storage, "round(age / 7.0)", Double.self))
        #expect(try storage.select(round(\Person.age / 7.0, 2), orderBy(\Person.id)) == byHand(storage, "round(age / 7.0, 2)", Double.self))
        #expect(try storage.select(max(\Person.age, 35, 45), orderBy(\Person.id)).map(Optional.some) == byHand(storage, "max(age, 35, 45)", Int.self))
        #expect(try storage.select(min(\Person.age, 35), orderBy(\Person.id)).map(Optional.some) == byHand(storage, "min(age, 35)", Int.self))
        #expect(try storage.select(likely(\Person.age), orderBy(\Person.id)) == [30, 40, 50, 40])
        #expect(try storage.select(unlikely(\Person.age), orderBy(\Person.id)) == [30, 40, 50, 40])
        #expect(try storage.select(likelihood(\Person.age, 0.5), orderBy(\Person.id)) == [30, 40, 50, 40])
        #expect(try storage.select(likelihood(\Person.age, -0.0), orderBy(\Person.id)) == [30, 40, 50, 40]) // not "-0.0" in SQL
        #expect(try storage.select(like("_o%", \Person.name, "\\"), orderBy(\Person.id)) == [false, true, false, false])
        #expect(try storage.select(zeroblob(3), from(Person.self), orderBy(\Person.id)).first == Data([0, 0, 0]))
        #expect(try storage.select(randomblob(4), from(Person.self), orderBy(\Person.id)).allSatisfy { $0?.count == 4 })
        #expect(try storage.select(length(\Person.name), where_(random() != random() || \Person.id > 0)).count == 4)
        let version: [String] = try storage.select(sqliteVersion(), from(Person.self), limit(1))
        #expect(version == [try storage.connection.query("SELECT sqlite_version()") as String])
        let source: [String] = try storage.select(sqliteSourceId(), from(Person.self), limit(1))
        #expect(source.first?.isEmpty == false)
        #expect(
            try storage.select(sqliteCompileOptionUsed("THREADSAFE"), from(Person.self), limit(1)) == [
                try storage.connection.query("SELECT sqlite_compileoption_used('THREADSAFE')") as Int
            ])
        try storage.insert(Person(id: 0, name: "Eve", nickname: nil, age: 20))
        #expect(try storage.select(changes(), from(Person.self), limit(1)) == [1])
        #expect(try storage.select(lastInsertRowid(), from(Person.self), limit(1)) == [5])
        #expect(try storage.select(totalChanges(), from(Person.self), limit(1)).first.map { $0 >= 5 } == true)
        // Extension loading is off: SQLite's error, thrown.
        #expect(throws: (any Swift.Error).self) { try storage.select(loadExtension("/nonexistent/ext"), from(Person.self), limit(1)) as [String?] }
    }

    @Test func orderByCollationAndNullPlacement() throws {
        let storage = try sampleStorage()
        try storage.insert(Person(id: 0, name: "ann", nickname: "b", age: 30))
        func names(_ order: OrderBy) throws -> [String] {
            let people: [Person] = try storage.getAll(order, orderBy(\Person.id))
            return people.map(\.name)
        }
        func byHand(_ clause: String) throws -> [String] {
            try storage.connection.query("SELECT name FROM people ORDER BY \(clause), id") { $0[0] as String }
        }
        #expect(try names(orderBy(\Person.name).collate("NOCASE")) == byHand("name COLLATE NOCASE"))
        #expect(try names(orderBy(\Person.name).collate("binary").desc()) == byHand("name COLLATE binary DESC"))
        #expect(try names(orderBy(\Person.nickname).nullsFirst()) == byHand("nickname NULLS FIRST"))
        #expect(try names(orderBy(\Person.nickname).asc().nullsLast()) == byHand("nickname ASC NULLS LAST"))
        #expect(try names(orderBy(\Person.nickname).desc().nullsFirst()) == byHand("nickname DESC NULLS FIRST"))
        #expect(try names(orderBy(\Person.nickname).nullsLast().collate("NOCASE").desc()) == byHand("nickname COLLATE NOCASE DESC NULLS LAST"))
        // The collation name is quoted: an unknown one is SQLite's error, never SQL.
        #expect(throws: (any Swift.Error).self) { try names(orderBy(\Person.name).collate("nocase\" DESC, \"x")) }
    }
}
