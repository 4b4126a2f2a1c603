import Foundation
import Testing
import StrataORM

// SQLiteORM-Swift's extension points as its users write them, in Swift 5 mode: a custom column
// type, constraints as values, reading built-ins from a value of our own.

struct Money: Bindable, ConstructableFromSQLiteValue, Equatable {
    var cents: Int

    init(cents: Int) { self.cents = cents }
    init(sqliteValue: SQLiteValue) { cents = sqliteValue.integer }
    func bind(to binder: Binder) -> Int32 { binder.bindInt(value: cents) }
    static func sqliteTypeName() -> String { "INTEGER" }
}

struct Item: Initializable, Equatable {
    var id = 0
    var name = ""
    var price = Money(cents: 0)
    var discount: Money?
}

private func itemStorage() throws -> Storage {
    let storage = try Storage(filename: "", tables: [
        Table<Item>(name: "items", elements: [
            Column(name: "id", keyPath: \Item.id, constraints: primaryKey(), notNull()),
            Column(name: "name", keyPath: \Item.name, constraints: notNull()),
            Column(name: "price", keyPath: \Item.price, constraints: notNull()),
            Column(name: "discount", keyPath: \Item.discount),
        ]),
    ])
    _ = try storage.syncSchema(preserve: false)
    return storage
}

final class ValueMock: SQLiteValue {
    var isValid = true
    var integer = 0
    var double = 0.0
    var text = ""
    var isNull = false
}

@Test func customColumnTypesRoundTripAndFilterInSwift5() throws {
    let storage = try itemStorage()
    try storage.replace(Item(id: 1, name: "tea", price: Money(cents: 350), discount: nil))
    try storage.replace(Item(id: 2, name: "cake", price: Money(cents: 525), discount: Money(cents: 25)))
    let all: [Item] = try storage.getAll()
    #expect(all.sorted { $0.id < $1.id } == [Item(id: 1, name: "tea", price: Money(cents: 350), discount: nil),
                                             Item(id: 2, name: "cake", price: Money(cents: 525), discount: Money(cents: 25))])
    let dear: [Item] = try storage.getAll(where_(\Item.price > Money(cents: 400)))
    #expect(dear.map(\.name) == ["cake"])
    let exact: [Item] = try storage.getAll(where_(\Item.price == Money(cents: 350)))
    #expect(exact.map(\.id) == [1])
    try storage.update(all: Item.self, set(assign(\Item.price, Money(cents: 100))), where_(\Item.id == 1))
    let tea: Item? = try storage.get(id: 1)
    #expect(tea?.price == Money(cents: 100))
    // The column type comes from sqliteTypeName(); the optional custom column is nullable.
    let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'items'")
    #expect(sql?.contains("\"price\" INTEGER NOT NULL") == true)
    #expect(sql?.contains("\"discount\" INTEGER") == true && sql?.contains("\"discount\" INTEGER NOT NULL") == false)
}

@Test func nullInANonOptionalCustomColumnIsAnErrorInSwift5() throws {
    let storage = try Storage(filename: "", tables: [
        Table<Item>(name: "items", elements: [
            Column(name: "id", keyPath: \Item.id, constraints: primaryKey()),
            Column(name: "name", keyPath: \Item.name),
            Column(name: "price", keyPath: \Item.price),
        ]),
    ])
    _ = try storage.syncSchema(preserve: false)
    try storage.connection.execute("INSERT INTO items (id, name, price) VALUES (1, 'x', NULL)")
    #expect(throws: ORMError.valueDoesNotConvert(table: "items", column: "price", type: "Money")) {
        let _: [Item] = try storage.getAll()
    }
}

@Test func constraintsAreComparableValuesInSwift5() {
    #expect(primaryKey().constraint == .primaryKey(order: nil, conflictClause: nil, autoincrement: false))
    #expect(primaryKey().desc().onConflict().replace().autoincrement().constraint
            == .primaryKey(order: .desc, conflictClause: .replace, autoincrement: true))
    #expect(primaryKey().asc().autoincrement().constraint == .primaryKey(order: .asc, conflictClause: nil, autoincrement: true))
    #expect(notNull().onConflict().ignore().constraint == .notNull(conflictClause: .ignore))
    #expect(unique().constraint == .unique(conflictClause: nil))
    #expect(unique().onConflict().fail().constraint != .unique(conflictClause: .abort))
    let builders: [ConstraintBuilder] = [primaryKey(), notNull(), unique().onConflict().rollback()]
    #expect(builders.map(\.constraint) == [.primaryKey(order: nil, conflictClause: nil, autoincrement: false),
                                           .notNull(conflictClause: nil), .unique(conflictClause: .rollback)])
    let order: Order = .asc
    let clause: ConflictClause = .abort
    #expect(order != .desc && clause != .replace)
}

@Test func builtInsConstructFromAValueInSwift5() {
    let value = ValueMock()
    value.integer = -5
    value.double = 2.5
    value.text = "hi"
    #expect(Int(sqliteValue: value) == -5)
    #expect(Int64(sqliteValue: value) == -5)
    #expect(Double(sqliteValue: value) == 2.5)
    #expect(Float(sqliteValue: value) == 2.5)
    #expect(String(sqliteValue: value) == "hi")
    #expect(Bool(sqliteValue: value) == true)
    value.integer = 500
    #expect(UInt(sqliteValue: value) == 500 && UInt64(sqliteValue: value) == 500)
    #expect(Optional<Int>(sqliteValue: value) == 500)
    value.isNull = true
    #expect(Optional<Int>(sqliteValue: value) == nil)
    #expect(Optional<String>(sqliteValue: value) == nil)
}

struct Payment: Initializable, Equatable {
    var id = 0
    var amount = 0.0
    var tip: Double?
}

@Test func numericColumnsReadAsDoubleThroughTheORMInSwift5() throws {
    let storage = try Storage(filename: "", tables: [
        Table<Payment>(name: "payments", elements: [
            Column(name: "id", keyPath: \Payment.id, constraints: primaryKey()),
            Column(name: "amount", keyPath: \Payment.amount, constraints: notNull()),
            Column(name: "tip", keyPath: \Payment.tip),
        ]),
    ])
    // A table made by another tool, as real databases declare money.
    try storage.connection.execute("""
        CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC NOT NULL, tip DECIMAL(10,2));
        INSERT INTO payments VALUES (1, 32.00, 1.00), (2, 16.75, NULL), (3, 9007199254740992, 0.25);
        """)
    let payments: [Payment] = try storage.getAll()
    #expect(payments.sorted { $0.id < $1.id } == [Payment(id: 1, amount: 32, tip: 1), Payment(id: 2, amount: 16.75, tip: nil),
                                                 Payment(id: 3, amount: 9_007_199_254_740_992, tip: 0.25)])
    #expect(try storage.select(\Payment.amount, where_(\Payment.id == 1)) == [32.0])
    #expect(try storage.total(\Payment.amount) == 9_007_199_254_741_040.75)
}
