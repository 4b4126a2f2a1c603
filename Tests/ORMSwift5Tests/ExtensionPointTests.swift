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
    let storage = try Storage(
        filename: "",
        tables: [
            Table<Item>(
                name: "items",
                elements: [
                    Column(name: "id", keyPath: \Item.id, constraints: primaryKey(), notNull()),
                    Column(name: "name", keyPath: \Item.name, constraints: notNull()),
                    Column(name: "price", keyPath: \Item.price, constraints: notNull()),
                    Column(name: "discount", keyPath: \Item.discount)
                ])
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
    #expect(
        all.sorted { $0.id < $1.id } == [
            Item(id: 1, name: "tea", price: Money(cents: 350), discount: nil),
            Item(id: 2, name: "cake", price: Money(cents: 525), discount: Money(cents: 25))
        ])
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
    let storage = try Storage(
        filename: "",
        tables: [
            Table<Item>(
                name: "items",
                elements: [
                    Column(name: "id", keyPath: \Item.id, constraints: primaryKey()),
                    Column(name: "name", keyPath: \Item.name),
                    Column(name: "price", keyPath: \Item.price)
                ])
        ])
    _ = try storage.syncSchema(preserve: false)
    try storage.connection.execute("INSERT INTO items (id, name, price) VALUES (1, 'x', NULL)")
    #expect(throws: ORMError.valueDoesNotConvert(table: "items", column: "price", type: "Money")) {
        let _: [Item] = try storage.getAll()
    }
}

@Test func constraintsAreComparableValuesInSwift5() {
    #expect(primaryKey().constraint == .primaryKey(order: nil, conflictClause: nil, autoincrement: false))
    #expect(
        primaryKey().desc().onConflict().replace().autoincrement().constraint
            == .primaryKey(order: .desc, conflictClause: .replace, autoincrement: true))
    #expect(primaryKey().asc().autoincrement().constraint == .primaryKey(order: .asc, conflictClause: nil, autoincrement: true))
    #expect(notNull().onConflict().ignore().constraint == .notNull(conflictClause: .ignore))
    #expect(unique().constraint == .unique(conflictClause: nil))
    #expect(unique().onConflict().fail().constraint != .unique(conflictClause: .abort))
    let builders: [ConstraintBuilder] = [primaryKey(), notNull(), unique().onConflict().rollback()]
    #expect(
        builders.map(\.constraint) == [
            .primaryKey(order: nil, conflictClause: nil, autoincrement: false),
            .notNull(conflictClause: nil), .unique(conflictClause: .rollback)
        ])
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
    let storage = try Storage(
        filename: "",
        tables: [
            Table<Payment>(
                name: "payments",
                elements: [
                    Column(name: "id", keyPath: \Payment.id, constraints: primaryKey()),
                    Column(name: "amount", keyPath: \Payment.amount, constraints: notNull()),
                    Column(name: "tip", keyPath: \Payment.tip)
                ])
        ])
    // A table made by another tool, as real databases declare money.
    try storage.connection.execute(
        """
        CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC NOT NULL, tip DECIMAL(10,2));
        INSERT INTO payments VALUES (1, 32.00, 1.00), (2, 16.75, NULL), (3, 9007199254740992, 0.25);
        """)
    let payments: [Payment] = try storage.getAll()
    #expect(
        payments.sorted { $0.id < $1.id } == [
            Payment(id: 1, amount: 32, tip: 1), Payment(id: 2, amount: 16.75, tip: nil),
            Payment(id: 3, amount: 9_007_199_254_740_992, tip: 0.25)
        ])
    #expect(try storage.select(\Payment.amount, where_(\Payment.id == 1)) == [32.0])
    #expect(try storage.total(\Payment.amount) == 9_007_199_254_741_040.75)
}

@Test func nullInANonOptionalDoubleIsANamedErrorInSwift5() throws {
    let storage = try Storage(
        filename: "",
        tables: [
            Table<Payment>(
                name: "payments",
                elements: [
                    Column(name: "id", keyPath: \Payment.id, constraints: primaryKey()),
                    Column(name: "amount", keyPath: \Payment.amount),
                    Column(name: "tip", keyPath: \Payment.tip)
                ])
        ])
    try storage.connection.execute(
        """
        CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC, tip NUMERIC);
        INSERT INTO payments VALUES (1, 32.00, 16.75), (2, NULL, NULL);
        """)
    let one: Payment? = try storage.get(id: 1)
    #expect(one == Payment(id: 1, amount: 32.0, tip: 16.75))
    let error = #expect(throws: Error.self) { let _: [Payment] = try storage.getAll() }
    #expect(error == .valueDoesNotConvert(table: "payments", column: "amount", type: "Double"))
    #expect(error?.description.contains("holds NULL") == true)
}

