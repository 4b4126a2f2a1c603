// SQLiteORM-Swift's custom column types in Swift 6 mode, as ported code writes them (importing
// only StrataORM): Bindable & ConstructableFromSQLiteValue types through a real database.
import Foundation
import Testing
import StrataORM

/// Money in cents, stored as INTEGER.
struct Cents: Bindable, ConstructableFromSQLiteValue, Equatable {
    var value: Int

    init(_ value: Int) { self.value = value }
    init(sqliteValue: SQLiteValue) { value = sqliteValue.integer }
    func bind(to binder: Binder) -> Int32 { binder.bindInt(value: value) }
    static func sqliteTypeName() -> String { "INTEGER" }
}

/// A stock-keeping code, stored as TEXT.
private struct SKU: Bindable, ConstructableFromSQLiteValue, Equatable {
    var code: String

    init(_ code: String) { self.code = code }
    init(sqliteValue: SQLiteValue) { code = sqliteValue.text }
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: code) }
    static func sqliteTypeName() -> String { "TEXT" }
}

private struct Product: Initializable, Equatable {
    var id = 0
    var sku = SKU("")
    var price = Cents(0)
    var salePrice: Cents?
}

/// A shelf keyed by a custom type.
private struct Shelf: Initializable, Equatable {
    var sku = SKU("")
    var count = 0
}

private func productTables() -> [AnyTable] {
    [
        Table<Product>(
            name: "products",
            elements: [
                Column(name: "id", keyPath: \Product.id, constraints: primaryKey(), notNull()),
                Column(name: "sku", keyPath: \Product.sku, constraints: notNull(), unique()),
                Column(name: "price", keyPath: \Product.price, constraints: notNull()),
                Column(name: "sale_price", keyPath: \Product.salePrice)
            ]),
        Table<Shelf>(
            name: "shelves",
            elements: [
                Column(name: "sku", keyPath: \Shelf.sku, constraints: primaryKey()),
                Column(name: "count", keyPath: \Shelf.count, constraints: notNull())
            ])
    ]
}

private func productStorage() throws -> Storage {
    let storage = try Storage(filename: "", tables: productTables())
    try storage.syncSchema(preserve: false)
    return storage
}

/// What an ``SQLiteValue`` answered when a value was built from it.
private struct ValueSnapshot: Bindable, ConstructableFromSQLiteValue {
    var isValid = false, isNull = true, integer = 0, double = 0.0, text = ""

    init(sqliteValue: SQLiteValue) {
        isValid = sqliteValue.isValid
        isNull = sqliteValue.isNull
        integer = sqliteValue.integer
        double = sqliteValue.double
        text = sqliteValue.text
    }
    init() {}
    func bind(to binder: Binder) -> Int32 { binder.bindText(value: text) }
    static func sqliteTypeName() -> String { "TEXT" }
}

