import Foundation
import StrataTestSupport
import Testing
import StrataORM

struct Defaults: Initializable {
    var id = 0
    var negative = 0
    var real = 0.0
    var text = ""
    var blob = Data()
}

@Suite struct DefaultValueTests {
    @Test func defaultsOfEveryKindAreAddedAsEscapedLiterals() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let first = try Storage(
            filename: path,
            Table<Defaults>(
                name: "defaults",
                Column(name: "id", keyPath: \Defaults.id, constraints: primaryKey())))
        try first.syncSchema(preserve: true)
        try first.insert(Defaults())

        let storage = try Storage(
            filename: path,
            Table<Defaults>(
                name: "defaults",
                Column(name: "id", keyPath: \Defaults.id, constraints: primaryKey()),
                Column(name: "negative", keyPath: \Defaults.negative, constraints: notNull(), defaultValue(-5)),
                Column(name: "real", keyPath: \Defaults.real, constraints: notNull(), defaultValue(2.5)),
                Column(name: "text", keyPath: \Defaults.text, constraints: notNull(), defaultValue("it's; \"x\" --")),
                Column(name: "blob", keyPath: \Defaults.blob, constraints: notNull(), defaultValue(Data([0xAB, 0x01])))))
        #expect(try storage.syncSchema(preserve: true) == ["defaults": .newColumnsAdded])
        let rows: [Defaults] = try storage.getAll()
        #expect(rows.count == 1)
        #expect(rows.first?.negative == -5)
        #expect(rows.first?.real == 2.5)
        #expect(rows.first?.text == "it's; \"x\" --")
        #expect(rows.first?.blob == Data([0xAB, 0x01]))
        #expect(try storage.connection.integrityCheck() == "ok")
    }
}