@Test func everyBuiltInConstructsFromAValueInSwift5() {
    let value = ValueMock()
    value.integer = 7
    value.double = 7.25
    value.text = "seven"
    #expect(Optional<Int>(sqliteValue: value) == 7 && Optional<Int64>(sqliteValue: value) == 7)
    #expect(Optional<UInt>(sqliteValue: value) == 7 && Optional<UInt64>(sqliteValue: value) == 7)
    #expect(Optional<Double>(sqliteValue: value) == 7.25 && Optional<Float>(sqliteValue: value) == 7.25)
    #expect(Optional<String>(sqliteValue: value) == "seven" && Optional<Bool>(sqliteValue: value) == true)
    #expect(Optional<Money>(sqliteValue: value) == Money(cents: 7))
    value.integer = 0
    #expect(Bool(sqliteValue: value) == false)
    value.integer = -1
    #expect(UInt64(sqliteValue: value) == UInt64.max)
    value.isNull = true
    #expect(Optional<UInt>(sqliteValue: value) == nil && Optional<UInt64>(sqliteValue: value) == nil)
    #expect(Optional<Int64>(sqliteValue: value) == nil && Optional<Bool>(sqliteValue: value) == nil)
    #expect(Optional<Double>(sqliteValue: value) == nil && Optional<Float>(sqliteValue: value) == nil)
    #expect(Optional<Money>(sqliteValue: value) == nil)
}

@Test func everyConflictClauseOfNotNullAndUniqueInSwift5() {
    let clauses: [ConflictClause] = [.rollback, .abort, .fail, .ignore, .replace]
    let notNulls: [ConstraintBuilder] = [
        notNull().onConflict().rollback(), notNull().onConflict().abort(),
        notNull().onConflict().fail(), notNull().onConflict().ignore(), notNull().onConflict().replace()
    ]
    let uniques: [ConstraintBuilder] = [
        unique().onConflict().rollback(), unique().onConflict().abort(),
        unique().onConflict().fail(), unique().onConflict().ignore(), unique().onConflict().replace()
    ]
    #expect(notNulls.map { $0.constraint } == clauses.map { ColumnConstraint.notNull(conflictClause: $0) })
    #expect(uniques.map { $0.constraint } == clauses.map { ColumnConstraint.unique(conflictClause: $0) })
    #expect(notNull().constraint != unique().constraint)
    #expect(primaryKey().onConflict().abort().constraint != primaryKey().onConflict().fail().constraint)
}

struct Shelf: Initializable, Equatable {
    var code = ""
    var price = Money(cents: 0)
}

@Test func customValuesAsKeysAndInSelectsInSwift5() throws {
    let storage = try itemStorage()
    try storage.replace(Item(id: 1, name: "tea", price: Money(cents: 350), discount: nil))
    try storage.replace(Item(id: 2, name: "cake", price: Money(cents: 525), discount: Money(cents: 25)))
    let prices: [Money] = try storage.select(\Item.price, orderBy(\Item.id))
    #expect(prices == [Money(cents: 350), Money(cents: 525)])
    #expect(try storage.max(\Item.price) == Money(cents: 525))
    #expect(try storage.min(\Item.discount) == Money(cents: 25))
    // A custom type as the primary key, found by get(id:).
    let shelves = try Storage(
        filename: "",
        tables: [
            Table<Shelf>(
                name: "shelves",
                elements: [
                    Column(name: "price", keyPath: \Shelf.price, constraints: primaryKey()),
                    Column(name: "code", keyPath: \Shelf.code)
                ])
        ])
    _ = try shelves.syncSchema(preserve: false)
    try shelves.replace(Shelf(code: "A", price: Money(cents: 99)))
    let found: Shelf? = try shelves.get(id: Money(cents: 99))
    #expect(found == Shelf(code: "A", price: Money(cents: 99)))
    let safe = try SafeStorage(
        filename: "",
        tables: [
            Table<Item>(
                name: "items",
                elements: [
                    Column(name: "id", keyPath: \Item.id, constraints: primaryKey()),
                    Column(name: "price", keyPath: \Item.price)
                ])
        ])
    _ = try safe.syncSchema(preserve: false).get()
    try safe.replace(Item(id: 3, name: "", price: Money(cents: 1), discount: nil)).get()
    #expect(try safe.get(of: Item.self, id: 3).get()?.price == Money(cents: 1))
}