private struct Sample: Initializable {
    var id = 0
    var snapshot = ValueSnapshot()
}
@Suite struct CustomColumnTypeTests {
    @Test func customTypesRoundTripAndFilterThroughSQLite() throws {
        let storage = try productStorage()
        let tea = Product(id: 1, sku: SKU("T-1"), price: Cents(350), salePrice: nil)
        let cake = Product(id: 2, sku: SKU("C-2"), price: Cents(525), salePrice: Cents(400))
        let jam = Product(id: 3, sku: SKU("J-3"), price: Cents(199), salePrice: Cents(150))
        for product in [tea, cake, jam] { try storage.replace(product) }

        let all: [Product] = try storage.getAll(orderBy(\Product.id))
        #expect(all == [tea, cake, jam])
        // Stored as the storage classes they bind, under the column types they name.
        let stored: [String] = try storage.connection.query("SELECT typeof(sku) || ' ' || typeof(price) || ' ' || typeof(sale_price) FROM products ORDER BY id")
        #expect(stored == ["text integer null", "text integer integer", "text integer integer"])
        let sql: String? = try storage.connection.query("SELECT sql FROM sqlite_master WHERE name = 'products'")
        let definition = try #require(sql)
        #expect(definition.contains("\"sku\" TEXT NOT NULL UNIQUE") && definition.contains("\"price\" INTEGER NOT NULL"))
        #expect(definition.contains("\"sale_price\" INTEGER") && !definition.contains("\"sale_price\" INTEGER NOT NULL"))

        // In conditions, the custom value is a bound parameter.
        let exact: [Product] = try storage.getAll(where_(\Product.price == Cents(525)))
        #expect(exact == [cake])
        let bySKU: [Product] = try storage.getAll(where_(\Product.sku == SKU("J-3")))
        #expect(bySKU == [jam])
        let quoted: [Product] = try storage.getAll(where_(\Product.sku == SKU("T-1' OR '1'='1")))
        #expect(quoted.isEmpty)
        let cheap: [Product] = try storage.getAll(where_(\Product.price < Cents(400) && \Product.salePrice != nil))
        #expect(cheap == [jam])
        let notCake: [Product] = try storage.getAll(where_(\Product.price != Cents(525)), orderBy(\Product.id))
        #expect(notCake.map(\.id) == [1, 3])
        #expect(try storage.count(all: Product.self, where_(\Product.price >= Cents(350))) == 2)
        #expect(try storage.count(all: Product.self, where_(\Product.price <= Cents(350))) == 2)
        #expect(try storage.count(all: Product.self, where_(\Product.price > Cents(350))) == 1)
        #expect(try storage.count(all: Product.self, where_(\Product.salePrice == nil)) == 1)

        // Updates: by object, and by assignment.
        var changed = tea
        changed.salePrice = Cents(300)
        try storage.update(changed)
        #expect(try storage.get(id: 1) == changed)
        try storage.update(all: Product.self, set(assign(\Product.price, Cents(999))), where_(\Product.sku == SKU("C-2")))
        let updated: Product? = try storage.get(id: 2)
        #expect(updated?.price == Cents(999))
    }

    @Test func customTypesAsKeysAndInSelectsAndAggregates() throws {
        let safe = try SafeStorage(filename: "", tables: productTables())
        _ = try safe.syncSchema(preserve: false).get()
        let storage = safe.storage
        try storage.replace(Product(id: 1, sku: SKU("A"), price: Cents(10), salePrice: nil))
        try storage.replace(Product(id: 2, sku: SKU("B"), price: Cents(30), salePrice: Cents(20)))
        let prices: [Cents] = try storage.select(\Product.price, orderBy(\Product.id))
        #expect(prices == [Cents(10), Cents(30)])
        let sales: [Cents?] = try storage.select(\Product.salePrice, orderBy(\Product.id))
        #expect(sales == [nil, Cents(20)])
        #expect(try storage.max(\Product.price) == Cents(30))
        #expect(try storage.min(\Product.price) == Cents(10))
        #expect(try storage.min(\Product.salePrice) == Cents(20))
        #expect(try storage.max(\Product.salePrice, where_(\Product.id == 1)) == nil)
        #expect(try safe.max(\Product.price).get() == Cents(30))
        #expect(try safe.min(\Product.salePrice).get() == Cents(20))
        #expect(try safe.select(\Product.sku, where_(\Product.id == 1)).get() == [SKU("A")])
        // SQLiteORM-Swift's Bindable values as primary key values.
        try storage.replace(Shelf(sku: SKU("A"), count: 3))
        try storage.replace(Shelf(sku: SKU("B"), count: 5))
        let shelf: Shelf? = try storage.get(id: SKU("B"))
        #expect(shelf == Shelf(sku: SKU("B"), count: 5))
        let none: Shelf? = try storage.get(id: SKU("Z"))
        #expect(none == nil)
        #expect(try safe.get(of: Shelf.self, id: SKU("A")).get() == Shelf(sku: SKU("A"), count: 3))
        let viaResult: Result<Shelf?, ORMError> = safe.get(id: SKU("A"))
        #expect(try viaResult.get()?.count == 3)
        #expect(try safe.get(of: Product.self, id: 2).get()?.sku == SKU("B"))
        #expect(throws: ORMError.primaryKeyCountMismatch(table: "shelves", expected: 1, received: 2)) {
            let _: Shelf? = try storage.get(id: SKU("A"), SKU("B"))
        }
    }

    @Test func nullInANonOptionalCustomColumnThrows() throws {
        let storage = try temporaryStorage(
            keyedTable("products", key: \Product.id, Column(name: "sku", keyPath: \Product.sku), Column(name: "price", keyPath: \Product.price)))
        try storage.connection.execute("INSERT INTO products (id, sku, price) VALUES (1, 'A', NULL)")
        #expect(throws: ORMError.valueDoesNotConvert(table: "products", column: "price", type: "Cents")) {
            let _: [Product] = try storage.getAll()
        }
        #expect(throws: ORMError.valueDoesNotConvert(table: "result", column: "price", type: "Cents")) {
            let _: [Cents] = try storage.select(\Product.price)
        }
    }

    @Test func strataReadsAColumnAsAnSQLiteValueWithSQLiteConversions() throws {
        let storage = try temporaryStorage(keyedTable("samples", key: \Sample.id, Column(name: "snapshot", keyPath: \Sample.snapshot)))
        try storage.connection.execute("INSERT INTO samples VALUES (1, '42.5'), (2, 7), (3, 2.75), (4, x'6869')")
        let samples: [Sample] = try storage.getAll(orderBy(\Sample.id))
        let snapshots = samples.map(\.snapshot)
        try #require(snapshots.count == 4)
        #expect(snapshots.allSatisfy { $0.isValid && !$0.isNull })
        // TEXT '42.5': SQLite reads its leading integer and its number.
        #expect(snapshots[0].integer == 42 && snapshots[0].double == 42.5 && snapshots[0].text == "42.5")
        // INTEGER 7 (stored as TEXT by the column's affinity, read back the same way).
        #expect(snapshots[1].integer == 7 && snapshots[1].double == 7 && snapshots[1].text == "7")
        #expect(snapshots[2].integer == 2 && snapshots[2].double == 2.75 && snapshots[2].text == "2.75")
        // A BLOB's bytes as text.
        #expect(snapshots[3].text == "hi" && snapshots[3].integer == 0)
    }
}

/// A custom value whose `bind(to:)` fails without binding anything.
private struct Unbindable: Bindable {
    func bind(to binder: Binder) -> Int32 { 1 }
    static func sqliteTypeName() -> String { "INTEGER" }
}

/// Custom values in conditions: one that binds NULL compares as Swift's nil does, one that fails
/// to bind makes the statement throw, and neither touches a row it was not meant to.
@Suite struct CustomValueConditionTests {
    @Test func aCustomValueThatBindsNullComparesWithIs() throws {
        let storage = try productStorage()
        try storage.insert(Product(id: 0, sku: SKU("a"), price: Cents(1), salePrice: nil))
        try storage.insert(Product(id: 0, sku: SKU("b"), price: Cents(2), salePrice: Cents(1)))
        let noSale: [Product] = try storage.getAll(where_(\Product.salePrice == (nil as Cents?)))
        #expect(noSale.map(\.sku.code) == ["a"])
        let onSale: [Product] = try storage.getAll(where_(\Product.salePrice != (nil as Cents?)))
        #expect(onSale.map(\.sku.code) == ["b"])
    }

    @Test func aCustomValueThatFailsToBindThrowsAndDeletesNothing() throws {
        let storage = try productStorage()
        try storage.insert(Product(id: 0, sku: SKU("a"), price: Cents(1), salePrice: nil))
        #expect(throws: ORMError.self) { try storage.delete(all: Product.self, where_(\Product.salePrice == Unbindable())) }
        #expect(throws: ORMError.self) { let _: [Product] = try storage.getAll(where_(\Product.salePrice == Unbindable())) }
        #expect(try storage.count(all: Product.self) == 1)
    }

    @Test func aCustomKeyThatFailsToBindThrowsInGet() throws {
        let storage = try productStorage()
        try storage.insert(Shelf(sku: SKU("a"), count: 1))
        #expect(throws: ORMError.self) { let _: Shelf? = try storage.get(id: Unbindable()) }
        #expect(throws: ORMError.self) { let _: [Product] = try storage.getAll(where_((\Product.id).in([1, 2]) && \Product.salePrice == Unbindable())) }
    }
}
